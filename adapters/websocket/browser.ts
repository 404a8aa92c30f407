/**
 * `functai/websocket` for browsers: the companion's side only (`connect`,
 * the protocol). Serving needs Node (`ws`, `node:http`, `node:crypto`), so
 * `serve` here only says so. Picked by the package's `browser` condition.
 *
 * @example
 * import { connect } from "functai/websocket";
 * const app = await connect("wss://desk.example/functai", { key });
 * app.on("waiting", (list) => render(list));
 */
import { FunctaiError } from "../../src/errors.js";

export * from "./companion.js";

/**
 * Serving runs in Node only.
 *
 * @example
 * import { connect, serve } from "functai/websocket"; // in a browser bundle
 * serve();                                           // throws settings-invalid: serve runs in Node
 * const app = await connect("wss://desk.example/functai", { key });
 */
export function serve(): never {
  throw new FunctaiError("settings-invalid", "functai/websocket: serve runs in Node (it needs ws and node:http); in a browser, use connect");
}
