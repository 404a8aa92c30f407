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

export { connect, Companion, type ConnectOptions } from "./client/connect.js";
export { RemoteStream } from "./client/remote-stream.js";
export { RemoteError } from "./shared/errors.js";
export type { SocketConstructor, SocketLike } from "./client/socket.js";
export {
  PROTOCOL_VERSION, SUPPORTED_VERSIONS, clientMessageSchema, serverMessageSchema, approvalSchema, waitingEntrySchema,
  unfinishedSchema, outcomeSchema, statusSchema, wireEventSchema, wireErrorSchema,
  type ClientMessage, type ClientMessageInput, type ServerMessage, type WaitingEntry, type WireEvent, type WireError, type Outcome, type TurnStatus,
} from "./shared/protocol.js";

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
