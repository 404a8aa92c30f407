/**
 * The companion's side of `functai/websocket` (`connect`, the protocol), in
 * Node and in browsers: what both entry points (index.ts, browser.ts) give.
 */
export { connect, Companion, type ConnectOptions } from "./client/connect.js";
export { RemoteStream } from "./client/remote-stream.js";
export { RemoteError } from "./shared/errors.js";
export type { SocketConstructor, SocketLike } from "./client/socket.js";
export {
  PROTOCOL_VERSION, SUPPORTED_VERSIONS, clientMessageSchema, serverMessageSchema, approvalSchema, waitingEntrySchema,
  unfinishedSchema, outcomeSchema, statusSchema, subscribedSchema, wireEventSchema, wireErrorSchema,
  type ClientMessage, type ClientMessageInput, type ServerMessage, type WaitingEntry, type WireEvent, type WireError, type Outcome, type TurnStatus, type Subscribed,
} from "./shared/protocol.js";
