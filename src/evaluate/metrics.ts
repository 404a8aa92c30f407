import { describeError, describeValue, FunctaiError } from "../errors.js";
import { copyOf, isRecord } from "../runtime/values.js";
import { exactMatch } from "./exact-match.js";
import type { Row } from "./rows.js";
import { stopsTurn } from "./run-row.js";

/**
 * What a metric gives for one row: a number, a boolean (1 or 0), or a record of named scores.
 *
 * @example
 * const scores: Score = { exact_match: 1, short: true };
 */
export type Score = number | boolean | Readonly<Record<string, number | boolean>>;

/**
 * A metric scores one row: `(row, prediction) => number` (a boolean counts
 * as 1 or 0), or a record of scores, or a promise of either (a judge that
 * calls a model is awaited). `prediction` holds the call's outputs
 * (`result`, and each field of an object output). Each metric is given
 * copies of its own: what it changes is not what the run reports.
 *
 * @example
 * const mentionsCarrier: Metric = (row, prediction) => String(prediction.result).includes(String(row.carrier));
 * const ev = await evaluate(answer, rows, { metric: mentionsCarrier });
 */
export type Metric = (row: Row, prediction: Row) => Score | Promise<Score>;

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
  /**
   * The scores of a row whose call answered; rejects `metric-failed` when a metric throws or gives no score,
   * and `turn-aborted` when `signal` has aborted before a metric starts (none starts after the stop).
   */
  score(row: Row, expected: Row, outputs: Row, signal?: AbortSignal): Promise<Record<string, number>>;
  /**
   * The scores of a row that failed: 0 on every metric known before any
   * row is scored. A custom metric may give a record whose names only a
   * scored row shows, so its failed rows get their zeros when the run is
   * summed up (`summarize`), from the names the scored rows have.
   */
  zeros(expected: Row): Record<string, number>;
  /** The names a failed row is scored under when no row scored (a custom metric's own names). */
  readonly fallback: readonly string[];
  /** Each score name a custom metric gave on some row, and the metric that gave it (the first to). */
  readonly givers: ReadonlyMap<string, string>;
  readonly custom: boolean;
}

/** The name a single metric's number is kept under. */
export const SCORE = "score";

/**
 * Keeps a score under its own name: assigned, a metric named `__proto__`
 * was dropped unseen, and one named `constructor` read as present in every
 * record (inherited) when a failed row was scored 0.
 */
export function setScore(scores: Record<string, number>, name: string, value: number): void {
  Object.defineProperty(scores, name, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * A boxed number, boolean or text (`new Number(1)`, `Object(true)`) as its value, told by its brand (not `instanceof`, which
 * a value from another realm fails); anything else as it is. Read as a record, a boxed 1 had no scores and its row
 * failed "an empty record": a run of right answers scored 0.
 */
function unboxed(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  const brands: ((boxed: object) => number | boolean | string)[] = [
    (boxed) => Number.prototype.valueOf.call(boxed),
    (boxed) => Boolean.prototype.valueOf.call(boxed),
    // (a boxed text is refused as text is: read as a record, its letters were scores named 0, 1, …)
    (boxed) => String.prototype.valueOf.call(boxed),
  ];
  for (const read of brands) {
    try {
      return read(value);
    } catch {
      // not of this brand
    }
  }
  return value;
}

/**
 * What an object with no scores of its own is, for its refusal: "an empty record" (a literal, or one without a
 * prototype), else what it is (`a Date`, `a Map`, `an object`), not a number or a record of numbers.
 */
function noScoresIn(value: object): string {
  try {
    const proto: unknown = Object.getPrototypeOf(value);
    if (proto === Object.prototype || proto === null) return "an empty record";
    const name: unknown = (proto as { constructor?: { name?: unknown } }).constructor?.name;
    if (typeof name === "string" && name !== "" && name !== "Object") return `a ${name}, not a number or a record of numbers`;
  } catch {
    // a proxy whose traps throw: told as an object
  }
  return "an object, not a number or a record of numbers";
}

function asScore(name: string, given: unknown): number {
  const value = unboxed(given);
  if (typeof value === "boolean") return value ? 1 : 0;
  // -0 is kept as 0: Object.is(-0, 0) is false and JSON writes it as 0, so a report saved and read back differed
  if (typeof value === "number" && Number.isFinite(value)) return value === 0 ? 0 : value;
  throw new FunctaiError("metric-failed", `metric ${name} gave ${describeValue(value)}, not a finite number`);
}

/**
 * Keeps a score metric `by` gave, refusing a name an earlier metric of the
 * record gave (`metric-failed`): assigned again, the later score replaced the
 * earlier one unseen, and with it the main score ("the first is the main
 * score"); two wrappers of `exactMatch` both give `exact_match`.
 */
function keep(into: Record<string, number>, givenBy: Map<string, string>, by: string, name: string, value: number): void {
  const earlier = givenBy.get(name);
  if (earlier !== undefined)
    throw new FunctaiError(
      "metric-failed",
      `metric ${by} gave a score named ${name}, as metric ${earlier} did: give each metric's scores names of their own`,
    );
  givenBy.set(name, by);
  setScore(into, name, value);
}

/**
 * What a metric is given: a copy of its own (see copyOf). Given the row and the outputs themselves, a metric that
 * changed them (`prediction.result = …`, `delete row.answer`) changed the outputs the run reports, the user's rows,
 * what the next metric saw and the example an optimizer made of the run. A row that cannot be read whole is refused
 * before the run (checkRowsCopyable); a value that fails as it is copied now (a getter that throws only later, an
 * answer a program gave with one) fails the row: given as it was, the metric could change the user's own data.
 */
function metricCopy(name: string, what: string, value: Row): Row {
  try {
    return copyOf(value);
  } catch (e) {
    throw new FunctaiError("metric-failed", `metric ${name} could not be given a copy of ${what}: ${describeError(e)}`, { cause: e });
  }
}

async function run(name: string, metric: Metric, row: Row, outputs: Row, into: Record<string, number>, givenBy: Map<string, string>): Promise<void> {
  let given: unknown;
  const copies = [metricCopy(name, "the row", row), metricCopy(name, "the prediction", outputs)] as const;
  try {
    given = await metric(...copies);
  } catch (e) {
    // a judge the metric calls in a turn that waits for a person or stops: the run stops with it (see stopsTurn)
    if (stopsTurn(e)) throw e;
    throw new FunctaiError("metric-failed", `metric ${name} threw: ${describeError(e)}`, { cause: e });
  }
  const value = unboxed(given);
  if (Array.isArray(value))
    throw new FunctaiError("metric-failed", `metric ${name} gave a list (${describeValue(value)}), not a number or a record of numbers`);
  if (typeof value !== "object" || value === null) {
    keep(into, givenBy, name, name, asScore(name, value));
    return;
  }
  let entries: [string, unknown][];
  try {
    entries = Object.entries(value);
  } catch (e) {
    // a getter or a proxy that throws as the record is read: the metric failed (it failed its row as a bare error)
    throw new FunctaiError("metric-failed", `metric ${name} gave a record that could not be read: ${describeError(e)}`, { cause: e });
  }
  // an empty record would leave the row with no score at all: the run's mean would quietly skip it
  // (an object that keeps no scores of its own, a Date or a Map of scores, is named as what it is)
  if (entries.length === 0) throw new FunctaiError("metric-failed", `metric ${name} gave no score (${noScoresIn(value)})`);
  for (const [k, v] of entries) keep(into, givenBy, name, k, asScore(k, v));
}

/**
 * The default metric's scores of a row, with `<name>_match` for each output it compared when the run compares
 * several (`perOutput`): a row comparing one output of several (the others left out of its row) scores it too, so
 * the run's `<name>_match` is over every row that compared that output, not only those that compared others too.
 */
function matchScores(expected: Row, outputs: Row, perOutput: boolean): Record<string, number> {
  const scores: Record<string, number> = exactMatch(expected, outputs);
  if (perOutput)
    for (const [name, value] of Object.entries(expected))
      if (value !== undefined && name !== "exact" && !Object.hasOwn(scores, `${name}_match`)) setScore(scores, `${name}_match`, scores.exact_match!);
  return scores;
}

/**
 * Checks the metric option (bad arguments are refused up front) and makes the scorer. `perOutput`: the run
 * compares several outputs, each row's scored by name (see matchScores).
 */
export function makeScorer(metric: MetricOption | undefined, perOutput = false): Scorer {
  if (metric === undefined) {
    return {
      custom: false,
      score: async (_row, expected, outputs) => matchScores(expected, outputs, perOutput),
      zeros: (expected) => Object.fromEntries(Object.keys(matchScores(expected, {}, perOutput)).map((k) => [k, 0])),
      fallback: [],
      givers: new Map(),
    };
  }
  // (a list of metrics is no record: taken as one, its scores were named "0", "1", …)
  const named: [string, Metric][] = typeof metric === "function" ? [[SCORE, metric]] : isRecord(metric) ? Object.entries(metric) : [];
  if (named.length === 0 || named.some(([, m]) => typeof m !== "function"))
    throw new FunctaiError(
      "input-invalid",
      `metric is a function (row, prediction) => number, or a record of such functions named by their scores ({ exact, short }), not ${describeValue(metric, 60)}`,
    );
  const givers = new Map<string, string>();
  return {
    custom: true,
    score: async (row, _expected, outputs, signal) => {
      const scores: Record<string, number> = {};
      const givenBy = new Map<string, string>();
      for (const [name, m] of named) {
        // a metric may be a judge that calls a model: once the run is stopped, the row's later metrics were paid for nothing
        if (signal?.aborted)
          throw new FunctaiError("turn-aborted", `the run was stopped before metric ${name} scored this row`, { cause: signal.reason });
        await run(name, m, row, outputs, scores, givenBy);
      }
      for (const [k, by] of givenBy) if (!givers.has(k)) givers.set(k, by);
      return scores;
    },
    zeros: () => ({}),
    fallback: named.map(([name]) => name),
    givers,
  };
}
