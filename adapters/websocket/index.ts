/**
 * `functai/websocket`: remote approval. `serve` exposes a store's waiting
 * turns and some programs over WebSocket (Node, on `ws`); `connect` is the
 * companion's side, in Node or a browser.
 *
 * @example
 * import { serve, connect } from "functai/websocket";
 * const server = await serve({ store, programs: [desk], keys: ["k1"], port: 0 });
 * const app = await connect(server.url, { key: "k1" });
 * const [w] = await app.waiting();
 * if (w) await app.approve({ conversation: w.conversation, turn: w.turn, by: "maria" });
 * await app.close();
 * await server.close();
 */
export { serve, type ServeOptions, type WebSocketServerHandle } from "./server/serve.js";
export type { KeySpec } from "./server/keys.js";
export type { RateOptions } from "./server/limits.js";
export * from "./companion.js";
