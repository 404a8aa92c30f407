/**
 * Hunt 46: a custom metric whose record of scores names different scores on different rows (`{ a }` for one row,
 * `{ b }` for another: a judge's parsed reply, a typo in one branch) had each mean taken over only the rows that named
 * it: the main score left the other rows out without a word (`n` smaller than the rows, nothing failed). A row that
 * lacks a score another row has now fails with `metric-failed` naming the score (0 on every metric, as any row whose
 * metric failed), so every metric's mean is over every row.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { evaluate, program } from "../../src/index.js";

const echo = program("echo", { description: "Echo.", input: { q: z.string() }, output: z.string() }, async ({ q }) => q);
const rows = [
  { q: "a", result: "a" },
  { q: "b", result: "b" },
  { q: "c", result: "c" },
];

describe("a metric whose scores are named differently on different rows", () => {
  it("a row without the main score fails metric-failed: the main mean is over every row", async () => {
    const ev = await evaluate(echo, rows, { metric: (row) => (row.q === "b" ? { b: 1 } : { a: 1 }) });
    expect(ev.metrics).toEqual(["a", "b"]);
    expect(ev.rows.map((r) => r.error)).toEqual([
      expect.stringMatching(/^metric-failed: metric score gave no score named b/),
      expect.stringMatching(/^metric-failed: metric score gave no score named a/),
      expect.stringMatching(/^metric-failed: metric score gave no score named b/),
    ]);
    for (const s of ev.summary) expect(s).toMatchObject({ n: 3, failed: 3, mean: 0 });
    expect(ev.score).toBe(0);
  });

  it("an extra score on one row fails the rows that lack it; the rows that have every name keep their scores", async () => {
    const ev = await evaluate(echo, rows, { metric: { judge: (row) => (row.q === "c" ? { tone: 0.5, extra: 1 } : { tone: 0.5 }) } });
    expect(ev.metrics).toEqual(["tone", "extra"]);
    expect(ev.rows.map((r) => r.error)).toEqual([
      expect.stringMatching(/^metric-failed: metric judge gave no score named extra, which row 3 has/),
      expect.stringMatching(/^metric-failed: metric judge gave no score named extra, which row 3 has/),
      null,
    ]);
    expect(ev.rows.map((r) => r.scores)).toEqual([
      { tone: 0, extra: 0 },
      { tone: 0, extra: 0 },
      { tone: 0.5, extra: 1 },
    ]);
    expect(ev.summary[0]).toMatchObject({ metric: "tone", n: 3, failed: 2 });
    expect(ev.score).toBeCloseTo(0.5 / 3, 12);
  });

  it("the same names on every row score as before (a failed call's row is 0 on each)", async () => {
    const ev = await evaluate(echo, rows, { metric: (row) => ({ a: row.q === "a" ? 1 : 0, b: 1 }) });
    expect(ev.rows.map((r) => r.error)).toEqual([null, null, null]);
    expect(ev.summary.map((s) => [s.metric, s.mean, s.n])).toEqual([
      ["a", 1 / 3, 3],
      ["b", 1, 3],
    ]);
  });

  // DESIGN gives `<name>_match` "with several outputs compared": read over the run, a row naming one output of an
  // object output (here `x` alone) scores it too, so the run's `x_match` is over every row that compared x (it was
  // the mean over the rows that named x and something else: n 1 of the 2).
  it("the default metric: each output's <name>_match is over every row that compared it", async () => {
    const two = program(
      "two",
      { description: "Two fields.", input: { q: z.string() }, output: z.object({ x: z.string(), y: z.string() }) },
      async ({ q }) => ({ x: q, y: q }),
    );
    const ev = await evaluate(two, [
      { q: "a", x: "a", y: "a" },
      { q: "b", x: "b" },
    ]);
    expect(ev.rows.map((r) => r.error)).toEqual([null, null]);
    expect(ev.summary.map((s) => [s.metric, s.n])).toEqual([
      ["exact_match", 2],
      ["x_match", 2],
      ["y_match", 1],
    ]);
  });
});
