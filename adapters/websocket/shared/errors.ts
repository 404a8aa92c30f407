/**
 * Errors across the wire: the server sends `{ code, message }` only (no
 * stack, no cause); the client turns them back into a `FunctaiError`.
 */
import type { Approval } from "../../../src/approval/types.js";
import { FunctaiError, isErrorCode, type ErrorCode } from "../../../src/errors.js";
import type { WireError } from "./protocol.js";

/**
 * An error a functai server sent (or the connection's end). `code` is the
 * server's when this client knows it; `wireCode` is always what was sent.
 * A turn that waits again rejects with `turn-waiting` and its `approvals`.
 *
 * @example
 * try { await app.approve({ conversation: "sam", turn }); }
 * catch (e) { if (e instanceof RemoteError && e.code === "approval-answered") console.log("someone was faster"); }
 */
export class RemoteError extends FunctaiError {
  readonly wireCode: string;
  readonly approvals: Approval[];
  constructor(error: WireError, approvals: Approval[] = []) {
    super(isErrorCode(error.code) ? error.code : "remote-protocol", error.message);
    this.name = "RemoteError";
    this.wireCode = error.code;
    this.approvals = approvals;
  }
}

/**
 * Errors whose message is safe to send about a request: the engine's own,
 * about what the caller asked (`lm-`: this server has no model to run the
 * turn on, refused before the answer is written, as a run of it would fail
 * with the same code).
 */
const SAFE_PREFIXES = ["approval-", "turn-", "conversation-", "remote-", "input-", "lease-", "step-", "output-", "lm-"];

/**
 * The one mapping of a failure to what the server sends; every code it
 * sends is in `ErrorCode`. A store's own failures may name paths on the
 * server: their code only. A failed turn is the caller's own (`turn`): its
 * error keeps its code and message (a plain `Error` is `turn-failed`, a
 * tool's crash `tool-failed`). A request's failure keeps its code and
 * message when it is about what the caller asked; anything else (a bug) is
 * a bare `remote-internal`.
 */
export function toWireError(e: unknown, of: "request" | "turn" = "request"): WireError {
  if (e instanceof FunctaiError) {
    if (e.code.startsWith("store-")) return { code: e.code, message: "the store failed" };
    if (of === "turn" || SAFE_PREFIXES.some((p) => e.code.startsWith(p))) return { code: e.code, message: e.message.slice(0, 2000) };
  } else if (of === "turn") return { code: "turn-failed", message: e instanceof Error ? e.message.slice(0, 2000) : "the turn failed" };
  return { code: "remote-internal", message: "the server could not do this (see its log)" };
}

/** A refusal made by the adapter itself. */
export const wireError = (code: ErrorCode, message: string): WireError => ({ code, message });
