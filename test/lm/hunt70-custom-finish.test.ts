/**
 * A model of one's own (the public `LanguageModel` contract: a wrapper of
 * another SDK, a gateway) whose reply says why it ended in words functai
 * does not have: the wrapped API's own (`"max_tokens"`, Anthropic's;
 * `"MAX_TOKENS"`, Gemini's), or nothing at all. The reply was taken as one
 * that ended normally: a cut tool call (its half input valid JSON) ran, a
 * refund of the wrong amount, and a text cut off was read as the whole
 * answer. checkResponse checked text, calls and usage, not the finish
 * reason.
 *
 * Decided (the lead): a reason functai does not have, or none, is refused
 * (`provider-response`, naming the reasons there are), as any reply that is
 * not an `LMResponse`: it cannot say whether the reply was cut.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, isFunctaiError, tool } from "../../src/index.js";
import { ownModel } from "./fixtures/own-model.js";

const usage = { inputTokens: 10, outputTokens: 5 };

describe("a model of one's own whose reply gives no finish reason functai has", () => {
  for (const finishReason of ["max_tokens", "MAX_TOKENS", undefined, null, 3]) {
    it(`finishReason ${JSON.stringify(finishReason)}: refused, its call never runs`, async () => {
      const refunds: unknown[] = [];
      const refund = tool("refund", { description: "Refunds.", input: { order_id: z.string(), amount: z.number() }, effects: "changes" }, (input) => {
        refunds.push(input);
        return "refunded";
      });
      const fn = ai("desk", { description: "Refunds orders.", input: { message: z.string() }, output: z.string(), tools: [refund] });
      // the amount was 1999; the cut left 19, which reads as a whole number
      const lm = ownModel([{ text: "", toolCalls: [{ id: "c1", name: "refund", input: { order_id: "A-1042", amount: 19 } }], finishReason, usage }]);
      const e = await fn("Refund A-1042.", { lm, approve: null }).then(
        () => undefined,
        (x: unknown) => x,
      );
      expect(isFunctaiError(e) && e.code).toBe("provider-response");
      expect((e as Error).message).toContain("finishReason");
      expect(refunds).toEqual([]);
    });
  }

  it("a text cut off is not read as the whole answer", async () => {
    const fn = ai("count", { description: "Counts.", input: { n: z.number() }, output: z.string() });
    const lm = ownModel([{ text: "<result>\n12", toolCalls: [], finishReason: "max_tokens", usage }]);
    const e = await fn(5, { lm }).then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(isFunctaiError(e) && e.code).toBe("provider-response");
  });
});
