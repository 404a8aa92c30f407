/**
 * Hunt 34: an output field named `exact`. With several outputs compared, each gets `<name>_match` and `exact_match`
 * is 1 only when all match; the field `exact`'s own score is named `exact_match` too, and it was written over the
 * whole row's: `{ exact: true, result: "a" }` against `{ exact: true, result: "b" }` scored exact_match 1, so the
 * main score of every row (and the run's mean) said right where an answer was wrong.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { evaluate, exactMatch, program } from "../../src/index.js";

describe("an output field named exact", () => {
  it("exact_match is still 1 only when every output matches", () => {
    expect(exactMatch({ exact: true, result: "a" }, { exact: true, result: "b" }).exact_match).toBe(0);
    expect(exactMatch({ exact: false, result: "a" }, { exact: true, result: "a" }).exact_match).toBe(0);
    expect(exactMatch({ exact: true, result: "a" }, { exact: true, result: "A" })).toEqual({ exact_match: 1, result_match: 1 });
    expect(exactMatch({ exact: true, result: "a" }, { exact: true, result: "b" })).toEqual({ exact_match: 0, result_match: 0 });
  });

  it("evaluate: a wrong answer whose `exact` field is right scores 0", async () => {
    const judge = program(
      "judge",
      { description: "Is it exact?", input: { q: z.string() }, output: z.object({ exact: z.boolean(), reason: z.string() }) },
      () => ({ exact: true, reason: "looks fine" }),
    );
    const ev = await evaluate(judge, [{ q: "x", exact: true, reason: "off by one" }]);
    expect(ev.rows[0]!.scores.exact_match).toBe(0);
    expect(ev.score).toBe(0);
  });
});
