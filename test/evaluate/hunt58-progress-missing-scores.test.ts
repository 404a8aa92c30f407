/**
 * Hunt 58: `onProgress`'s `failed` missed rows failed for a missing score
 * name (a custom metric giving `{ a }` on one row and `{ a, b }` on
 * another): those rows were failed only when the run ended, after the last
 * progress report, so a host's "3/3 (0 failed)" disagreed with the
 * Evaluation it got. Each report now counts a finished row that lacks a
 * score another finished row has as failed (it can only go up: a name seen
 * is never unseen), so the last report agrees with the Evaluation's rows.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { type EvaluateOptions, evaluate, program, type Progress } from "../../src/index.js";

const echo = program("echo", { description: "Echo.", input: { q: z.string() }, output: z.string() }, async ({ q }) => q);
const rows = [
  { q: "a", result: "a" },
  { q: "b", result: "b" },
  { q: "c", result: "c" },
];

async function run(metric: NonNullable<EvaluateOptions["metric"]>) {
  const reports: Progress[] = [];
  const ev = await evaluate(echo, rows, { metric, concurrency: 1, onProgress: (p) => void reports.push({ ...p }) });
  return { ev, reports };
}

describe("onProgress counts rows failed for a missing score name", () => {
  it("an extra score on the last row: the rows before it are failed in the last report, as in the Evaluation", async () => {
    const { ev, reports } = await run({ judge: (row) => (row.q === "c" ? { tone: 0.5, extra: 1 } : { tone: 0.5 }) });
    const failedRows = ev.rows.filter((r) => r.error !== null).length;
    expect(failedRows).toBe(2);
    expect(reports).toEqual([
      { done: 1, total: 3, failed: 0 },
      { done: 2, total: 3, failed: 0 },
      { done: 3, total: 3, failed: 2 },
    ]);
    expect(reports.at(-1)!.failed).toBe(failedRows);
  });

  it("a row lacking a name an earlier row has is failed in its own report", async () => {
    const { ev, reports } = await run((row) => (row.q === "b" ? { b: 1 } : { a: 1 }));
    expect(ev.rows.every((r) => r.error !== null)).toBe(true);
    expect(reports.map((p) => p.failed)).toEqual([0, 2, 3]);
  });

  it("a metric that fails a row and names the same scores elsewhere: failed counts each row once", async () => {
    const { ev, reports } = await run((row) => {
      if (row.q === "b") throw new Error("judge down");
      return { a: 1 };
    });
    expect(ev.rows.map((r) => r.error === null)).toEqual([true, false, true]);
    expect(reports.map((p) => p.failed)).toEqual([0, 1, 1]);
  });
});
