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
 * The fix belongs where inputs are read (src/schema-read.ts readWith, or the
 * engine's callers of it: read a copy of the model's or caller's input whose
 * objects have no prototype, so only own keys are seen), outside
 * src/approval and src/tools. (Refusing these names in tools/tool.ts
 * checkInputShape would change the documented name rule.) Left as it.fails.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, resetConfiguration, tool } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { toolResults } from "../engine/fixtures.js";

beforeEach(() => resetConfiguration());

describe("an optional input named like a property every object has", () => {
  it.fails("a tool's optional valueOf that the model leaves out: the tool runs without it (it was refused as 'received function')", async () => {
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

  it.fails("an AI function's optional toString left out by its caller: the call runs (it was input-invalid)", async () => {
    const answer = ai("answer", { description: "Answer.", input: { question: z.string(), toString: z.string().optional() } });
    expect(await answer({ question: "Where is A-1?" } as never, { lm: scripted(["Here."]) })).toBe("Here.");
  });
});
