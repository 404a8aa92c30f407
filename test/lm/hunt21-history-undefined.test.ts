/**
 * An earlier turn of a conversation is shown as its inputs and its answer (`<result>` block). An answer that
 * is `undefined` (an output whose transform gives undefined: "none" read as nothing) is not kept in the
 * journal's JSON, and laid out it threw a bare TypeError (`undefined.includes`) at every later turn.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai } from "../../src/index.js";
import { memoryStore, scripted } from "../../src/testing/index.js";

describe("an earlier turn whose answer is undefined", () => {
  it("does not break the next turn's prompt", async () => {
    const lm = scripted(["<result>\nnone\n</result>", "<result>\nblue\n</result>"]);
    const f = ai("f", { description: "d", input: { q: z.string() }, output: z.string().transform((s) => (s === "none" ? undefined : s)) });
    const chat = f.using({ lm }).conversation("c", { store: memoryStore() });
    await chat.send("first");
    let error: unknown;
    try {
      await chat.send("second");
    } catch (e) {
      error = e;
    }
    expect(error).toBeUndefined();
    const messages = lm.requests[1]!.messages;
    expect(messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(messages[1]!.content).toBe("<q>\nfirst\n</q>");
    expect(messages[2]!.content).toBe("<result>\n\n</result>");
    expect(messages.at(-1)!.content).toBe("<q>\nsecond\n</q>");
  });
});
