/**
 * The scripted model could not say why a reply ended: every reply finished
 * `"stop"` (or `"tool_calls"`), and `finishReason` in a reply was refused
 * as a key a reply does not have. So a test could not show what its
 * function does with a reply cut off at its token limit or stopped by a
 * filter, the very replies real models send and the engine treats apart
 * (asked again, a cut call never run). A reply now takes `finishReason`;
 * a value no reply has (`"content-filter"`, `"max_tokens"`) is refused
 * with a coded error, never read as the default.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { FunctaiError } from "../../src/errors.js";
import { ai, tool } from "../../src/index.js";
import { type ScriptedAnswer, scripted } from "../../src/testing/index.js";

const answer = ai("answer", { description: "Answer.", input: { question: z.string() }, output: z.string() });
const ask = { messages: [{ role: "user" as const, content: "Hi" }], tools: [] };

describe("scripted: a reply's finishReason", () => {
  it("is given back as the reply's", async () => {
    for (const finishReason of ["length", "content_filter", "refusal", "other", "stop"] as const) {
      const res = await scripted([{ text: "Hi", finishReason }]).generate(ask);
      expect(res.finishReason).toBe(finishReason);
    }
  });

  it("a reply cut off at its limit is not the answer: the function asks again", async () => {
    const lm = scripted([{ text: "<result>\n12", finishReason: "length" }, "<result>\n12345\n</result>"]);
    expect(await answer("Count to five.", { lm })).toBe("12345");
    expect(lm.requests).toHaveLength(2);
    expect(lm.requests[1]!.messages.at(-1)!.content).toContain("cut off at its token limit");
  });

  it('form "reply": a cut reply is written without its closing tag, as a cut reply is', async () => {
    const lm = scripted([{ text: "It is at the", finishReason: "length" }, "It is at the carrier."], { form: "reply" });
    const first = await lm.generate(ask);
    expect(first.text).toBe("<result>\nIt is at the");
    expect(
      await answer("Where is it?", {
        lm: scripted([{ text: "It is at the", finishReason: "content_filter" }, "It is at the carrier."], { form: "reply" }),
      }),
    ).toBe("It is at the carrier.");
  });

  it('form "reply": a refusal is sent as its words, not as an answer in the reply form', async () => {
    const lm = scripted([{ text: "I can't help with that.", finishReason: "refusal" }, "It is at the carrier."], { form: "reply" });
    expect((await lm.generate(ask)).text).toBe("I can't help with that.");
    const again = scripted([{ text: "I can't help with that.", finishReason: "refusal" }, "It is at the carrier."], { form: "reply" });
    expect(await answer("Where is it?", { lm: again })).toBe("It is at the carrier.");
  });

  for (const nativeTools of [true, false]) {
    it(`a call in a reply cut off is cut short: it never runs, the model is told (nativeTools: ${nativeTools})`, async () => {
      const ran: string[] = [];
      const refund = tool("refund", { description: "Refund.", input: { order: z.string() }, effects: "changes" }, ({ order }) => {
        ran.push(order);
        return "refunded";
      });
      const desk = ai("desk", { description: "Help.", input: { question: z.string() }, output: z.string(), tools: [refund] });
      const cut: ScriptedAnswer = { toolCalls: [{ name: "refund", input: { order: "A-1042" } }], finishReason: "length" };
      const lm = scripted([cut, "<result>\nI could not finish.\n</result>"], { nativeTools });
      expect(await desk("Refund A-1042.", { lm, approve: () => true })).toBe("I could not finish.");
      expect(ran).toEqual([]);
      const told = JSON.stringify(lm.requests[1]!.messages.slice(-1));
      expect(told).toContain("cut off");
    });
  }

  for (const wrong of ["content-filter", "max_tokens", "", 3, null]) {
    it(`a finishReason no reply has is refused: ${JSON.stringify(wrong)}`, async () => {
      const lm = scripted([{ text: "Hi", finishReason: wrong } as unknown as ScriptedAnswer]);
      const e = await lm.generate(ask).then(
        () => undefined,
        (x: unknown) => x,
      );
      expect(e).toBeInstanceOf(FunctaiError);
      expect((e as FunctaiError).code).toBe("provider-response");
      expect((e as FunctaiError).message).toContain("content_filter");
    });
  }
});
