/**
 * Hunt 101: the mean and range of scores that are all the same.
 *
 * Summed, ten scores of 0.1 had a mean of 0.09999999999999999 and a 95% range of 0.09999999999999998–0.1: a width
 * where the scores have no spread at all, and a mean that is none of the scores. A judge's 0.7 on every row read
 * 0.6999999999999998. Values all the same have that value as their mean and a range of no width (Student's t with
 * no spread); values all 0 or 1 keep Wilson's interval.
 */
import { describe, expect, it } from "vitest";
import { compare, evaluate, meanRange, program } from "../../src/index.js";
import { z } from "zod";

describe("scores all the same", () => {
  for (const [value, n] of [
    [0.1, 10],
    [0.7, 3],
  ] as const) {
    it(`meanRange of ${n} scores of ${value}: mean, low and high are ${value}`, () => {
      expect(meanRange(Array.from({ length: n }, () => value))).toEqual({ mean: value, low: value, high: value });
    });
  }

  it("an evaluation whose judge gives 0.1 on every row scores 0.1, and compare of two such runs has no difference", async () => {
    const echo = program("echo", { description: "Say the word back.", input: { q: z.string() } }, async ({ q }) => q);
    const rows = Array.from({ length: 10 }, (_, i) => ({ q: `row ${i}` }));
    const ev = await evaluate(echo, rows, { metric: () => 0.1 });
    expect([ev.score, ev.low, ev.high]).toEqual([0.1, 0.1, 0.1]);
    const delta = compare(ev, await evaluate(echo, rows, { metric: () => 0.1 }));
    expect(delta[0]).toMatchObject({ metric: "score", before: 0.1, after: 0.1, diff: 0 });
  });
});
