/**
 * Hunt: compare() and meanRange() at the edges DESIGN words ("no values, all null; one value, a mean and no
 * range; values all 0 or 1, Wilson's interval … bottom exactly 0 when none is right and top exactly 1 when all
 * are"), where test/evaluate and test/conformance do not already go: one paired row, rows that all moved the
 * same, failed rows paired as 0, a single 0 or 1, and Wilson's bounds exactly 0/1 with two values.
 */
import { describe, expect, it } from "vitest";
import { compare, evaluate, meanRange } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { rows, status } from "./desk.js";

const answers = (replies: (string | null)[]) =>
  scripted(replies.map((r) => (r === null ? () => {
    throw new Error("model down");
  } : `<result>\n${r}\n</result>`)));

describe("meanRange edges", () => {
  it("one value, even 0 or 1: its mean and no range (not Wilson's)", () => {
    expect(meanRange([0])).toEqual({ mean: 0, low: null, high: null });
    expect(meanRange([1])).toEqual({ mean: 1, low: null, high: null });
    expect(meanRange([0.25])).toEqual({ mean: 0.25, low: null, high: null });
    expect(meanRange([])).toEqual({ mean: null, low: null, high: null });
  });

  it("two values all wrong / all right: the bound is exactly 0 / exactly 1, the other inside (0, 1)", () => {
    const none = meanRange([0, 0]);
    expect(none.low).toBe(0);
    expect(Object.is(none.low, -0)).toBe(false);
    expect(none.high! > 0 && none.high! < 1).toBe(true);
    const all = meanRange([1, 1]);
    expect(all.high).toBe(1);
    expect(all.low! > 0 && all.low! < 1).toBe(true);
    // -0 is a 0: still right-or-wrong, Wilson's
    expect(meanRange([-0, 1])).toEqual(meanRange([0, 1]));
  });
});

describe("compare edges", () => {
  it("one row: a diff and no range; before/after are that row's scores", async () => {
    const q = rows.slice(0, 1);
    const before = await evaluate(status.using({ lm: answers(["x"]) }), q);
    const after = await evaluate(status.using({ lm: answers([rows[0]!.result]) }), q);
    expect(compare(before, after)).toEqual([{ metric: "exact_match", before: 0, after: 1, diff: 1, low: null, high: null, better: 1, worse: 0, same: 0, n: 1 }]);
  });

  it("every row moved by the same amount: the range is that amount exactly", async () => {
    const q = rows.slice(0, 3);
    const before = await evaluate(status.using({ lm: answers(["x", "x", "x"]) }), q, { concurrency: 1 });
    const after = await evaluate(status.using({ lm: answers(q.map((r) => r.result)) }), q, { concurrency: 1 });
    expect(compare(before, after)[0]).toMatchObject({ diff: 1, low: 1, high: 1, better: 3, n: 3 });
    expect(compare(after, after)[0]).toMatchObject({ diff: 0, low: 0, high: 0, same: 3 });
  });

  it("a row whose call failed pairs as 0 on every metric (its error kept), not dropped", async () => {
    const q = rows.slice(0, 3);
    const before = await evaluate(status.using({ lm: answers([q[0]!.result, null, q[2]!.result]) }), q, { concurrency: 1 });
    expect(before.rows[1]!.error).toMatch(/model down/);
    const after = await evaluate(status.using({ lm: answers(q.map((r) => r.result)) }), q, { concurrency: 1 });
    const [c] = compare(before, after);
    expect(c).toMatchObject({ before: 2 / 3, after: 1, better: 1, worse: 0, same: 2, n: 3 });
  });
});
