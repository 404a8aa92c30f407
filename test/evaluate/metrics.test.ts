/** What a metric may give: a number, a boolean, a record of them, or a promise of one; anything else fails its row. */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { ai, bootstrapFewShot, evaluate, exactMatch, meanRange, type Metric } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

const echo = ai("echo", { description: "Say the word.", input: { question: z.string() } });
const rows = [
  { question: "one", result: "a" },
  { question: "two", result: "a" },
  { question: "three", result: "b" },
];
/** Replies in order; `null` is a model that fails, so that row's call fails. */
const model = (replies: (string | null)[]) =>
  scripted(
    replies.map((r) =>
      r === null
        ? () => {
            throw new Error("model down");
          }
        : `<result>\n${r}\n</result>`,
    ),
  );

describe("metric values", () => {
  it("an async metric (a judge) is awaited: its scores count", async () => {
    const judge: Metric = async (row, p) => {
      await new Promise((r) => setTimeout(r, 1));
      return p.result === row.result ? 1 : 0;
    };
    const ev = await evaluate(echo.using({ lm: model(["a", "b", "b"]) }), rows, { metric: judge, concurrency: 1 });
    expect(ev.metrics).toEqual(["score"]);
    expect(ev.rows.map((r) => [r.scores, r.error])).toEqual([
      [{ score: 1 }, null],
      [{ score: 0 }, null],
      [{ score: 1 }, null],
    ]);
    expect(ev.score).toBeCloseTo(2 / 3, 12);
    // a judge that rejects fails its row, as one that throws does
    const failing = await evaluate(echo.using({ lm: model(["a"]) }), rows.slice(0, 1), { metric: { judge: async () => Promise.reject(new Error("judge down")) } });
    expect(failing.rows[0]!.error).toBe("metric-failed: metric judge threw: judge down");
    expect(failing.summary[0]).toMatchObject({ metric: "judge", mean: 0, n: 1, failed: 1 });
  });

  it("a metric giving a record (exactMatch's own) names the run's metrics, also when the first row failed", async () => {
    const metric: Metric = (row, p) => exactMatch({ result: row.result }, p);
    const ev = await evaluate(echo.using({ lm: model([null, "a", "b"]) }), rows, { metric, concurrency: 1 });
    expect(ev.rows[0]!.error).toMatch(/model down/);
    expect(ev.metrics).toEqual(["exact_match"]);
    expect(ev.rows.map((r) => r.scores)).toEqual([{ exact_match: 0 }, { exact_match: 1 }, { exact_match: 1 }]);
    expect(ev.summary).toEqual([{ metric: "exact_match", ...meanRange([0, 1, 1]), n: 3, failed: 1 }]);
    expect(ev.score).toBeCloseTo(2 / 3, 12);
    // every row failed: nothing says what the record holds, so the metric's own name stands for it
    const none = await evaluate(echo.using({ lm: model([null]) }), rows.slice(0, 1), { metric: { exact: metric } });
    expect(none.metrics).toEqual(["exact"]);
    expect(none.rows[0]!.scores).toEqual({ exact: 0 });
  });

  it("a list, an empty record or a non-number fails its row (metric-failed), never a silent or made-up score", async () => {
    for (const [gives, said] of [
      [[1, 0], /gave a list/],
      [{}, /gave no score/],
      [{ a: "high" }, /metric a gave "high"/],
      [Number.NaN, /gave NaN/],
    ] as const) {
      const ev = await evaluate(echo.using({ lm: model(["a"]) }), rows.slice(0, 1), { metric: { m: () => gives as never } });
      expect(ev.rows[0]!.error, JSON.stringify(gives)).toMatch(/^metric-failed: /);
      expect(ev.rows[0]!.error).toMatch(said);
      expect(ev.metrics).toEqual(["m"]);
      expect(ev.rows[0]!.scores).toEqual({ m: 0 });
    }
  });

  it("bootstrapFewShot awaits an async metric to decide whether a run passes", async () => {
    const better = await bootstrapFewShot(echo, rows, {
      teacher: model(["a", "x", "b"]),
      metric: async (row, p) => p.result === row.result,
      maxBootstrapped: 3,
      maxLabeled: 0,
      concurrency: 1,
    });
    expect(better.demos.map((d) => d.inputs.question)).toEqual(["one", "three"]);
  });
});
