import { describeValue, FunctaiError } from "../errors.js";
import { isRecord } from "../runtime/values.js";
import type { Evaluation } from "./evaluate.js";
import { sameData } from "./exact-match.js";
import { meanOf, tRange } from "./mean-range.js";

/**
 * One metric, before and after, paired row by row.
 *
 * @example
 * const [main]: Comparison[] = compare(await evaluate(answer, rows), await evaluate(better, rows));
 * if (main && main.low !== null && main.low > 0) console.log(`better by ${main.diff} (${main.better} rows up, ${main.worse} down)`);
 */
export interface Comparison {
  metric: string;
  before: number | null;
  after: number | null;
  /** The mean of each row's after − before, and its 95% range (Student's t on the differences). */
  diff: number | null;
  low: number | null;
  high: number | null;
  /** Rows that scored higher after, lower after, the same. */
  better: number;
  worse: number;
  same: number;
  /** Rows paired. */
  n: number;
}

/**
 * Checks each row is a row result with a record of scores. An evaluation may
 * be saved and read back, or cut down by hand: a `null` row, or one without
 * `scores`, threw a TypeError from deep inside.
 */
function checkRowResults(ev: Evaluation, which: string): void {
  const bad = ev.rows.findIndex((r: unknown) => !isRecord(r) || !isRecord((r as { scores?: unknown }).scores));
  if (bad >= 0) throw new FunctaiError("input-invalid", `compare: row ${bad + 1} of ${which} is not a row of evaluate's result ({ row, scores, … })`);
}

/**
 * Checks the scores to be paired are finite numbers (evaluate gives no
 * other): `"1"` was subtracted as 1, `null` as 0, and a NaN dropped out of
 * `before` while its row was counted in `n`.
 */
function checkScores(ev: Evaluation, metrics: readonly string[], which: string): void {
  ev.rows.forEach((r, i) => {
    for (const metric of metrics) {
      if (!Object.hasOwn(r.scores, metric)) continue;
      const score: unknown = r.scores[metric];
      if (typeof score !== "number" || !Number.isFinite(score))
        throw new FunctaiError(
          "input-invalid",
          `compare: row ${i + 1} of ${which} scores ${metric} ${describeValue(score, 40)}, not a finite number`,
        );
    }
  });
}

/** A value as JSON keeps it (what a saved evaluation holds), or `undefined` when JSON cannot (a BigInt, a cycle). */
function asSaved(value: unknown): unknown {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Whether row `i` is the same data in both, or one is the other as JSON keeps it: an evaluation saved as JSON (a
 * baseline) and read back holds its rows so (an empty cell's undefined left out, a Date as its ISO text, a NaN as
 * null), and was refused as "not the same" as a fresh run of the very same rows. Rows nested past the stack's depth
 * are refused (a RangeError from deep inside).
 */
function sameRow(a: unknown, b: unknown, i: number): boolean {
  if (a === b) return true;
  try {
    if (sameData(a, b)) return true;
    // each side against the other's saved form (never both saved: two sets of other items are both {} as JSON)
    const savedA = asSaved(a);
    if (savedA !== undefined && sameData(savedA, b)) return true;
    const savedB = asSaved(b);
    return savedB !== undefined && sameData(a, savedB);
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    throw new FunctaiError("input-invalid", `compare: row ${i + 1} is nested too deeply to compare`, { cause: e });
  }
}

/**
 * Compares two evaluations of the same rows, metric by metric (the metrics
 * both have), pairing each row with itself.
 *
 * @example
 * const delta = compare(await evaluate(answer, rows), await evaluate(better, rows));
 * delta[0]; // { metric: "exact_match", before: 0.4, after: 0.9, diff: 0.5, low: …, high: …, better: 5, worse: 0, same: 5, n: 10 }
 */
export function compare(before: Evaluation, after: Evaluation): Comparison[] {
  // (an evaluation without its metrics, hand-made or cut down when saved, threw a TypeError)
  if (!Array.isArray(before?.rows) || !Array.isArray(after?.rows) || !Array.isArray(before.metrics) || !Array.isArray(after.metrics))
    throw new FunctaiError("input-invalid", "compare takes two results of evaluate");
  if (before.rows.length !== after.rows.length)
    throw new FunctaiError("input-invalid", `compare pairs rows: the evaluations have ${before.rows.length} and ${after.rows.length} rows`);
  checkRowResults(before, "before");
  checkRowResults(after, "after");
  // pairing other rows would give a paired range of nothing: each row must be the same data (copies are fine)
  const other = before.rows.findIndex((r, i) => !sameRow(r.row, after.rows[i]!.row, i));
  if (other >= 0) throw new FunctaiError("input-invalid", `compare pairs each row with itself: row ${other + 1} is not the same in both evaluations`);
  const shared = before.metrics.filter((metric) => after.metrics.includes(metric));
  checkScores(before, shared, "before");
  checkScores(after, shared, "after");
  // an empty comparison read as "nothing changed" (delta[0] undefined): evaluations with other metrics cannot be paired
  if (shared.length === 0 && before.metrics.length > 0 && after.metrics.length > 0)
    throw new FunctaiError(
      "input-invalid",
      `compare pairs metrics: the evaluations share none (before: ${before.metrics.join(", ")}; after: ${after.metrics.join(", ")})`,
    );
  return shared.map((metric) => {
    const pairs: [number, number][] = [];
    before.rows.forEach((row, i) => {
      const other = after.rows[i]!.scores;
      // own scores only: a metric named like an Object member (constructor) is not inherited from every record
      if (Object.hasOwn(row.scores, metric) && Object.hasOwn(other, metric)) pairs.push([row.scores[metric]!, other[metric]!]);
    });
    const diffs = pairs.map(([a, b]) => b - a);
    const range = tRange(diffs);
    const mean = (xs: number[]): number | null => (xs.length === 0 ? null : meanOf(xs));
    return {
      metric,
      before: mean(pairs.map(([a]) => a)),
      after: mean(pairs.map(([, b]) => b)),
      diff: range.mean,
      low: range.low,
      high: range.high,
      better: diffs.filter((d) => d > 0).length,
      worse: diffs.filter((d) => d < 0).length,
      same: diffs.filter((d) => d === 0).length,
      n: pairs.length,
    };
  });
}
