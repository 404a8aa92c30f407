/**
 * Hunt 42: `compare` takes evaluations a host may have saved and read back, or cut down. Checked only as lists,
 * such rows threw from deep inside: a row that is `null` or has no `scores` a TypeError, rows nested past the
 * stack's depth a RangeError. A score that is no number was paired anyway: `"1"` was subtracted as 1, `null` as 0,
 * and a `NaN` left `before` null over a row counted in `n`. Each is now refused with `input-invalid`, naming the row.
 */
import { describe, expect, it } from "vitest";
import { compare, FunctaiError, type Evaluation, type RowResult } from "../../src/index.js";

const ev = (rows: unknown[]): Evaluation =>
  ({ run: "ev-x", score: null, low: null, high: null, rows: rows as RowResult[], summary: [], metrics: ["m"] }) as Evaluation;
const row = (scores: unknown, data: unknown = { q: "a" }): unknown => ({ row: data, outputs: null, scores, error: null, turn: null });

const refusal = (f: () => unknown): unknown => {
  try {
    f();
  } catch (e) {
    return e;
  }
  return null;
};

describe("compare refuses rows it cannot pair, naming the row", () => {
  it.each([
    ["null", [row({ m: 1 }), null]],
    ["without scores", [row({ m: 1 }), { row: { q: "a" } }]],
    ["with scores that are a list", [row({ m: 1 }), row([1])]],
  ])("a row that is %s", (_, after) => {
    const e = refusal(() => compare(ev([row({ m: 1 }), row({ m: 1 })]), ev(after as unknown[])));
    expect(e).toBeInstanceOf(FunctaiError);
    expect(e).toMatchObject({ code: "input-invalid", message: expect.stringContaining("row 2") });
  });

  it.each([
    ["text", "1"],
    ["null", null],
    ["NaN", Number.NaN],
    ["Infinity", Number.POSITIVE_INFINITY],
  ])("a score that is %s, not a finite number", (_, score) => {
    const e = refusal(() => compare(ev([row({ m: 0 }), row({ m: 1 })]), ev([row({ m: 1 }), row({ m: score })])));
    expect(e).toBeInstanceOf(FunctaiError);
    expect(e).toMatchObject({ code: "input-invalid", message: expect.stringMatching(/row 2.*\bm\b/) });
  });

  it("rows nested past the stack's depth", () => {
    const deep = (): unknown => {
      let o: unknown = { end: 1 };
      for (let i = 0; i < 200_000; i++) o = { next: o };
      return o;
    };
    const e = refusal(() => compare(ev([row({ m: 1 }, deep())]), ev([row({ m: 1 }, deep())])));
    expect(e).toBeInstanceOf(FunctaiError);
    expect(e).toMatchObject({ code: "input-invalid", message: expect.stringContaining("row 1") });
  });

  it("well-formed rows still pair (a score may be missing from a row: that row is not paired on it)", () => {
    const [m] = compare(ev([row({ m: 0 }), row({ m: 1 }), row({})]), ev([row({ m: 1 }), row({ m: 1 }), row({ m: 1 })]));
    expect(m).toMatchObject({ metric: "m", before: 0.5, after: 1, diff: 0.5, better: 1, same: 1, worse: 0, n: 2 });
  });
});
