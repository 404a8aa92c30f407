/**
 * What a person says a tool returned (`resume({ results })`) is kept in the
 * journal and read back by every resume: one JSON cannot keep (a BigInt, a
 * cycle, a Map) is refused (`input-invalid`, naming the tool) before
 * anything is written. Before, the memory store kept it, the resumed run
 * failed on it with a raw TypeError, and the turn was failed for good.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, memoryStore, tool } from "../../src/index.js";
import { faultyStore, scripted } from "../../src/testing/index.js";

/** A turn whose process lost its store just after pay ran: pay (invocation 1) is unfinished. */
async function interrupted() {
  const paid: number[] = [];
  const pay = tool("pay", { description: "Pay.", input: { amount: z.number() }, effects: "changes" }, ({ amount }) => (paid.push(amount), `paid ${amount}`));
  const desk = ai("desk", { description: "Pay.", input: { ask: z.string() }, tools: [pay] });
  const inner = memoryStore();
  const done = (r: object) => (r as { kind?: string; state?: string }).kind === "tool" && (r as { state?: string }).state === "done";
  const store = faultyStore(inner, { failOn: (call) => (call.records.some(done) ? "before-write" : undefined), crash: true });
  const lm = scripted([{ toolCalls: [{ name: "pay", input: { amount: 5 } }] }, "paid"]);
  await expect(desk.conversation("c", { store, lm }).send("pay 5")).rejects.toMatchObject({ code: "store-io" });
  // (its lease still runs, but its holder, this process, let it go: it reads interrupted at once)
  const [turn] = await desk.conversation("c", { store: inner, lm }).turns();
  expect(turn!.unfinished.map((u) => [u.name, u.invocation])).toEqual([["pay", 1]]);
  return { turn: turn!, inner, paid };
}

const cyclic = (): unknown => {
  const a: Record<string, unknown> = {};
  a.self = a;
  return a;
};

describe("resume({ results }) with a result JSON cannot keep", () => {
  it.each([
    ["a BigInt", () => 10n],
    ["a cycle", cyclic],
    ["a Map (kept as {})", () => new Map([["id", "r-1"]])],
  ])("%s: input-invalid naming pay, nothing written, the turn still interrupted and resumable", async (_, result) => {
    const { turn, inner, paid } = await interrupted();
    const length = (await inner.read("c")).length;
    await expect(turn.resume({ results: { 1: result() } })).rejects.toMatchObject({ code: "input-invalid", message: expect.stringMatching(/pay/) });
    expect(await inner.read("c")).toHaveLength(length);
    expect(turn.state).toBe("interrupted");
    expect(await turn.resume({ results: { 1: "paid 5" } })).toBe("paid");
    expect(paid).toEqual([5]);
  });
});
