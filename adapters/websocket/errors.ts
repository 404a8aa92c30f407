/**
 * Errors across the wire: the server sends `{ code, message }` only (no
 * stack, no cause); the client turns them back into a `FunctaiError`.
 */
import type { Approval } from "../../src/approval/types.js";
import { FunctaiError, type ErrorCode } from "../../src/errors.js";
import type { WireError } from "./protocol.js";

/** Codes a server may send; anything else arrives as `remote-protocol`. */
const KNOWN: ReadonlySet<string> = new Set<ErrorCode>([
  "approval-answered", "approval-unknown", "turn-waiting", "turn-unfinished", "turn-state", "turn-claimed", "turn-aborted",
  "lease-lost", "conversation-busy", "conversation-id", "store-conflict", "store-corrupt", "store-io", "input-invalid",
  "output-invalid", "step-limit", "tool-failed", "remote-protocol", "remote-auth", "remote-rate-limit", "remote-closed",
  "remote-unknown-program", "remote-forbidden",
]);

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
    super(KNOWN.has(error.code) ? (error.code as ErrorCode) : "remote-protocol", error.message);
    this.name = "RemoteError";
    this.wireCode = error.code;
    this.approvals = approvals;
  }
}

/** Errors whose message is safe to send: the engine's own, about what the caller asked. */
const SAFE_PREFIXES = ["approval-", "turn-", "conversation-", "remote-", "input-", "lease-", "step-", "output-"];

/**
 * What the server sends for a failure. A `FunctaiError` about the caller's
 * own request keeps its code and message; anything else (a bug, a store's
 * I/O error with paths in it) becomes a bare `remote-internal`.
 */
export function toWireError(e: unknown): WireError {
  if (e instanceof FunctaiError && SAFE_PREFIXES.some((p) => e.code.startsWith(p)))
    return { code: e.code, message: e.message.slice(0, 2000) };
  return { code: "remote-internal", message: "the server could not do this (see its log)" };
}

/** A refusal made by the adapter itself. */
export const wireError = (code: ErrorCode, message: string): WireError => ({ code, message });
