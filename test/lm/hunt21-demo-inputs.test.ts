/**
 * A worked example's inputs are read by the function's input schema (withState) and shown as the live input
 * is. The live input is laid out as the journal keeps it (JSON: a value a transform made `undefined` is left
 * out, a Date is its ISO text). An example's inputs were laid out raw: an input a transform made `undefined`
 * threw a bare TypeError at every call, and a Date was shown as a quoted JSON string where the live call
 * showed the bare text.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

describe("an example's inputs are laid out as a live input is", () => {
  it("an input a transform makes undefined is left out, not a TypeError", async () => {
    const lm = scripted(["<result>\nok\n</result>"]);
    const f = ai("f", { description: "d", input: { q: z.string(), note: z.string().transform((s) => (s === "" ? undefined : s)) } });
    const g = f.withState({ instructions: "d", demos: [{ inputs: { q: "a", note: "" }, outputs: { result: "x" } }] });
    let error: unknown;
    try {
      await g.using({ lm })({ q: "b", note: "" });
    } catch (e) {
      error = e;
    }
    expect(error).toBeUndefined();
    const messages = lm.requests[0]!.messages;
    expect(messages[1]).toEqual({ role: "user", content: "<q>\na\n</q>" });
    // the live input the same way: its `note` is left out
    expect(messages.at(-1)).toEqual({ role: "user", content: "<q>\nb\n</q>" });
  });

  it("a Date input is shown in the example as in the live call", async () => {
    const lm = scripted(["<result>\nok\n</result>"]);
    const f = ai("f", { description: "d", input: { when: z.string().transform((s) => new Date(s)) } });
    const g = f.withState({ instructions: "d", demos: [{ inputs: { when: "2024-01-01" }, outputs: { result: "x" } }] });
    await g.using({ lm })({ when: "2024-01-02" });
    const messages = lm.requests[0]!.messages;
    expect(messages.at(-1)!.content).toBe("<when>\n2024-01-02T00:00:00.000Z\n</when>");
    expect(messages[1]!.content).toBe("<when>\n2024-01-01T00:00:00.000Z\n</when>");
  });
});
