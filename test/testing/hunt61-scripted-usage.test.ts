/**
 * hunt 61: a scripted reply's `usage` given wrong (a key misspelt, a count
 * that is text or negative, null) was merged over the default usage as
 * given: `{ input: 50 }` cost 10 tokens with nothing to say so, and a test
 * of a turn's usage or a budget failed far from why (or a key no usage has
 * was journaled with the reply). It is refused like the reply's other keys
 * (provider-response, naming the reply and what is wrong).
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, FunctaiError } from "../../src/index.js";
import { scripted, type ScriptedReply } from "../../src/testing/index.js";

const ask = { messages: [{ role: "user" as const, content: "<q>\nhi\n</q>" }], tools: [] };

describe("scripted: a reply's usage", () => {
  it("a usage with a key usage does not have, or counts that are not token counts, is refused naming the reply", async () => {
    for (const usage of [
      { input: 50 },
      { inputtokens: 50 },
      { inputTokens: "50" },
      { outputTokens: -3 },
      { inputTokens: Number.NaN },
      { outputTokens: 1.5 },
      null,
      7,
      [1, 2],
    ]) {
      const lm = scripted(["Hi.", { text: "Hi.", usage } as unknown as ScriptedReply]);
      await lm.generate(ask);
      const failed = await lm.generate(ask).catch((e: unknown) => e);
      expect(failed, JSON.stringify(usage)).toBeInstanceOf(FunctaiError);
      expect(failed).toMatchObject({ code: "provider-response", message: expect.stringContaining("reply 2") });
      expect((failed as Error).message).toContain("usage");
    }
  });

  it("the misspelt key is named", async () => {
    const failed = await scripted([{ text: "Hi.", usage: { input: 50 } } as unknown as ScriptedReply])
      .generate(ask)
      .catch((e: unknown) => e);
    expect((failed as Error).message).toContain('"input"');
  });

  it("an AI function given such a reply fails with that code, not an answer costing the default tokens", async () => {
    const f = ai("f", { description: "d", input: { q: z.string() }, output: z.string() });
    await expect(f("hi", { lm: scripted([{ text: "Hi.", usage: { input: 50 } } as unknown as ScriptedReply]) })).rejects.toMatchObject({
      code: "provider-response",
    });
  });

  it("a usage given right (one count, both, or none) is as before", async () => {
    const [a, b, c] = await Promise.all(
      [{ inputTokens: 50 }, { inputTokens: 0, outputTokens: 7 }, undefined].map((usage) =>
        scripted([{ text: "Hi.", ...(usage ? { usage } : {}) }]).generate(ask),
      ),
    );
    expect(a!.usage).toEqual({ inputTokens: 50, outputTokens: 5 });
    expect(b!.usage).toEqual({ inputTokens: 0, outputTokens: 7 });
    expect(c!.usage).toEqual({ inputTokens: 10, outputTokens: 5 });
  });
});
