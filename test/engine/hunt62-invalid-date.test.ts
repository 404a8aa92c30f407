/**
 * An invalid Date in a tool's output (`new Date(row.shipped_at)` of a row
 * with no such field) is a NaN time: JSON writes it as `null`, so the model
 * read "shipped: null" (not shipped yet) where the tool had failed to read
 * its date. As hunt 58 decided for NaN and Infinity, it is the tool's error,
 * naming where, never `null` to the model nor in the journal.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, memoryStore, tool } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { toolResults } from "./fixtures.js";

function desk(output: () => unknown) {
  const look = tool("look", { description: "Look.", input: { id: z.string() }, effects: "reads" }, () => output());
  return ai("desk", { description: "Answer.", input: { q: z.string() }, tools: [look] });
}
const replies = () => [{ toolCalls: [{ name: "look", input: { id: "A" } }] }, "done"];

describe("a tool output holding an invalid Date", () => {
  for (const [name, output, where] of [
    ["at the top level", () => new Date("not a date"), "the output is an invalid Date"],
    ["in a field", () => ({ order: "A-1", shipped: new Date(Number.NaN) }), "shipped is an invalid Date"],
    ["deep in a list", () => ({ rows: [{ at: new Date(0) }, { at: new Date("") }] }), "rows[1].at is an invalid Date"],
  ] as const)
    it(`${name}: the model is told the output is not JSON (${where}), never shown null`, async () => {
      const lm = scripted(replies());
      const store = memoryStore();
      expect(await desk(output).conversation("c", { store, lm }).send("go")).toBe("done");
      const [, content] = toolResults(lm.requests[1])[0]!;
      expect(content).toMatch(/^Error: its output is not JSON/);
      expect(content).toContain(`(${where}, which JSON writes as null)`);
      const done = (await store.read("c")).filter((r) => r.kind === "tool");
      expect(done).toEqual([expect.objectContaining({ state: "done", error: expect.stringContaining("invalid Date") })]);
      expect(done[0]).not.toHaveProperty("output");
    });

  it("valid Dates, and a null the tool gave, are plain data", async () => {
    const lm = scripted(replies());
    expect(
      await desk(() => ({ at: new Date(0), shipped: null }))
        .conversation("c", { store: memoryStore(), lm })
        .send("go"),
    ).toBe("done");
    expect(toolResults(lm.requests[1])[0]![1]).toBe('{"at":"1970-01-01T00:00:00.000Z","shipped":null}');
  });
});
