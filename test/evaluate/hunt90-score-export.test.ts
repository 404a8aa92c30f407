/**
 * Hunt 90: `Score`, what a metric gives (a number, a boolean, or a record of them), is named in the public types
 * (`Metric` returns it) and documented with an example, but was not exported: a user typing a metric's helper
 * (`const grade = (…): Score => …`) could not name it. The import below is checked by `npm test`'s type check (tsc
 * includes test/): without the export it fails to compile.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { evaluate, program, type Score } from "../../src/index.js";

const echo = program("echo", { description: "Repeats its word.", input: { word: z.string() }, output: z.string() }, async ({ word }) => word);

describe("the package's types", () => {
  it("export Score from functai: a metric helper typed with it is a metric", async () => {
    const grade = (expected: unknown, got: unknown): Score => ({ exact: got === expected, length: String(got).length });
    const ev = await evaluate(echo, [{ word: "hi", answer: "hi" }], { metric: (row, p) => grade(row.answer, p.result) });
    expect(ev.rows[0]!.scores).toEqual({ exact: 1, length: 2 }); // (a boolean score reads as 1 or 0)
  });
});
