/**
 * Hunt 82: what a metric gives, read as the score it is.
 *
 * - A metric giving a boxed number or boolean (`new Number(1)`, `Object(true)`: what a value passed through
 *   `Object(...)` or some numeric libraries give) was read as a record of scores with no entries, and its row failed
 *   "gave no score (an empty record)": a run of right answers scored 0. A boxed value is read as its value.
 * - Any other object with no scores (a Date, a Map of scores) was told as "an empty record": its refusal now says
 *   what it was given.
 * - A score of -0 (`-x * 0`, `Math.round(-0.2)`) was kept as -0 in the row's scores and, on one row, as the run's
 *   `score`: `Object.is(-0, 0)` is false and JSON writes it as 0, so a report saved and read back differed from
 *   the one in memory (`toEqual` tells them apart). `meanRange([-0])` gave a mean of -0 too. Kept as 0.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { evaluate, meanRange, program } from "../../src/index.js";

const echo = program("echo", { description: "Gives its question back.", input: { q: z.string() } }, async ({ q }) => q);
const rows = [{ q: "a" }, { q: "b" }];

describe("a metric's boxed number or boolean is read as its value", () => {
  it("new Number(1), new Boolean(true): each row scores 1, no error", async () => {
    for (const boxed of [() => new Number(1), () => new Boolean(true), () => Object(0.5)]) {
      const ev = await evaluate(echo, rows, { metric: boxed as never });
      const value = Number(boxed().valueOf());
      expect(ev.rows.map((r) => r.error)).toEqual([null, null]);
      expect(ev.rows.map((r) => r.scores)).toEqual([{ score: value }, { score: value }]);
      expect(ev.score).toBe(value);
    }
  });

  it("a boxed score inside a record of scores, and a boxed false", async () => {
    const ev = await evaluate(echo, rows, { metric: () => ({ good: new Number(1), short: new Boolean(false) }) as never });
    expect(ev.rows.map((r) => r.error)).toEqual([null, null]);
    expect(ev.rows[0]!.scores).toEqual({ good: 1, short: 0 });
  });

  it("a boxed NaN is still refused (metric-failed), not read as a number", async () => {
    const ev = await evaluate(echo, rows, { metric: () => new Number(Number.NaN) as never });
    expect(ev.rows[0]!.error).toMatch(/^metric-failed: metric score gave NaN, not a finite number/);
  });

  it("a boxed text is refused as text is, not read as scores named after its letters", async () => {
    const ev = await evaluate(echo, rows, { metric: () => new String("0.5") as never });
    expect(ev.rows[0]!.error).toBe('metric-failed: metric score gave "0.5", not a finite number');
  });

  it("a Date or a Map is refused saying what it is, not 'an empty record'", async () => {
    for (const [value, kind] of [
      [new Date(0), "Date"],
      [new Map([["a", 1]]), "Map"],
    ] as const) {
      const ev = await evaluate(echo, rows, { metric: () => value as never });
      expect(ev.rows[0]!.error).toMatch(/^metric-failed: /);
      expect(ev.rows[0]!.error).toContain(`a ${kind}`);
      expect(ev.rows[0]!.error).not.toContain("empty record");
    }
  });
});

describe("a score of -0 is kept as 0", () => {
  it("in each row's scores, the run's score and its summary, as JSON keeps them", async () => {
    const ev = await evaluate(echo, [{ q: "a" }], { metric: () => -0 });
    expect(Object.is(ev.rows[0]!.scores.score, 0)).toBe(true);
    expect(Object.is(ev.score, 0)).toBe(true);
    expect(Object.is(ev.summary[0]!.mean, 0)).toBe(true);
    // saved and read back, the report is the one in memory
    expect(JSON.parse(JSON.stringify(ev))).toEqual(ev);
  });

  it("in a record of scores", async () => {
    const ev = await evaluate(echo, rows, { metric: () => ({ a: -0, b: Math.round(-0.2) }) });
    for (const r of ev.rows) {
      expect(Object.is(r.scores.a, 0)).toBe(true);
      expect(Object.is(r.scores.b, 0)).toBe(true);
    }
  });

  it("meanRange of one -0 has a mean of 0", () => {
    expect(Object.is(meanRange([-0]).mean, 0)).toBe(true);
  });
});
