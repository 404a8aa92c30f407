/**
 * Hunt 34: scores far from 1 (a metric in bytes, a cost, a likelihood) and the statistics over them.
 *
 * A metric may give any finite number. The mean summed the values first, so two scores near 1e308 gave a mean of
 * Infinity (the sum overflowed), and the spread squared each difference, so scores near 1e200 gave an infinite range
 * and scores near 1e-200 one of no width (the squares underflowed to 0). meanRange, evaluate's summary and compare
 * now give the mean and the range of such scores as they are, within double precision.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { compare, evaluate, meanRange, program } from "../../src/index.js";

/** Relative closeness (toBeCloseTo is absolute). */
const near = (got: number | null, want: number) => {
  expect(got).not.toBeNull();
  expect(Number.isFinite(got)).toBe(true);
  expect(Math.abs(got! - want) / Math.abs(want)).toBeLessThan(1e-12);
};

describe("meanRange of scores near the ends of the doubles", () => {
  it("two scores near 1e308: their mean, not Infinity", () => {
    const r = meanRange([1.1e308, 1.3e308, 1.2e308]);
    near(r.mean, 1.2e308);
    // Student's t, 2 degrees of freedom: 4.303 × sd / √3, sd = 1e307
    near(r.low, 1.2e308 - (4.303 * 1e307) / Math.sqrt(3));
    near(r.high, 1.2e308 + (4.303 * 1e307) / Math.sqrt(3));
    expect(meanRange([1e308, 1e308])).toEqual({ mean: 1e308, low: 1e308, high: 1e308 });
    expect(meanRange([-1e308, -1e308, -1e308]).mean).toBe(-1e308);
  });

  it("scores near 1e200: a finite range (the squares overflowed)", () => {
    const r = meanRange([1e200, 3e200]);
    near(r.mean, 2e200);
    near(r.low, 2e200 - 12.706 * 1e200);
    near(r.high, 2e200 + 12.706 * 1e200);
  });

  it("scores near 1e-200: a range with width (the squares underflowed to 0)", () => {
    const r = meanRange([1e-200, 3e-200]);
    near(r.mean, 2e-200);
    near(r.low, 2e-200 - 12.706 * 1e-200);
    near(r.high, 2e-200 + 12.706 * 1e-200);
  });

  it("everyday scores give the same bits as before (the published vectors are unchanged)", () => {
    const sd = Math.sqrt(((0.2 - 0.575) ** 2 + (0.9 - 0.575) ** 2 + (0.5 - 0.575) ** 2 + (0.7 - 0.575) ** 2) / 3);
    const r = meanRange([0.2, 0.9, 0.5, 0.7]);
    expect(r.mean).toBe((0.2 + 0.9 + 0.5 + 0.7) / 4);
    expect(r.high).toBe(r.mean! + (3.182 * sd) / 2);
  });
});

describe("evaluate and compare with huge scores", () => {
  const size = program("size", { description: "A size.", input: { n: z.number() }, output: z.number() }, ({ n }) => n);
  const rows = [{ n: 1.5e308 }, { n: 1.7e308 }, { n: 1.6e308 }];

  it("the summary's mean and compare's before, after and diff are finite", async () => {
    const before = await evaluate(size, rows, { metric: (_row, p) => p.result as number });
    near(before.score, 1.6e308);
    const after = await evaluate(size, rows, { metric: (row) => (row.n as number) * 0.5 });
    const [delta] = compare(before, after);
    near(delta!.before, 1.6e308);
    near(delta!.after, 0.8e308);
    near(delta!.diff, -0.8e308);
    expect(delta).toMatchObject({ worse: 3, better: 0, same: 0, n: 3 });
  });
});
