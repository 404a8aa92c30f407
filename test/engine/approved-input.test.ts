/**
 * A tool runs on a person's yes only with the input that person was shown.
 * On resume the model's recorded call is read again by the tool's schema: a
 * default or transform that gives a new value each time would make another
 * input than the approved one (one key approved, another run). Such a call
 * fails with `tool-failed` and never runs; a schema that gives the same value
 * each time runs as approved.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, tool, Waiting } from "../../src/index.js";
import { memoryStore, scripted } from "../../src/testing/index.js";

async function approvedLater(key: z.ZodType) {
  const ran: unknown[] = [];
  const pay = tool("pay", { description: "Pay.", input: { amount: z.number(), key }, effects: "changes" }, (input) => (ran.push(input), "paid"));
  const desk = ai("desk", { description: "Pay.", input: { ask: z.string() }, tools: [pay] });
  const store = memoryStore();
  const lm = scripted([{ toolCalls: [{ name: "pay", input: { amount: 5 } }] }, "paid"]);
  const sent = await desk.conversation("c", { store, lm, approve: "changes" }).send("pay 5").catch((e: unknown) => e);
  expect(sent).toBeInstanceOf(Waiting);
  const shown = (sent as Waiting).approvals[0]!.input;
  const [turn] = await desk.conversation("c", { store, lm }).turns();
  const answered = await turn!.approve({ by: "maria" }).then((v) => ({ v }), (e: unknown) => ({ e }));
  return { ran, shown, answered, turn: turn! };
}

describe("a person's yes runs the input they were shown, or nothing", () => {
  it("a default that gives a new value each time: tool-failed, naming both inputs; the tool never runs", async () => {
    let n = 1;
    const { ran, shown, answered, turn } = await approvedLater(z.string().default(() => `k${++n}`));
    const { key } = shown as { key: string };
    expect(key).toMatch(/^k\d+$/);
    expect("e" in answered && answered.e).toMatchObject({ code: "tool-failed", message: expect.stringContaining(`"${key}"`) });
    expect(ran).toEqual([]);
    expect(turn.state).toBe("failed");
  });

  it("a default that gives the same value each time: the approved input runs", async () => {
    const { ran, shown, answered } = await approvedLater(z.string().default("k"));
    expect(shown).toEqual({ amount: 5, key: "k" });
    expect(answered).toEqual({ v: "paid" });
    expect(ran).toEqual([{ amount: 5, key: "k" }]);
  });
});
