import type { Callable } from "../functions/callable.js";
import { FunctaiError } from "../errors.js";
import { blockSettings } from "../settings.js";
import type { Store } from "../store/types.js";
import { meanRange } from "./mean-range.js";
import { makeScorer, setScore, type MetricOption, type Scorer } from "./metrics.js";
import { checkConcurrency, checkOptionKeys, checkRunOptions } from "./options.js";
import { pool } from "./pool.js";
import { callRow, errorText, newRunId, type RowCall, type RowOutcome } from "./run-row.js";
import { checkAnswerColumns, checkExpected, checkInputs, checkRows, expectedOf, outputsOf, rowShape, type Row, type RowShape } from "./rows.js";
import { whenAborted } from "../runtime/abort.js";
import { progressFailure, stoppedRun } from "./kept.js";
import { runStops } from "./stops.js";

/**
 * How far a run is: rows done (answered or failed) of all, and how many failed.
 *
 * @example
 * await evaluate(answer, rows, { onProgress: (p: Progress) => console.log(`${p.done}/${p.total} (${p.failed} failed)`) });
 */
export interface Progress {
  done: number;
  total: number;
  failed: number;
}

/**
 * How `evaluate` runs: the metric, where the expected outputs are, how many
 * rows at once, a signal to stop it, progress, and a store to keep each call in.
 *
 * @example
 * const options: EvaluateOptions = { expected: "answer", concurrency: 4, signal: AbortSignal.timeout(600_000), store: "evals/" };
 * const ev = await evaluate(answer, rows, options);
 */
export interface EvaluateOptions {
  /** A metric or a record of named metrics (the first is the main score). Default: `exactMatch` of the expected outputs. */
  metric?: MetricOption;
  /** The column of the expected `result`, or `{ output: column }`. Default: columns named like the outputs. */
  expected?: string | Record<string, string>;
  /** Rows called at once (default 8). */
  concurrency?: number;
  /**
   * Stops the run: no new row starts, the running calls are stopped, `evaluate` rejects with `turn-aborted`.
   * That error's `evaluation` (an `Evaluation`) holds the rows that finished before the stop, in row order.
   */
  signal?: AbortSignal;
  /**
   * Called after each row, so a host can draw a bar. If it throws (or the promise it gives rejects: it is awaited),
   * no new row starts and `evaluate` rejects with that error once the running rows end; its `evaluation` holds the
   * rows that finished (a thrown value that cannot hold it, a string, is the cause of a `turn-aborted` error that does).
   */
  onProgress?: (progress: Progress) => void;
  /** Keep each row's call as a one-turn conversation (`<run>-<n>`) of this store; its turn record names the run (`caller`). */
  store?: Store | string;
}

/**
 * One row's call and scores.
 *
 * @example
 * const ev = await evaluate(answer, rows);
 * const wrong: RowResult[] = ev.rows.filter((r) => r.scores.exact_match === 0);
 * for (const r of wrong) console.log(r.row, r.outputs, r.error);
 */
export interface RowResult {
  row: Row;
  /** The call's outputs (`result`, and each field of an object output); `null` when it failed. */
  outputs: Row | null;
  scores: Record<string, number>;
  /** `"<code>: <message>"` when the call or a metric failed (the row then scores 0 on every metric). */
  error: string | null;
  /** The turn's id, when the row ran in a store's conversation. */
  turn: string | null;
}

/**
 * One metric over the run: its mean and 95% range, rows scored, rows failed.
 *
 * @example
 * const ev = await evaluate(answer, rows, { metric: { exact, short } });
 * const summary: MetricSummary[] = ev.summary;
 * for (const m of summary) console.log(m.metric, m.mean, m.low, m.high, m.failed);
 */
export interface MetricSummary {
  metric: string;
  mean: number | null;
  low: number | null;
  high: number | null;
  n: number;
  failed: number;
}

/**
 * What `evaluate` gives: the main metric's mean and range, each row, and each metric's summary.
 *
 * @example
 * const ev: Evaluation = await evaluate(answer, rows);
 * console.log(`${ev.metrics[0]}: ${ev.score} (95%: ${ev.low}–${ev.high}) over ${ev.rows.length} rows`);
 */
export interface Evaluation {
  run: string;
  score: number | null;
  low: number | null;
  high: number | null;
  rows: RowResult[];
  summary: MetricSummary[];
  /** The metrics' names, the main one first. */
  metrics: string[];
}

/** Checks the arguments up front (before any model call). */
function prepare(fn: Callable<any, any>, rows: unknown, options: EvaluateOptions) {
  checkRunOptions(options);
  checkOptionKeys("evaluate", options, ["metric", "expected", "concurrency", "signal", "onProgress", "store"]);
  const shape = rowShape(fn, options.expected);
  checkRows(shape, rows);
  checkInputs(fn, shape, rows);
  const scorer = makeScorer(options.metric);
  if (!scorer.custom) {
    checkAnswerColumns(shape);
    checkExpected(shape, rows);
  }
  const concurrency = checkConcurrency(options.concurrency);
  return { shape, rows, scorer, concurrency };
}

/**
 * Scores a row's outcome; a metric that throws (or rejects) fails that row
 * (its error), never the run. A metric still running when `signal` aborts
 * fails the row (`turn-aborted`) at once: a judge that never answers would
 * otherwise keep the stopped run from ever settling. No metric of the row
 * starts after the stop (a judge calls a model: it would be paid for nothing).
 */
export async function scoreRow(
  scorer: Scorer,
  row: Row,
  expected: Row,
  outcome: RowOutcome,
  shape: RowShape,
  signal?: AbortSignal,
): Promise<RowResult> {
  if (!outcome.ok) return { row, outputs: null, scores: scorer.zeros(expected), error: outcome.error, turn: outcome.turn };
  const outputs = outputsOf(shape, outcome.value);
  try {
    return { row, outputs, scores: await unlessAborted(scorer.score(row, expected, outputs, signal), signal), error: null, turn: outcome.turn };
  } catch (e) {
    return { row, outputs, scores: scorer.zeros(expected), error: errorText(e), turn: outcome.turn };
  }
}

/** The work's result, or a `turn-aborted` rejection as soon as `signal` aborts (the work itself cannot be stopped; its result is dropped). */
function unlessAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  const aborted = whenAborted(signal);
  const stopped = aborted.promise.then((): never => {
    throw new FunctaiError("turn-aborted", "the run was stopped while a metric was scoring this row", { cause: signal.reason });
  });
  work.catch(() => {}); // a metric that fails after the stop is not an unhandled rejection
  return Promise.race([work, stopped]).finally(aborted.dispose);
}

/**
 * Tells the host's `onProgress`; a promise it gives (an async callback) is
 * awaited, so that its rejection fails the run as a throw does: left alone,
 * it was an unhandled rejection (which ends a Node process) and the run went
 * on. One that never settles does not keep a stopped run from settling.
 */
export async function reportProgress(
  onProgress: ((progress: Progress) => void) | undefined,
  progress: Progress,
  signal: AbortSignal | undefined,
): Promise<void> {
  const given: unknown = onProgress?.(progress);
  if (typeof (given as PromiseLike<unknown> | null)?.then !== "function") return;
  try {
    await unlessAborted(Promise.resolve(given), signal);
  } catch (e) {
    if (signal?.aborted !== true) throw e; // stopped: the run says so (turn-aborted), what the callback does after is dropped
  }
}

/**
 * Each metric's mean and range; a failed row counts 0 on every metric of
 * the run. The metrics are the names the rows were scored under, in row
 * order; when no row was, `fallback` (a custom metric's own names).
 */
export function summarize(results: RowResult[], fallback: readonly string[] = []): { metrics: string[]; summary: MetricSummary[] } {
  const metrics: string[] = [];
  for (const r of results) for (const k of Object.keys(r.scores)) if (!metrics.includes(k)) metrics.push(k);
  if (metrics.length === 0 && results.some((r) => r.error !== null)) metrics.push(...fallback);
  for (const r of results) if (r.error !== null) for (const k of metrics) if (!Object.hasOwn(r.scores, k)) setScore(r.scores, k, 0);
  const summary = metrics.map((metric) => {
    const scored = results.filter((r) => Object.hasOwn(r.scores, metric));
    return { metric, ...meanRange(scored.map((r) => r.scores[metric]!)), n: scored.length, failed: scored.filter((r) => r.error !== null).length };
  });
  return { metrics, summary };
}

/**
 * Measures a function on rows of data: calls it on each row's inputs (as
 * any call: the same approvals; a call that fails fails only its row),
 * scores the outputs, and gives each metric's mean with a 95% range.
 * Throws only for bad arguments (`input-invalid`, before any model call),
 * when `signal` stops it (`turn-aborted`, whose `evaluation` holds the rows
 * that finished before the stop), or with what `onProgress` threw
 * (no new row starts then, and the running ones end first; that error's
 * `evaluation` holds the rows that finished).
 *
 * @example
 * const ev = await evaluate(answer, [{ question: "Where is A-1042?", result: "Stuck at the carrier." }]);
 * ev.score; ev.low; ev.high; ev.rows[0].scores.exact_match;
 */
export async function evaluate(fn: Callable<any, any>, rows: readonly Row[], options: EvaluateOptions = {}): Promise<Evaluation> {
  const { shape, scorer, concurrency } = prepare(fn, rows, options);
  const run = newRunId("ev");
  const call: RowCall = { fn, shape, caller: { evaluation: run }, signal: options.signal, store: options.store, block: blockSettings() };
  const results: RowResult[] = new Array(rows.length);
  // rows that ended on their own: answered, or failed before the stop (not cut short by it)
  const finished: boolean[] = new Array(rows.length).fill(false);
  let done = 0;
  let failed = 0;
  // the rows that ended on their own, in row order
  const kept = (): Evaluation =>
    evaluation(
      run,
      results.filter((_, i) => finished[i]),
      scorer.fallback,
    );
  const stoppedAfter = (ev: Evaluation): string => `evaluation ${run} was stopped after ${ev.rows.length} of ${rows.length} rows`;
  const holds = "the error's evaluation holds the rows that finished";
  // one listener on the run's signal; each row's call, metrics and progress are stopped through a stop of the row's own
  const stops = runStops(options.signal);
  try {
    await pool(
      rows.length,
      concurrency,
      async (i) => {
        const row = rows[i]!;
        const own = stops.row();
        const stop = options.signal === undefined ? undefined : own.controller.signal;
        try {
          const result = await scoreRow(scorer, row, expectedOf(shape, row), await callRow(call, row, i, stop), shape, stop);
          results[i] = result;
          finished[i] = result.error === null || options.signal?.aborted !== true;
          done += 1;
          if (result.error !== null) failed += 1;
          await reportProgress(options.onProgress, { done, total: rows.length, failed }, stop);
        } finally {
          own.release();
        }
      },
      { signal: options.signal },
    );
  } catch (e) {
    // only onProgress throws here (a row's call and metrics keep their own errors): its error carries the rows
    const ev = kept();
    throw progressFailure(e, stoppedAfter(ev), holds, "evaluation", ev);
  } finally {
    stops.dispose();
  }
  // a row the stop cut short is left out of what the error keeps (its 0 would pull the mean down)
  if (options.signal?.aborted) {
    const ev = kept();
    throw stoppedRun(`${stoppedAfter(ev)}; ${holds}`, options.signal.reason, "evaluation", ev);
  }
  return evaluation(run, results, scorer.fallback);
}

/** The run's result from its rows' results. */
function evaluation(run: string, results: RowResult[], fallback: readonly string[]): Evaluation {
  const { metrics, summary } = summarize(results, fallback);
  const main = summary[0];
  return { run, score: main?.mean ?? null, low: main?.low ?? null, high: main?.high ?? null, rows: results, summary, metrics };
}
