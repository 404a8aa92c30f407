/**
 * Hunt 82: `compare` of a saved evaluation (JSON written to disk as a baseline, read back) with a fresh one of the
 * same rows. It pairs each row with itself and refuses rows that are not the same data; a row holding what JSON
 * does not keep as it is (an empty cell read as undefined, a Date column, a NaN numeric cell) was "not the same"
 * as its own saved copy, so the baseline could never be compared: `input-invalid: compare pairs each row with
 * itself: row 1 is not the same in both evaluations`. A row is the same as its copy as JSON keeps it; rows that
 * differ are still refused.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { compare, evaluate, program } from "../../src/index.js";

const echo = program("echo", { description: "Gives its question back.", input: { q: z.string() } }, async ({ q }) => q);
const saved = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

describe("compare pairs a saved evaluation with a fresh one of the same rows", () => {
  for (const [what, cells] of [
    ["an empty cell (undefined)", { note: undefined }],
    ["a Date column", { at: new Date(Date.UTC(2026, 0, 2)) }],
    ["a NaN numeric cell", { weight: Number.NaN }],
    ["a Date inside a nested column", { meta: { seen: [new Date(0)] } }],
  ] as const) {
    it(`rows holding ${what}, either way round`, async () => {
      const rows = [
        { q: "a", result: "a", ...cells },
        { q: "b", result: "c", ...cells },
      ];
      const baseline = saved(await evaluate(echo, rows));
      const fresh = await evaluate(echo, rows);
      for (const [before, after] of [
        [baseline, fresh],
        [fresh, baseline],
      ] as const) {
        const [main] = compare(before, after);
        expect(main).toMatchObject({ metric: "exact_match", before: 0.5, after: 0.5, diff: 0, same: 2, n: 2 });
      }
    });
  }

  it("still refuses rows that are not the same data", async () => {
    const one = await evaluate(echo, [{ q: "a", result: "a", at: new Date(0) }]);
    const other = await evaluate(echo, [{ q: "a", result: "a", at: new Date(1) }]);
    expect(() => compare(saved(one), other)).toThrow(
      expect.objectContaining({ code: "input-invalid", message: expect.stringContaining("row 1 is not the same") }),
    );
    const sets = await evaluate(echo, [{ q: "a", result: "a", tags: new Set(["x"]) }]);
    const otherSets = await evaluate(echo, [{ q: "a", result: "a", tags: new Set(["y"]) }]);
    // two evaluations in memory: their rows' sets differ (as JSON both are {}, which decides nothing)
    expect(() => compare(sets, otherSets)).toThrow(expect.objectContaining({ code: "input-invalid" }));
  });
});
