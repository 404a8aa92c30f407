/**
 * Hunt 55: a model's tool call with a key the tool does not take (a misspelt
 * optional input: `reasn` for `reason`) was read by a schema that drops
 * unknown keys: the tool ran without the input the model meant to give, and
 * the model was never told (it believed it gave the reason). A call of an AI
 * function from code refuses such a key (hunt 50); a call from the model now
 * does too: the tool does not run, and the model is told which key is not an
 * input and what the inputs are, so it can call again. The JSON Schema the
 * model is shown is unchanged (requests, and the request keys journals keep,
 * stay the same).
 */
import { beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, program, resetConfiguration, tool, toolSpec } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { toolResults } from "../engine/fixtures.js";

beforeEach(() => resetConfiguration());

describe("a tool call with a key that is no input of the tool", () => {
  it("a plain tool: it does not run, the model is told the key and the inputs, and its corrected call runs", async () => {
    const seen: unknown[] = [];
    const note = tool(
      "note",
      { description: "Note an order.", input: { order_id: z.string(), reason: z.string().optional() }, effects: "reads" },
      (input) => (seen.push(input), "noted"),
    );
    const desk = ai("desk", { description: "Help.", input: { q: z.string() }, tools: [note] });
    const lm = scripted([
      { toolCalls: [{ name: "note", input: { order_id: "A-1", reasn: "broken" } }] },
      { toolCalls: [{ name: "note", input: { order_id: "A-1", reason: "broken" } }] },
      "done",
    ]);
    expect(await desk("q", { lm })).toBe("done");
    const [first] = toolResults(lm.requests[1]);
    expect(first![1]).toMatch(/reasn/);
    expect(first![1]).toMatch(/order_id, reason/);
    expect(first![1]).toMatch(/did not run/);
    expect(seen).toEqual([{ order_id: "A-1", reason: "broken" }]);
  });

  it("an AI function used as a tool: it is not called (no model request of its own)", async () => {
    const inner = ai("inner", { description: "Inner.", input: { a: z.string(), b: z.string().optional() } });
    const outer = ai("outer", { description: "Outer.", input: { q: z.string() }, tools: [inner] });
    const lm = scripted([{ toolCalls: [{ name: "inner", input: { a: "x", bb: "y" } }] }, "done"]);
    expect(await outer("q", { lm })).toBe("done");
    expect(lm.requests).toHaveLength(2); // outer's two steps, never inner's
    expect(toolResults(lm.requests[1])[0]![1]).toMatch(/bb/);
  });

  it("a program used as a tool: its body does not run", async () => {
    let ran = 0;
    const p = program("p", { description: "P.", input: { a: z.string(), b: z.string().optional() }, effects: "reads" }, ({ a }) => (ran++, a));
    const outer = ai("outer", { description: "Outer.", input: { q: z.string() }, tools: [p] });
    const lm = scripted([{ toolCalls: [{ name: "p", input: { a: "x", c: "y" } }] }, "done"]);
    expect(await outer("q", { lm })).toBe("done");
    expect(ran).toBe(0);
    expect(toolResults(lm.requests[1])[0]![1]).toMatch(/c: not an input of p/);
  });

  it("the JSON Schema shown is as before (no additionalProperties), and a call without extra keys runs as before", async () => {
    const note = tool("note2", { description: "N.", input: { order_id: z.string(), reason: z.string().optional() }, effects: "reads" }, () => "ok");
    expect(toolSpec(note).parameters).toEqual({
      type: "object",
      properties: { order_id: { type: "string" }, reason: { type: "string" } },
      required: ["order_id"],
    });
    const inner = ai("inner2", { description: "Inner.", input: { a: z.string() } });
    expect(toolSpec(inner).parameters).toEqual({ type: "object", properties: { a: { type: "string" } }, required: ["a"] });
  });
});
