/**
 * Input names that every JavaScript object already has (`valueOf`,
 * `toString`, `constructor`, `hasOwnProperty`, …) pass the name check
 * (README "A first tool": "Input names are 1 to 64 letters, digits, `_`, `.`
 * or `-` …, never `__proto__`"), yet zod reads an input's keys with
 * `input[key]` and `key in input`, which find Object.prototype's: an input
 * left out is read as Object.prototype's function. So an optional
 * `valueOf` the model leaves out makes every call "invalid input: expected
 * string, received function" (the tool never runs), and an AI function's
 * caller gets input-invalid for an input the function says is optional.
 *
 * Fixed where inputs are read (src/schema-read.ts readWith): an object
 * schema's key that the value inherits but does not have is read as left
 * out. (Refusing these names in tools/tool.ts checkInputShape would change
 * the documented name rule.)
 */
import { beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, resetConfiguration, tool } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { toolResults } from "../engine/fixtures.js";

beforeEach(() => resetConfiguration());

describe("an optional input named like a property every object has", () => {
  it("a tool's optional valueOf that the model leaves out: the tool runs without it (it was refused as 'received function')", async () => {
    const seen: unknown[] = [];
    const lookup = tool(
      "lookup",
      { description: "Look an order up.", input: { order_id: z.string(), valueOf: z.string().optional() }, effects: "reads" },
      (input) => (seen.push(input), "found"),
    );
    const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [lookup] });
    const lm = scripted([{ toolCalls: [{ name: "lookup", input: { order_id: "A-1" } }] }, "done"]);
    expect(await desk("go", { lm })).toBe("done");
    expect(toolResults(lm.requests[1])).toEqual([["lookup", "found"]]);
    expect(seen).toEqual([{ order_id: "A-1" }]);
  });

  it("an AI function's optional toString left out by its caller: the call runs (it was input-invalid)", async () => {
    const answer = ai("answer", { description: "Answer.", input: { question: z.string(), toString: z.string().optional() } });
    expect(await answer({ question: "Where is A-1?" } as never, { lm: scripted(["Here."]) })).toBe("Here.");
  });

  it("a required one left out is refused as missing (received undefined, never function); given, defaulted or passed through, it is read as given", async () => {
    const seen: unknown[] = [];
    const lookup = tool(
      "lookup",
      {
        description: "Look an order up.",
        input: { order_id: z.string(), valueOf: z.string(), toString: z.string().default("plain"), constructor: z.any().optional() },
        effects: "reads",
      },
      (input) => (seen.push(input), "found"),
    );
    const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [lookup] });
    const lm = scripted([
      { toolCalls: [{ name: "lookup", input: { order_id: "A-1" } }] },
      { toolCalls: [{ name: "lookup", input: { order_id: "A-2", valueOf: "v", constructor: { k: 1 } } }] },
      "done",
    ]);
    expect(await desk("go", { lm })).toBe("done");
    const [refused] = toolResults(lm.requests[1]);
    expect(refused![1]).toMatch(/invalid input for lookup: valueOf: Invalid input: expected string, received undefined/);
    expect(toolResults(lm.requests[2])[1]).toEqual(["lookup", "found"]);
    expect(seen).toEqual([{ order_id: "A-2", valueOf: "v", toString: "plain", constructor: { k: 1 } }]);
    expect(Object.keys(seen[0] as object)).toEqual(["order_id", "valueOf", "toString", "constructor"]);
  });
});
