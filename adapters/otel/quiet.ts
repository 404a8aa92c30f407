import { diag, type Span } from "@opentelemetry/api";
import { describeError } from "../../src/errors.js";

/**
 * Runs tracing work so that it never changes what a turn does: a tracer or
 * span processor that throws (a user's processor with a bug) is told to
 * OpenTelemetry's diagnostics (`diag`, as the SDK reports its own errors),
 * and the turn goes on. Thrown from a hook, it would fail the turn
 * (`plugin-failed`), even after a changing tool had run.
 *
 * @example
 * quietly("turnEnd", () => span.end()); // a throwing onEnd is logged by diag.error, not thrown
 */
export function quietly(what: string, run: () => void): void {
  try {
    run();
  } catch (e) {
    tell(`functai/otel: ${what} failed, the turn goes on: ${describeError(e)}`);
  }
}

/**
 * Tells OpenTelemetry's diagnostics; a logger that throws as well (a closed stream, a full disk) is passed over:
 * thrown on from here, it failed the turn (`plugin-failed`) all the same, after its tools had run.
 */
function tell(message: string): void {
  try {
    diag.error(message);
  } catch {
    // nowhere left to tell it: tracing never changes what a turn does
  }
}

/**
 * Says what a span ends with (`describe`: its attributes, status, events),
 * then ends it, each step quietly: a span that throws as it is told an
 * attribute is still ended (else it is never exported, and stays held).
 *
 * @example
 * endQuietly("toolResult", span, () => span.setAttribute("functai.approval", "approved"));
 */
export function endQuietly(what: string, span: Span, describe: () => void): void {
  quietly(what, describe);
  quietly(what, () => span.end());
}
