/**
 * A changing tool that RAN (the refund went out) but returned what JSON cannot keep (a BigInt, a cycle, a Map):
 * the model was told "Error: its output is not JSON …; return plain data", which reads as if the tool did not
 * run, inviting the model to call it again (a second refund). Its result for the model and its `done` record now
 * say it ran and its result could not be kept, as the MCP adapter says of a changing tool's oversize result; the
 * journal keeps it done (never run again on its own). A reading tool's error is as before.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, memoryStore, tool } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { toolResults } from "./fixtures.js";

const cyclic = (): unknown => {
  const o: Record<string, unknown> = { id: "R-1" };
  o.self = o;
  return o;
};

describe("a changing tool that ran and returned what cannot be kept", () => {
  for (const [name, output] of [
    ["a BigInt", () => ({ refunded: 39n })],
    ["a cycle", cyclic],
    ["a Map", () => ({ refunds: new Map([["A-1", 39]]) })],
  ] as const) {
    it(`${name}: the model and the record are told it ran; it ran once, kept done`, async () => {
      const refunds: number[] = [];
      const refund = tool("refund", { description: "Refund.", input: { amount: z.number() }, effects: "changes" }, ({ amount }) => {
        refunds.push(amount);
        return output();
      });
      const fn = ai("desk", { description: "Help.", input: { q: z.string() }, tools: [refund] });
      const store = memoryStore();
      const lm = scripted([{ toolCalls: [{ name: "refund", input: { amount: 39 } }] }, "done"]);
      expect(await fn.conversation("c", { store, lm }).send("refund A-1")).toBe("done");
      const [, content] = toolResults(lm.requests[1])[0]!;
      expect(content).toMatch(/^Error: /);
      expect(content).toMatch(/\bit ran\b/);
      expect(content).toMatch(/do not call it again/);
      const done = (await store.read("c")).filter((r) => r.kind === "tool" && (r as { state?: string }).state === "done");
      expect(done).toHaveLength(1);
      expect((done[0] as { error?: string }).error).toMatch(/\bit ran\b/);
      expect(refunds).toEqual([39]);
    });
  }

  it("a reading tool's error is unchanged (it may simply fail)", async () => {
    const look = tool("look", { description: "Look.", input: { id: z.string() }, effects: "reads" }, () => ({ n: 1n }));
    const fn = ai("desk", { description: "Help.", input: { q: z.string() }, tools: [look] });
    const lm = scripted([{ toolCalls: [{ name: "look", input: { id: "A" } }] }, "done"]);
    expect(await fn.using({ lm })("go")).toBe("done");
    const [, content] = toolResults(lm.requests[1])[0]!;
    expect(content).toMatch(/^Error: its output is not JSON \(.*BigInt.*\); return plain data$/);
  });
});
