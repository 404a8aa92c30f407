import { FunctaiError } from "../errors.js";
import { exactMatch } from "./exact-match.js";
import type { Row } from "./rows.js";

/**
 * A metric scores one row: `(row, prediction) => number` (a boolean counts
 * as 1 or 0), or a record of scores. `prediction` holds the call's outputs
 * (`result`, and each field of an object output).
 *
 * @example
 * const mentionsCarrier: Metric = (row, prediction) => String(prediction.result).includes(String(row.carrier));
 * const ev = await evaluate(answer, rows, { metric: mentionsCarrier });
 */
export type Metric = (row: Row, prediction: Row) => number | boolean | Record<string, number | boolean>;

/**
 * One metric, or a record of named metrics (the first is the main score).
 *
 * @example
 * const metric: MetricOption = {
 *   exact: (row, p) => exactMatch({ result: row.result }, p).exact_match, // the main score
 *   short: (_row, p) => String(p.result).length < 200,
 * };
 * const ev = await evaluate(answer, rows, { metric });
 * ev.metrics; // ["exact", "short"]
 */
export type MetricOption = Metric | Readonly<Record<string, Metric>>;

/** How a run scores its rows. */
export interface Scorer {
  /** The scores of a row whose call answered; throws `metric-failed` when a metric throws or gives no number. */
  score(row: Row, expected: Row, outputs: Row): Record<string, number>;
  /** The scores of a row that failed: 0 on every metric. */
  zeros(expected: Row): Record<string, number>;
  readonly custom: boolean;
}

/** The name a single metric's number is kept under. */
export const SCORE = "score";

function asScore(name: string, value: unknown): number {
  if (typeof value === "boolean") return value ? 1 : 0;
  if (typeof value === "number" && Number.isFinite(value)) return value;
  throw new FunctaiError("metric-failed", `metric ${name} gave ${JSON.stringify(value) ?? String(value)}, not a finite number`);
}

function run(name: string, metric: Metric, row: Row, outputs: Row, into: Record<string, number>): void {
  let value: unknown;
  try {
    value = metric(row, outputs);
  } catch (e) {
    throw new FunctaiError("metric-failed", `metric ${name} threw: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
  if (typeof value === "object" && value !== null) for (const [k, v] of Object.entries(value)) into[k] = asScore(k, v);
  else into[name] = asScore(name, value);
}

/** Checks the metric option (bad arguments are refused up front) and makes the scorer. */
export function makeScorer(metric: MetricOption | undefined): Scorer {
  if (metric === undefined) {
    return {
      custom: false,
      score: (_row, expected, outputs) => exactMatch(expected, outputs),
      zeros: (expected) => Object.fromEntries(Object.keys(exactMatch(expected, {})).map((k) => [k, 0])),
    };
  }
  const named: [string, Metric][] = typeof metric === "function" ? [[SCORE, metric]] : Object.entries(metric ?? {});
  if (named.length === 0 || named.some(([, m]) => typeof m !== "function"))
    throw new FunctaiError("input-invalid", "metric is a function (row, prediction) => number, or a record of such functions");
  return {
    custom: true,
    score: (row, _expected, outputs) => {
      const scores: Record<string, number> = {};
      for (const [name, m] of named) run(name, m, row, outputs, scores);
      return scores;
    },
    zeros: () => Object.fromEntries(named.map(([name]) => [name, 0])),
  };
}
