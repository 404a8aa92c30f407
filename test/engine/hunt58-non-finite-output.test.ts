/**
 * Hunt 58: a tool output holding NaN, Infinity or -Infinity (at the top
 * level or nested) is a value JSON cannot keep: JSON.stringify writes it as
 * `null`, so the model read "the balance is null". It is the tool's error,
 * as a BigInt or a cycle is: the model is told its output is not JSON,
 * naming where the number is, and the journal keeps no `null` for it.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, memoryStore, type Plugin, tool } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { toolResults } from "./fixtures.js";

const OUTPUTS: [string, () => unknown, string][] = [
  ["NaN at the top level", () => Number.NaN, "the output is NaN"],
  ["Infinity at the top level", () => Number.POSITIVE_INFINITY, "the output is Infinity"],
  ["a NaN field", () => ({ account: "A-1", balance: Number.NaN }), "balance is NaN"],
  ["a -Infinity deep in an array", () => ({ rows: [{ v: 1 }, { v: Number.NEGATIVE_INFINITY }] }), "rows[1].v is -Infinity"],
  ["an Infinity item of a top-level array", () => [1, Number.POSITIVE_INFINITY], "[1] is Infinity"],
  ["a boxed NaN", () => ({ n: new Number(Number.NaN) }), "n is NaN"],
];

function desk(output: () => unknown) {
  const runs = { n: 0 };
  const look = tool("look", { description: "Look.", input: { id: z.string() }, effects: "reads" }, () => {
    runs.n++;
    return output();
  });
  return { fn: ai("desk", { description: "Answer.", input: { q: z.string() }, tools: [look] }), runs };
}
const replies = () => [{ toolCalls: [{ name: "look", input: { id: "A" } }] }, "done"];

describe("a tool output holding a number JSON cannot say", () => {
  for (const [name, output, where] of OUTPUTS) {
    it(`${name}: the model is told the output is not JSON (${where}), never shown null`, async () => {
      const { fn, runs } = desk(output);
      const lm = scripted(replies());
      const store = memoryStore();
      expect(await fn.conversation("c", { store, lm }).send("go")).toBe("done");
      const [toolName, content] = toolResults(lm.requests[1])[0]!;
      expect(toolName).toBe("look");
      expect(content).toMatch(/^Error: its output is not JSON/);
      expect(content).toContain(`(${where}, which JSON writes as null)`);
      expect(content).toMatch(/return plain data$/);
      expect(runs.n).toBe(1);
      const done = (await store.read("c")).filter((r) => r.kind === "tool" && (r as { state?: string }).state === "done");
      expect(done).toEqual([expect.objectContaining({ name: "look", error: expect.stringMatching(/not JSON/) })]);
      expect(done[0]).not.toHaveProperty("output");
    });
  }

  it("finite numbers, null and a string saying NaN are plain data: shown as they are", async () => {
    const { fn } = desk(() => ({ balance: null, note: "NaN", max: Number.MAX_VALUE, min: -0 }));
    const lm = scripted(replies());
    expect(await fn.conversation("c", { store: memoryStore(), lm }).send("go")).toBe("done");
    expect(toolResults(lm.requests[1])[0]![1]).toBe(JSON.stringify({ balance: null, note: "NaN", max: Number.MAX_VALUE, min: 0 }));
  });

  it("a plugin that changes the output into one holding NaN fails the call (plugin-failed), naming where", async () => {
    const nan: Plugin = { name: "nan", version: "1.0.0", hooks: { toolResult: () => ({ output: { balance: Number.NaN } }) } };
    const { fn } = desk(() => ({ balance: 1 }));
    const lm = scripted(replies());
    const err = await fn("go", { lm, plugins: [nan] }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "plugin-failed", message: expect.stringContaining("balance is NaN, which JSON writes as null") });
  });
});
