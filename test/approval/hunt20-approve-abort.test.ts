/**
 * An approve function that asks someone (a UI prompt, a chat message) may
 * never answer. README "Conversations": "A signal that aborts while the turn
 * runs stops it (… the send rejects with turn-aborted …)"; "Streams":
 * "s.abort() or an AbortSignal in the call's options stops it too". Nothing
 * has run yet while the function is asked, so nothing needs waiting for: the
 * call should reject with turn-aborted at once, and the tool never run.
 *
 * It hangs instead: the engine awaits the approve function's promise with
 * nothing racing it against the turn's signal (src/engine/approvals.ts,
 * answerFor: `answer = await approve(approval)`), and the Approval carries no
 * signal the function could listen to. The fix belongs there (race the
 * function's answer with `frame.runtime.signal`, and fail the call with
 * turn-aborted when it aborts first), and it was
 * fixed there (this test was it.fails until then).
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, FunctaiError, tool } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

const HUNG = "still waiting after 1 s";
const within = <T>(p: Promise<T>, ms = 1000): Promise<T | string> => Promise.race([p, new Promise<string>((r) => setTimeout(() => r(HUNG), ms))]);
const codeOf = (e: unknown): string => (e instanceof FunctaiError ? e.code : `not a FunctaiError: ${String(e)}`);

function desk() {
  const REFUNDS: string[] = [];
  const refund = tool(
    "refund",
    { description: "Refund.", input: { id: z.string() }, effects: "changes" },
    ({ id }) => (REFUNDS.push(id), "refunded"),
  );
  const fn = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [refund] });
  const lm = scripted([{ toolCalls: [{ name: "refund", input: { id: "A-1" } }] }, "done"]);
  return { fn, lm, REFUNDS };
}
const neverAnswers = () => new Promise<boolean>(() => undefined);

describe("an approve function that never answers, and the call is aborted", () => {
  it("a plain call's signal: turn-aborted at once, the tool never runs (it hangs)", async () => {
    const { fn, lm, REFUNDS } = desk();
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("the customer left")), 30);
    const outcome = await within(fn("Refund A-1.", { lm, approve: neverAnswers, signal: controller.signal }).then(() => "answered", codeOf));
    expect(outcome).toBe("turn-aborted");
    expect(REFUNDS).toEqual([]);
  });

  it("a stream's abort(): its promise settles with turn-aborted at once (it hangs)", async () => {
    const { fn, lm, REFUNDS } = desk();
    const s = fn.stream("Refund A-1.", { lm, approve: neverAnswers });
    setTimeout(() => s.abort(), 30);
    const outcome = await within(Promise.resolve(s).then(() => "answered", codeOf));
    expect(outcome).toBe("turn-aborted");
    expect(REFUNDS).toEqual([]);
  });
});
