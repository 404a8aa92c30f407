/**
 * One error base with a stable `code`. Callers branch on `code`, never on
 * message text. Errors that stop a turn carry what the caller needs to go on.
 */

/**
 * Every code an error of this package can carry.
 *
 * @example
 * const retryable: ErrorCode[] = ["provider-rate-limit", "provider-overloaded", "provider-server"];
 */
export type ErrorCode =
  | "input-invalid"
  | "output-invalid"
  | "step-limit"
  | "tool-failed"
  | "tool-unknown"
  | "approval-required"
  | "approval-answered"
  | "approval-unknown"
  | "turn-waiting"
  | "turn-unfinished"
  | "turn-state"
  | "turn-claimed"
  | "turn-aborted"
  | "lease-lost"
  | "conversation-busy"
  | "conversation-id"
  | "store-conflict"
  | "store-corrupt"
  | "store-io"
  | "store-symlink"
  | "record-invalid"
  | "lm-missing"
  | "lm-unknown"
  | "lm-script-ended"
  | "settings-invalid"
  | "plugin-failed"
  | "plugin-invalid"
  | "metric-failed"
  | "package-missing"
  | "provider-rate-limit"
  | "provider-quota"
  | "provider-overloaded"
  | "provider-bad-request"
  | "provider-auth"
  | "provider-network"
  | "provider-server"
  | "provider-response"
  | "remote-protocol"
  | "remote-auth"
  | "remote-rate-limit"
  | "remote-closed"
  | "remote-unknown-program"
  | "remote-forbidden"
  | "remote-internal"
  | "turn-failed";

/** Every code of `ErrorCode` (a code added there fails to compile here until listed). */
const CODES: Record<ErrorCode, true> = {
  "input-invalid": true, "output-invalid": true, "step-limit": true, "tool-failed": true, "tool-unknown": true,
  "approval-required": true, "approval-answered": true, "approval-unknown": true, "turn-waiting": true, "turn-unfinished": true,
  "turn-state": true, "turn-claimed": true, "turn-aborted": true, "turn-failed": true, "lease-lost": true, "conversation-busy": true,
  "conversation-id": true, "store-conflict": true, "store-corrupt": true, "store-io": true, "store-symlink": true, "record-invalid": true,
  "metric-failed": true, "package-missing": true, "lm-script-ended": true, "lm-missing": true, "lm-unknown": true, "settings-invalid": true,
  "plugin-failed": true, "plugin-invalid": true, "provider-rate-limit": true, "provider-quota": true, "provider-overloaded": true, "provider-bad-request": true,
  "provider-auth": true, "provider-network": true, "provider-server": true, "provider-response": true, "remote-protocol": true,
  "remote-auth": true, "remote-rate-limit": true, "remote-closed": true, "remote-unknown-program": true, "remote-forbidden": true,
  "remote-internal": true,
};

/**
 * Whether `code` is one of this version's codes (a code sent by a server, or
 * recorded by a process, of another version may not be).
 *
 * @example
 * const code = isErrorCode(recorded.code) ? recorded.code : "turn-failed";
 */
export const isErrorCode = (code: unknown): code is ErrorCode => typeof code === "string" && Object.hasOwn(CODES, code);

/**
 * Options of every functai error: the error that caused it, when there was one.
 *
 * @example
 * throw new FunctaiError("store-io", "could not read the file", { cause: e });
 */
export interface FunctaiErrorOptions {
  cause?: unknown;
}

/**
 * The base of every error functai throws: branch on its stable `code`, never on the message.
 *
 * @example
 * try {
 *   await answer("Where is A-1042?");
 * } catch (e) {
 *   if (e instanceof FunctaiError && e.code === "step-limit") console.log("no answer in time");
 *   else throw e;
 * }
 */
export class FunctaiError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, options?: FunctaiErrorOptions) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "FunctaiError";
    this.code = code;
  }
}

/**
 * The loop used its `maxSteps` model calls without an answer.
 *
 * @example
 * const slow = answer.using({ maxSteps: 1 });
 * await slow("Where is A-1042?").catch((e) => { if (e instanceof StepLimit) console.log(e.steps); else throw e; });
 */
export class StepLimit extends FunctaiError {
  readonly steps: number;
  constructor(name: string, steps: number) {
    super("step-limit", `${name}: no answer after ${steps} model calls (maxSteps). Give a larger maxSteps to allow more.`);
    this.name = "StepLimit";
    this.steps = steps;
  }
}

/**
 * The model's reply could not be read as the declared output, even when asked again.
 *
 * @example
 * try { await classify("…"); } catch (e) { if (e instanceof OutputError) console.log(e.reply); else throw e; }
 */
export class OutputError extends FunctaiError {
  readonly reply: string;
  constructor(name: string, reply: string, detail: string) {
    super("output-invalid", `${name}: the model's reply could not be read as the output (${detail}).`);
    this.name = "OutputError";
    this.reply = reply;
  }
}

/**
 * The codes a `ProviderError` carries: `provider-rate-limit`, `provider-auth`, …
 *
 * @example
 * // a model of your own reports its server's refusals as the built-in providers do
 * const code: ProviderErrorCode = status === 429 ? "provider-rate-limit" : "provider-bad-request";
 * throw new ProviderError(code, `the server answered ${status}`, { provider: "mine", status });
 */
export type ProviderErrorCode = Extract<ErrorCode, `provider-${string}`>;

/**
 * A provider refused or failed a request; `status` is the HTTP status when there was one.
 *
 * @example
 * try { await answer("Hi"); } catch (e) { if (e instanceof ProviderError && e.code === "provider-rate-limit") console.log(e.retryAfterMs); else throw e; }
 */
export class ProviderError extends FunctaiError {
  readonly provider: string;
  readonly status: number | undefined;
  readonly retryAfterMs: number | undefined;
  /** What the server said of trying again (its `x-should-retry` header), when it said: it outranks the code. */
  readonly shouldRetry: boolean | undefined;
  constructor(
    code: ProviderErrorCode,
    message: string,
    info: { provider: string; status?: number | undefined; retryAfterMs?: number | undefined; shouldRetry?: boolean | undefined; cause?: unknown },
  ) {
    super(code, message, { cause: info.cause });
    this.name = "ProviderError";
    this.provider = info.provider;
    this.status = info.status;
    this.retryAfterMs = info.retryAfterMs;
    this.shouldRetry = info.shouldRetry;
  }
}

/**
 * A tool call needs a person's answer, and a plain call has nobody to ask.
 *
 * @example
 * try { await desk.using({ approve: "changes" })("Refund A-1042."); } catch (e) { if (e instanceof ApprovalError) console.log(e.path); else throw e; }
 */
export class ApprovalError extends FunctaiError {
  readonly path: string;
  constructor(path: string) {
    super(
      "approval-required",
      `${path}: this tool call needs a person's answer (approval), and a plain call has nobody to ask. ` +
        "Give approve a function, stream the call and answer with s.approve(...), or use a conversation, where the turn waits.",
    );
    this.name = "ApprovalError";
    this.path = path;
  }
}

/**
 * Conversation and turn refusals: `conversation-busy`, `turn-unfinished`, `store-conflict`, …
 *
 * @example
 * try { await chat.send("Next question"); } catch (e) { if (e instanceof ConversationError && e.code === "conversation-busy") console.log("a turn still waits"); else throw e; }
 */
export class ConversationError extends FunctaiError {
  constructor(code: ErrorCode, message: string, options?: FunctaiErrorOptions) {
    super(code, message, options);
    this.name = "ConversationError";
  }
}

/**
 * Whether a thrown value is a functai error (with this `code`, when one is given).
 *
 * @example
 * if (isFunctaiError(e, "conversation-busy")) console.log("a turn of this conversation still waits");
 */
export const isFunctaiError = (e: unknown, code?: ErrorCode): e is FunctaiError =>
  e instanceof FunctaiError && (code === undefined || e.code === code);

/**
 * A value as a refusal shows it: its JSON (a number JSON cannot say, NaN or
 * Infinity, as itself, also inside), else its `String`, or its type when
 * even that fails (a BigInt inside, a cycle); at most `max` characters.
 *
 * @example
 * describeValue({ ttlMs: Number.NaN }); // '{"ttlMs":"NaN"}'
 */
export function describeValue(value: unknown, max = Number.POSITIVE_INFINITY): string {
  let text: string;
  try {
    text = typeof value === "number" ? String(value) : (JSON.stringify(value, (_key, v: unknown) => (typeof v === "number" && !Number.isFinite(v) ? String(v) : v)) ?? String(value));
  } catch {
    text = typeof value;
  }
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/**
 * A short, safe description of any thrown value (for tool errors shown to a model).
 *
 * @example
 * describeError(new TypeError("bad")); // "bad"
 */
export function describeError(e: unknown): string {
  // whatever was thrown, this never throws itself (it is what a failure is told with)
  try {
    if (e instanceof Error) return typeof e.message === "string" && e.message !== "" ? e.message : String(e.name || "Error");
    if (typeof e === "string") return e;
    const text = JSON.stringify(e);
    if (text !== undefined) return text;
  } catch {
    // a cycle, a BigInt, a getter that throws: described below
  }
  try {
    return String(e);
  } catch {
    // (an object without a prototype has no toString: "[object Object]")
  }
  try {
    return Object.prototype.toString.call(e);
  } catch {
    // a revoked Proxy, or one whose traps throw, cannot even be asked what it is
    return `a ${typeof e === "function" ? "function" : "value"} that cannot be read (a Proxy?)`;
  }
}

/**
 * `e instanceof type`, false for a value that cannot be asked (a thrown
 * Proxy whose getPrototypeOf trap throws, a revoked one): it is none of ours.
 *
 * @example
 * try { await tool() } catch (e) { if (isInstance(e, FunctaiError)) console.log((e as FunctaiError).code); }
 */
export function isInstance(e: unknown, type: abstract new (...args: never[]) => unknown): boolean {
  try {
    return e instanceof type;
  } catch {
    return false;
  }
}
