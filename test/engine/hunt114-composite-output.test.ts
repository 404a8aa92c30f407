/**
 * A program the model calls as a tool may change things inside (its body
 * calls an AI function that refunds). When it then returns what JSON cannot
 * keep (a NaN total, a Map), the model was told "its output is not JSON …;
 * return plain data", which reads as a call that failed and invites a
 * second call, and so a second refund. As for a changing tool of its own
 * (hunt 79), the model and the `done` record now say it ran. A program
 * declared `effects: "reads"` is told as before.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, memoryStore, program, tool } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { toolResults } from "./fixtures.js";

/** desk → settle (a program, as a tool, effects `effects`) → billing (an AI function) → refund; settle returns `output()`. */
function desk(output: () => unknown, effects?: "reads" | "changes") {
  const refunds: string[] = [];
  const refund = tool("refund", { description: "Refund.", input: { order_id: z.string() }, effects: "changes" }, ({ order_id }) => {
    refunds.push(order_id);
    return `refunded ${order_id}`;
  });
  const billing = ai("billing", { description: "Billing.", input: { order_id: z.string() }, tools: [refund] });
  const settle = program(
    "settle",
    { description: "Settle an order.", input: { order_id: z.string() }, output: z.any(), ...(effects && { effects }) },
    async ({ order_id }) => {
      await billing({ order_id });
      return output();
    },
  );
  const fn = ai("desk", { description: "Help.", input: { q: z.string() }, tools: [settle] });
  const lm = scripted([
    { toolCalls: [{ name: "settle", input: { order_id: "A-1" } }] },
    { toolCalls: [{ name: "refund", input: { order_id: "A-1" } }] },
    "refunded",
    "done",
  ]);
  return { fn, lm, refunds };
}

describe("a program called as a tool that ran and returned what cannot be kept", () => {
  for (const [what, output] of [
    ["a NaN total", () => ({ total: Number.NaN })],
    ["a Map", () => new Map([["A-1", 39]])],
  ] as const) {
    for (const effects of [undefined, "changes"] as const) {
      it(`${what} (effects ${effects ?? "not said"}): the model and the record are told it ran, not to call it again`, async () => {
        const { fn, lm, refunds } = desk(output, effects);
        const store = memoryStore();
        expect(await fn.conversation("c", { store, lm }).send("settle A-1")).toBe("done");
        expect(refunds).toEqual(["A-1"]);
        const [, content] = toolResults(lm.requests[3]).find(([name]) => name === "settle")!;
        expect(content).toMatch(/^Error: its output is not JSON/);
        expect(content).toMatch(/It did run: do not call it again/);
        const done = (await store.read("c")).find((r) => r.kind === "tool" && r.name === "settle" && r.state === "done") as { error?: string };
        expect(done.error).toMatch(/\bit ran\b/);
      });
    }
  }

  it('a program declared effects "reads": told as a reading tool is (it may simply fail)', async () => {
    const { fn, lm } = desk(() => ({ total: Number.NaN }), "reads");
    expect(await fn.conversation("c", { store: memoryStore(), lm }).send("settle A-1")).toBe("done");
    const [, content] = toolResults(lm.requests[3]).find(([name]) => name === "settle")!;
    expect(content).toMatch(/^Error: its output is not JSON \(total is NaN, which JSON writes as null\); return plain data$/);
  });
});
