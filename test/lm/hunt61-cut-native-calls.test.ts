/**
 * hunt 61: a reply that stopped before its end (finishReason "length", or
 * "content_filter") may have cut its last tool call short: such a call never
 * runs and the model is told why (lm/cut-short.ts). The built-in providers
 * mark it themselves, and a model reading tools as text has it marked when
 * its text is read; a model of your own (the public `LanguageModel`
 * contract: a wrapper of another SDK, a gateway) with native tools had its
 * reply taken as it came, so a cut call's half input (which a partial-JSON
 * parser, or a server closing the JSON itself, makes valid) ran a tool that
 * changes things: a refund of the wrong amount. The reply is now checked
 * where every model's reply is (checkResponse), as the providers do.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, tool, type LMResponse } from "../../src/index.js";
import { ownModel } from "./fixtures/own-model.js";
import { memoryStore } from "../../src/testing/index.js";

const usage = { inputTokens: 10, outputTokens: 5 };

function desk() {
  const refunds: unknown[] = [];
  const refund = tool("refund", { description: "Refunds.", input: { order_id: z.string(), amount: z.number() }, effects: "changes" }, (input) => {
    refunds.push(input);
    return "refunded";
  });
  const look = tool("look", { description: "Looks.", input: { order_id: z.string() }, effects: "reads" }, () => "found");
  const fn = ai("desk", { description: "Refunds orders.", input: { message: z.string() }, output: z.string(), tools: [look, refund] });
  return { refunds, fn };
}

const cut = (finishReason: "length" | "content_filter"): LMResponse => ({
  text: "",
  // the amount was 1999; the cut left 19, which reads as a whole number
  toolCalls: [
    { id: "c1", name: "look", input: { order_id: "A-1042" } },
    { id: "c2", name: "refund", input: { order_id: "A-1042", amount: 19 } },
  ],
  finishReason,
  usage,
});

describe("a model of one's own whose reply stopped early: its last tool call never runs", () => {
  for (const reason of ["length", "content_filter"] as const) {
    it(`finishReason ${reason}: the last call is not run, the model is told, the calls before it run`, async () => {
      const { refunds, fn } = desk();
      const lm = ownModel([
        cut(reason),
        { text: "", toolCalls: [{ id: "c3", name: "refund", input: { order_id: "A-1042", amount: 1999 } }], finishReason: "tool_calls", usage },
        { text: "<result>\nRefunded.\n</result>", toolCalls: [], finishReason: "stop", usage },
      ]);
      const store = memoryStore();
      await expect(fn.using({ lm }).conversation("sam", { store, approve: null }).send("Refund A-1042.")).resolves.toBe("Refunded.");
      expect(refunds).toEqual([{ order_id: "A-1042", amount: 1999 }]);
      expect(lm.asked).toBe(3);
      // the journal keeps the reply as it was read: a resumed turn does not run it either
      const replies = (await store.read("sam")).filter((r) => (r as { kind?: string }).kind === "reply") as unknown as { response: LMResponse }[];
      expect(replies[0]!.response.toolCalls[1]!.inputError).toMatch(/cut off/);
      expect(replies[0]!.response.toolCalls[0]!.inputError).toBeUndefined();
    });
  }

  it("a reply that ended normally runs all its calls, as before", async () => {
    const { refunds, fn } = desk();
    const whole = { ...cut("length"), finishReason: "tool_calls" as const };
    const lm = ownModel([whole, { text: "<result>\nRefunded.\n</result>", toolCalls: [], finishReason: "stop", usage }]);
    await expect(fn("Refund A-1042.", { lm, approve: null })).resolves.toBe("Refunded.");
    expect(refunds).toEqual([{ order_id: "A-1042", amount: 19 }]);
  });
});
