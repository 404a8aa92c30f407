/**
 * A tool's input, as its schema reads it, is journaled (`started`), shown to a
 * person (`waiting`, the actor's snapshot) and streamed, so it must be JSON.
 * A schema that gives a BigInt or a Map (a transform; `z.coerce.bigint()` is
 * refused when the tool is defined) fails the call with `tool-failed` naming
 * the tool, before anything is asked or run. Before, a conversation that asked a person about such a call
 * threw from the snapshot's JSON inside an actor subscriber: an uncaught
 * exception that ended the Node process; a Map was kept (and shown) as `{}`.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, FunctaiError, tool } from "../../src/index.js";
import { memoryStore, scripted } from "../../src/testing/index.js";

const inputs: [string, Record<string, z.ZodType>, Record<string, unknown>, RegExp][] = [
  ["a BigInt made by a transform", { n: z.string().transform((s) => BigInt(s)) }, { n: "5" }, /BigInt/],
  ["a Map made by a transform", { m: z.string().transform((s) => new Map([[s, 1]])) }, { m: "x" }, /a Map is written as \{\}/],
];

describe("a tool input JSON cannot keep", () => {
  for (const [what, shape, given, why] of inputs) {
    it(`${what}, in a conversation that asks a person: tool-failed, the turn recorded as failed, the tool never run`, async () => {
      let ran = 0;
      const pay = tool("pay", { description: "Pay.", input: shape, effects: "changes" }, () => ++ran);
      const desk = ai("desk", { description: "Pay.", input: { ask: z.string() }, tools: [pay] });
      const store = memoryStore();
      const lm = scripted([{ toolCalls: [{ name: "pay", input: given }] }, "paid"]);
      const e = await desk.conversation("c", { store, lm, approve: "changes" }).send("pay").then(() => null, (err: unknown) => err);
      expect(e).toBeInstanceOf(FunctaiError);
      expect((e as FunctaiError).code).toBe("tool-failed");
      expect((e as FunctaiError).message).toMatch(why);
      expect((e as FunctaiError).message).toContain("desk/pay");
      const kinds = (await store.read("c")).map((r) => r.kind);
      expect(kinds).not.toContain("waiting");
      expect(kinds.at(-1)).toBe("ended");
      expect(ran).toBe(0);
    });

    it(`${what}, in a plain call approved by a function: tool-failed, the tool never run`, async () => {
      let ran = 0;
      const pay = tool("pay", { description: "Pay.", input: shape, effects: "changes" }, () => ++ran);
      const desk = ai("desk", { description: "Pay.", input: { ask: z.string() }, tools: [pay] });
      const lm = scripted([{ toolCalls: [{ name: "pay", input: given }] }, "paid"]);
      await expect(desk("pay", { lm, approve: () => true })).rejects.toMatchObject({ code: "tool-failed" });
      expect(ran).toBe(0);
    });
  }

  it("a Date (z.coerce.date()) is JSON (its toJSON): the call runs", async () => {
    const when: unknown[] = [];
    const book = tool("book", { description: "Book.", input: { at: z.coerce.date() }, effects: "changes" }, ({ at }) => (when.push(at), "booked"));
    const desk = ai("desk", { description: "Book.", input: { ask: z.string() }, tools: [book] });
    const lm = scripted([{ toolCalls: [{ name: "book", input: { at: "2026-12-03T10:00:00Z" } }] }, "done"]);
    expect(await desk("book", { lm, approve: () => true })).toBe("done");
    expect(when).toEqual([new Date("2026-12-03T10:00:00Z")]);
  });
});
