/**
 * Hunt 46: `exactMatch` called directly with an expected output that is `undefined` (a row's empty cell, or a
 * metric written as the README shows, `exactMatch({ result: row.result }, p)`, on a row without that column) compared
 * it with the prediction's: an answer missing too matched, and scored 1. `evaluate` itself reads an `undefined` column
 * as naming no answer (it is not compared); `exactMatch` now does the same, and with nothing left to compare refuses
 * (`input-invalid`), as it refuses an empty record.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { evaluate, exactMatch, program } from "../../src/index.js";

describe("exactMatch with an expected output that is undefined", () => {
  it("names no answer: with nothing else to compare it is refused, not a match", () => {
    expect(() => exactMatch({ result: undefined }, {})).toThrow(expect.objectContaining({ code: "input-invalid" }));
    expect(() => exactMatch({ result: undefined }, { result: undefined })).toThrow(/no expected output to compare/);
  });

  it("the other outputs are compared as when it is left out", () => {
    expect(exactMatch({ result: undefined, x: "a" }, { x: "a" })).toEqual(exactMatch({ x: "a" }, { x: "a" }));
    expect(exactMatch({ result: undefined, x: "a", y: "b" }, { x: "a", y: "c" })).toEqual({ exact_match: 0, x_match: 1, y_match: 0 });
  });

  it("a metric comparing a column a row lacks fails that row (metric-failed), never scores it 1", async () => {
    const maybe = program("maybe", { description: "Maybe.", input: { q: z.string() }, output: z.string().optional() }, async () => undefined);
    const ev = await evaluate(maybe, [{ q: "a" }], { metric: (row, p) => exactMatch({ result: row.result }, p).exact_match });
    expect(ev.rows[0]!.error).toMatch(/^metric-failed: metric score threw: .*no expected output to compare/);
    expect(ev.score).toBe(0);
  });
});
