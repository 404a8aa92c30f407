/**
 * hunt 61: a scripted tool call's input is what a model sends, and a model
 * sends JSON. An input holding a Date, a Map, a class instance, NaN or
 * Infinity was handed to the tool as it was (natively), so a test passed on
 * an input no model can send: the tool saw a Date live, while the journal
 * kept its JSON (a string) and the same turn resumed, or a real model, gave
 * the tool a string. Such an input is refused (provider-response, naming
 * where in the input the value is), as an input of a bigint already was.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, FunctaiError, tool } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

class Money {
  constructor(readonly cents: number) {}
}

const ask = { messages: [{ role: "user" as const, content: "<q>\nhi\n</q>" }], tools: [] };

describe("scripted: a tool call's input is JSON, as a model's is", () => {
  for (const nativeTools of [true, false]) {
    it(`an input a model cannot send is refused, naming where it is (nativeTools: ${nativeTools})`, async () => {
      for (const [input, where] of [
        [{ when: new Date(0) }, "when"],
        [{ tags: new Set(["a"]) }, "tags"],
        [{ amount: new Money(3900) }, "amount"],
        [{ n: Number.NaN }, "n"],
        [{ list: [1, Number.POSITIVE_INFINITY] }, "list"],
        [{ f: () => 1 }, "f"],
        [new Date(0), "input"],
      ] as const) {
        const lm = scripted([{ toolCalls: [{ name: "find", input }] }], { nativeTools });
        const failed = await lm.generate(ask).catch((e: unknown) => e);
        expect(failed, String(where)).toBeInstanceOf(FunctaiError);
        expect(failed).toMatchObject({ code: "provider-response" });
        expect((failed as Error).message).toContain("reply 1, tool call 1");
        expect((failed as Error).message).toContain(where);
      }
    });
  }

  it("a turn whose script calls a tool with a Date fails provider-response, the tool not run with a Date", async () => {
    const seen: unknown[] = [];
    const book = tool("book", { description: "Books.", input: { when: z.unknown() }, effects: "reads" }, ({ when }) => {
      seen.push(when);
      return "booked";
    });
    const f = ai("f", { description: "d", input: { q: z.string() }, output: z.string(), tools: [book] });
    const lm = scripted([{ toolCalls: [{ name: "book", input: { when: new Date(0) } }] }, "Booked."]);
    await expect(f("Book it.", { lm })).rejects.toMatchObject({ code: "provider-response" });
    expect(seen).toEqual([]);
  });

  it("JSON inputs are as before: objects, lists, strings, numbers, booleans, null, a key left undefined, no input", async () => {
    const inputs = [{ id: "A-1", n: 2, ok: true, none: null, list: [1, "a", { b: [] }] }, { id: "A-1", note: undefined }, "text", 3, null, undefined];
    const reply = await scripted([{ toolCalls: inputs.map((input) => ({ name: "find", input })) }]).generate(ask);
    expect(reply.toolCalls.map((c) => c.input)).toEqual(inputs);
  });
});
