/**
 * form: "reply" leaves a reply that already holds a result block as given,
 * whatever the case of its tags: the library reads `<RESULT>` as `<result>`
 * (lm/prompt.ts), so wrapping it again would send a block inside a block.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

const ask = { messages: [{ role: "user" as const, content: "<q>\nhi\n</q>" }], tools: [] };

describe("scripted: a reply that holds its own result block", () => {
  it("is sent as given whatever the case of its tags, and read as the answer", async () => {
    for (const text of ["<RESULT>\nHi.\n</RESULT>", "<Result>\nHi.\n</Result>", "<result>\nHi.\n</result>"]) {
      expect((await scripted([text], { form: "reply" }).generate(ask)).text, text).toBe(text);
      const greet = ai("greet", { description: "Greet.", input: { name: z.string() } });
      await expect(greet({ name: "Sam" }, { lm: scripted([text], { form: "reply" }) }), text).resolves.toBe("Hi.");
    }
  });

  it("a text without a result block is still wrapped", async () => {
    expect((await scripted(["RESULT: Hi."], { form: "reply" }).generate(ask)).text).toBe("<result>\nRESULT: Hi.\n</result>");
  });
});
