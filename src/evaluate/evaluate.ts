import type { Callable } from "../functions/callable.js";
import { FunctaiError, isInstance } from "../errors.js";
import { ambientSettings, blockSettings, DEFAULT_MAX_STEPS, mergeSettings, type Settings } from "../settings.js";
import type { Definition } from "../functions/definition.js";
import type { LanguageModel } from "../lm/types.js";
import { resolveLM } from "../providers/resolve.js";
import { toolSpec } from "../tools/tool.js";
import type { Store } from "../store/types.js";
import { meanRange } from "./mean-range.js";
import { makeScorer, SCORE, setScore, type MetricOption, type Scorer } from "./metrics.js";
import { checkConcurrency, checkOptionKeys, checkRunOptions } from "./options.js";
import { pool } from "./pool.js";
import { callRow, errorText, newRunId, stopsTurn, turnSettings, type RowCall, type RowOutcome } from "./run-row.js";
import { checkAnswerColumns, checkExpected, checkInputs, checkRows, checkRowsCopyable, expectedOf, inputsOf, outputsOf, rowShape, type Row, type RowShape } from "./rows.js";
import { untilAborted } from "../runtime/abort.js";
import { progressFailure, stoppedRun } from "./kept.js";
import { runStops } from "./stops.js";
import { frameCarrier } from "../engine/carrier.js";
import { childFrame, type Frame } from "../engine/frame.js";
import { Suspend } from "../engine/runtime.js";
import { digest } from "../lm/digest.js";

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
  /** The turn's id, when the row ran in a store's conversation (`null` when the store could not be read after the call). */
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

/**
 * What stopped the turn a run is made in, seen by its rows: each row that
 * waits for a person (their approvals are asked together, as a step's
 * tools' are), or the first other stop (a lost lease, a stop, a journal
 * that failed). The run starts no new row once one is seen, and rejects
 * with it once the running rows ended (a row whose call was paid for is
 * kept in the journal, and found there when the turn goes on).
 */
export class TurnStops {
  #suspends: Suspend[] = [];
  #other: { error: unknown } | null = null;

  /** Whether a row saw its turn stop. */
  get seen(): boolean {
    return this.#other !== null || this.#suspends.length > 0;
  }

  /** Runs a row's work; what stops the turn is kept, and thrown on (the pool starts no new row). */
  async watch<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (e) {
      if (!stopsTurn(e)) throw e;
      if (isInstance(e, Suspend)) this.#suspends.push(e as Suspend);
      else this.#other ??= { error: e };
      throw e;
    }
  }

  /** Throws what stopped the turn, if anything did: a stop first (waiting is moot then), else every row's approvals. */
  rethrow(): void {
    if (this.#other !== null) throw this.#other.error;
    if (this.#suspends.length > 0) throw Suspend.merge(this.#suspends);
  }
}

/** Checks the arguments up front (before any model call). */
function prepare(fn: Callable<any, any>, rows: unknown, options: EvaluateOptions) {
  checkRunOptions(options);
  checkOptionKeys("evaluate", options, ["metric", "expected", "concurrency", "signal", "onProgress", "store"]);
  const shape = rowShape(fn, options.expected);
  checkRows(shape, rows);
  checkInputs(fn, shape, rows);
  if (options.metric === undefined) {
    checkAnswerColumns(shape);
    checkExpected(shape, rows);
  }
  const scorer = makeScorer(options.metric, options.metric === undefined && comparedOutputs(shape, rows) > 1);
  checkRowsCopyable(shape, rows, scorer.custom ? undefined : Object.values(shape.expected));
  const concurrency = checkConcurrency(options.concurrency);
  checkTurnSignal("evaluate", options);
  return { shape, rows, scorer, concurrency };
}

/** How many outputs the rows compare, all told (a row names those it has: see exactMatch). */
function comparedOutputs(shape: RowShape, rows: readonly Row[]): number {
  const names = new Set<string>();
  for (const row of rows) for (const [name, value] of Object.entries(expectedOf(shape, row))) if (value !== undefined) names.add(name);
  return names.size;
}

/**
 * In a turn (a program's or a tool's body) each row's call joins it, and a
 * call inside a turn stops when its turn stops: it refuses a signal of its
 * own (`settings-invalid`). Given one, every row failed so and the run
 * scored 0 as if the function were wrong; refused here, before any model
 * call. With `store` each row is a conversation's turn of its own, which
 * takes any signal.
 */
export function checkTurnSignal(kind: "evaluate" | "bootstrapFewShot", options: { signal?: AbortSignal | undefined; store?: unknown }): void {
  const frame = frameCarrier.get();
  if (frame === undefined || options.signal === undefined || options.store !== undefined || options.signal === frame.runtime.signal) return;
  const orStore = kind === "evaluate" ? "; or give a store, where each row is a conversation of its own" : "";
  throw new FunctaiError(
    "input-invalid",
    `${kind} was called inside ${frame.site} with a signal that is not the turn's: each row's call joins the turn and stops when it stops, never alone (every row would fail). Pass the turn's own signal (ctx.signal) or leave signal out${orStore}. Nothing was sent to the model.`,
  );
}

/**
 * Scores a row's outcome; a metric that throws (or rejects) fails that row
 * (its error), never the run. A metric still running when `signal` aborts
 * fails the row (`turn-aborted`) at once: a judge that never answers would
 * otherwise keep the stopped run from ever settling. No metric of the row
 * starts after the stop (a judge calls a model: it would be paid for nothing).
 * In a turn, the metrics run in `frame`, the row's own place in it (see `rowFrames`).
 */
export async function scoreRow(
  scorer: Scorer,
  row: Row,
  expected: Row,
  outcome: RowOutcome,
  shape: RowShape,
  signal?: AbortSignal,
  frame?: Frame,
): Promise<RowResult> {
  if (!outcome.ok) return { row, outputs: null, scores: scorer.zeros(expected), error: outcome.error, turn: outcome.turn };
  const outputs = outputsOf(shape, outcome.value);
  const scoring = (): Promise<Record<string, number>> => scorer.score(row, expected, outputs, signal);
  try {
    const scores = await unlessAborted(frame === undefined ? scoring() : frameCarrier.run(frame, scoring), signal);
    return { row, outputs, scores, error: null, turn: outcome.turn };
  } catch (e) {
    if (stopsTurn(e)) throw e; // the run's turn waits for a person or stops: so does the run
    return { row, outputs, scores: scorer.zeros(expected), error: errorText(e), turn: outcome.turn };
  }
}

/**
 * Where each row's call and metrics run when the run is made inside a turn
 * (a program's or a tool's body): a place of the row's own,
 * `<caller>/(evaluate)#<run>/row#<n>`, whose path is the caller's (approval
 * rules see the rows' tools as before). Left in the caller's place, a judge
 * the metric calls was numbered in the order the rows' calls happened to
 * end (`nightly#1/judge#3`), and two runs at once numbered their rows'
 * calls in the order they began; a run of the turn again (resumed after a
 * crash or a person's answer) in which they ended or began in another order
 * (recorded replies come at once) found none of their recorded replies and
 * paid each again. `undefined` outside a turn.
 */
export function rowFrames(kind: "evaluate" | "bootstrapFewShot"): RunPlace | undefined {
  const parent = frameCarrier.get();
  if (parent === undefined) return undefined;
  const run = childFrame(parent, `(${kind})`, parent.settings);
  // made once per row: the row's call and its metrics count their calls in one place
  const rows = new Map<number, Frame>();
  return {
    id: `${parent.runtime.turn}-${digest(run.site).slice(0, 12)}`,
    row: (index) => {
      let frame = rows.get(index);
      if (frame === undefined) rows.set(index, (frame = { ...childFrame(run, "row", parent.settings, index + 1), path: parent.path }));
      return frame;
    },
  };
}

/** A run's place in the turn it is made in (see rowFrames). */
export interface RunPlace {
  /** The same each time the turn runs the program again: the turn's id and the run's place in it. */
  readonly id: string;
  /** Where row `index`'s metrics run. */
  row(index: number): Frame;
}

/** The work's result, or a `turn-aborted` rejection as soon as `signal` aborts (the work itself cannot be stopped; its result is dropped). */
function unlessAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  return untilAborted(work, signal, (s) => new FunctaiError("turn-aborted", "the run was stopped while a metric was scoring this row", { cause: s.reason }));
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
 * `evaluation` holds the rows that finished). Made in a turn (a program's
 * body), its rows' calls join the turn: when the turn waits for a person
 * (a rule on a row's tools) or stops, so does the run (no new row starts;
 * it rejects as the turn's call would once the running rows end), and the
 * turn run again finds what the rows were paid for.
 *
 * @example
 * const ev = await evaluate(answer, [{ question: "Where is A-1042?", result: "Stuck at the carrier." }]);
 * ev.score; ev.low; ev.high; ev.rows[0].scores.exact_match;
 */
export async function evaluate(fn: Callable<any, any>, rows: readonly Row[], options: EvaluateOptions = {}): Promise<Evaluation> {
  const { shape, scorer, concurrency } = prepare(fn, rows, options);
  const place = rowFrames("evaluate");
  // in a turn, the same run each time the turn runs the program again: with a store, its rows' conversations (and
  // their keyed sends) are found again, not sent anew and paid twice. Named by what it runs too (runVersion): run
  // again after the function changed (a deploy before the turn went on), its rows answered from the old function's
  // turns, scored as the new one's; after its rows changed (a data set edited, a row added at the top), a row's key
  // named another question and the row failed. Without a store the rows' replies are found by their requests, and
  // a changed function or row is called again: so it is with one
  const run = place === undefined ? newRunId("ev") : `ev-${place.id}-${runVersion(fn, shape, rows, options.store !== undefined)}`;
  const call: RowCall = {
    fn,
    shape,
    caller: { evaluation: run },
    signal: options.signal,
    store: options.store,
    block: blockSettings(),
    ...(place !== undefined && { keyed: true, place: place.row }),
  };
  const results: RowResult[] = new Array(rows.length);
  // rows that ended on their own: answered, or failed before the stop (not cut short by it)
  const finished: boolean[] = new Array(rows.length).fill(false);
  let done = 0;
  let failed = 0;
  // answered rows that lack a score another has: failed when the run ends (failRowsMissingScores), counted as they show
  const named = new ScoreNames();
  // the rows that ended on their own, in row order
  const kept = (): Evaluation => {
    const numbers = finished.flatMap((f, i) => (f ? [i + 1] : []));
    return evaluation(
      run,
      numbers.map((n) => results[n - 1]!),
      scorer,
      numbers,
    );
  };
  const stoppedAfter = (ev: Evaluation): string => `evaluation ${run} was stopped after ${ev.rows.length} of ${rows.length} rows`;
  const holds = "the error's evaluation holds the rows that finished";
  // one listener on the run's signal; each row's call, metrics and progress are stopped through a stop of the row's own
  const stops = runStops(options.signal);
  // in a turn: what stopped it (rows waiting for a person, each; or a lost lease, a stop), once the running rows end
  const turnStops = new TurnStops();
  try {
    await pool(
      rows.length,
      concurrency,
      async (i) => {
        const row = rows[i]!;
        const own = stops.row();
        const stop = options.signal === undefined ? undefined : own.controller.signal;
        try {
          const result = await turnStops.watch(async () => {
            const outcome = await callRow(call, row, i, stop);
            return scoreRow(scorer, row, expectedOf(shape, row), outcome, shape, stop, place?.row(i));
          });
          results[i] = result;
          finished[i] = result.error === null || options.signal?.aborted !== true;
          done += 1;
          if (result.error !== null) failed += 1;
          else if (scorer.custom) named.add(result);
          await reportProgress(options.onProgress, { done, total: rows.length, failed: failed + named.lacking }, stop);
        } finally {
          own.release();
        }
      },
      { signal: options.signal },
    );
  } catch (e) {
    // the turn stopped through the run's own signal (ctx.signal): the run's turn-aborted, which keeps its rows, below
    const stoppedBySignal = options.signal?.aborted === true && turnStops.seen;
    if (!stoppedBySignal) {
      turnStops.rethrow();
      // only onProgress throws here (a row's call and metrics keep their own errors): its error carries the rows
      const ev = kept();
      throw progressFailure(e, stoppedAfter(ev), holds, "evaluation", ev);
    }
  } finally {
    stops.dispose();
  }
  // a row the stop cut short is left out of what the error keeps (its 0 would pull the mean down)
  if (options.signal?.aborted) {
    const ev = kept();
    throw stoppedRun(`${stoppedAfter(ev)}; ${holds}`, options.signal.reason, "evaluation", ev);
  }
  return evaluation(run, results, scorer);
}

/**
 * Fails each row whose custom metric gave fewer scores than another row's
 * (`metric-failed`, naming the score and a row that has it; 0 on every
 * metric, as any row whose metric failed). A metric giving `{ a }` on one
 * row and `{ b }` on another had each mean taken over only the rows that
 * named it: the main score left rows out without a word. `numbers` are the
 * rows' numbers in the run (1, 2, …).
 */
export function failRowsMissingScores(results: RowResult[], numbers: readonly number[], givers: ReadonlyMap<string, string>): void {
  const names = new Map<string, number>();
  results.forEach((r, i) => {
    if (r.error === null) for (const k of Object.keys(r.scores)) if (!names.has(k)) names.set(k, numbers[i]!);
  });
  for (const r of results) {
    if (r.error !== null) continue;
    const missing = [...names].find(([k]) => !Object.hasOwn(r.scores, k));
    if (missing === undefined) continue;
    const [name, at] = missing;
    r.error = `metric-failed: metric ${givers.get(name) ?? SCORE} gave no score named ${name}, which row ${at} has: a metric gives the same scores on every row (a mean over only the rows that had it would leave the others out)`;
    r.scores = {};
    for (const k of names.keys()) setScore(r.scores, k, 0);
  }
}

/**
 * How many answered rows lack a score name another answered row has, as
 * rows finish: those `failRowsMissingScores` fails once the run ends, so
 * progress counts them as failed when they show (a name seen is never
 * unseen, so the count only goes up, and the last report agrees with the
 * run's rows).
 */
class ScoreNames {
  readonly #names = new Set<string>();
  // the answered rows that have every name seen so far
  #whole: RowResult[] = [];
  lacking = 0;

  add(row: RowResult): void {
    const added = Object.keys(row.scores).filter((k) => !this.#names.has(k));
    for (const k of added) this.#names.add(k);
    if (added.length > 0)
      this.#whole = this.#whole.filter((r) => {
        const whole = added.every((k) => Object.hasOwn(r.scores, k));
        if (!whole) this.lacking += 1;
        return whole;
      });
    if ([...this.#names].every((k) => Object.hasOwn(row.scores, k))) this.#whole.push(row);
    else this.lacking += 1;
  }
}

/** JSON text of a value, a BigInt as its digits (a row's input a `z.coerce.string()` reads). */
const jsonText = (value: unknown): string => JSON.stringify(value, (_k, v: unknown) => (typeof v === "bigint" ? `${v}n` : v)) ?? "";

/** What of a function evaluated names its run: its definition and its `using` layers. */
type Evaluated = { readonly definition: Definition; readonly layers?: readonly Settings[] };

/**
 * What a run in a turn sends, named in a few characters: the function's
 * kind, name and interface (the version its conversations record), its
 * worked examples (`withState` gives another state with the same interface),
 * what its rows run on (`replySettings`: the model and the settings a reply
 * depends on, and the tools as the model is shown them), and each row's
 * inputs (digested one by one: a run of many rows never holds all their
 * text at once).
 */
function runVersion(fn: Evaluated, shape: RowShape, rows: readonly Row[], stored: boolean): string {
  const def = fn.definition;
  const rowDigests = rows.map((row) => {
    try {
      return digest(jsonText(inputsOf(shape, row))).slice(0, 12);
    } catch {
      return "-"; // inputs JSON cannot hold (a cycle a schema reads past): known by their place alone
    }
  });
  return digest(jsonText([def.kind, def.name, def.describe(), def.demos ?? [], replySettings(fn, stored), rowDigests.join("")])).slice(0, 12);
}

/**
 * What of the settings the rows' calls run with decides their replies, as
 * JSON: with a store each row is a keyed send of a conversation named by the
 * run, and a run named as before answers from the turns saved then. Run
 * again after the model changed (another model, a temperature, a tool's
 * input schema), it scored the old model's saved answers under the new one's
 * name. (Without a store each reply is found by its request, whose key holds
 * the same: the model's provider and name, temperature, maxTokens, the tools.)
 *
 * Covered: the model as functai knows it (an LM object's `provider`, `model`
 * and `nativeTools`; a model named by a string, as it resolves), temperature,
 * maxTokens, maxSteps, toolErrors, the plugins' names and versions, an
 * approve rule (a function only as "function"), and each tool's name,
 * description and input schema as the model is shown them. Not covered (not
 * knowable, or not deciding a reply as it was sent): what serves a model
 * name (another baseURL, new weights), the code of tools, programs, plugins
 * and approve functions, the tools of a function used as a tool, the
 * metric, a lease, a store.
 *
 * The settings are merged as the rows' calls merge them: with a store, a
 * conversation's (configure's, the `withSettings` blocks open now, the
 * function's own and its `using` layers, and in a turn the settings the
 * turn's calls run with: see turnSettings); without one, the
 * call joins the turn and adds the same to its caller's settings.
 */
function replySettings(fn: Evaluated, stored: boolean): unknown {
  const layers = Array.isArray(fn.layers) ? fn.layers : [];
  const own = mergeSettings(fn.definition.settings, ...layers);
  const parent = frameCarrier.get();
  const settings =
    parent === undefined
      ? mergeSettings(ambientSettings(), own)
      : stored
        ? mergeSettings(ambientSettings(), own, turnSettings({ definition: fn.definition, layers }, blockSettings(), parent.settings))
        : mergeSettings(parent.settings, blockSettings(), own);
  return {
    lm: modelIdentity(settings.lm),
    temperature: settings.temperature ?? null,
    maxTokens: settings.maxTokens ?? null,
    maxSteps: settings.maxSteps ?? DEFAULT_MAX_STEPS, // a default given or left out is the same run
    toolErrors: settings.toolErrors ?? "report",
    plugins: (settings.plugins ?? []).map((p) => [p.name, (p as { version?: unknown }).version ?? null]),
    approve: typeof settings.approve === "function" ? "function" : (settings.approve ?? null),
    tools: (fn.definition.tools ?? []).map((t) => {
      try {
        return toolSpec(t);
      } catch {
        return { name: t.name }; // a schema JSON Schema cannot show: the call fails on it anyway (tool-failed)
      }
    }),
  };
}

/** A model as functai knows it: its provider, name and how it takes tools (a string resolved; one that names none, as given). */
function modelIdentity(lm: LanguageModel | string | undefined): unknown {
  if (lm === undefined) return null;
  try {
    const { provider, model, nativeTools } = resolveLM(lm);
    return [provider, model, nativeTools];
  } catch {
    return typeof lm === "string" ? lm : "unknown"; // the rows' calls refuse it (lm-unknown)
  }
}

/** The run's result from its rows' results (`numbers`: their rows' numbers, when some rows are left out). */
function evaluation(run: string, results: RowResult[], scorer: Scorer, numbers: readonly number[] = results.map((_, i) => i + 1)): Evaluation {
  if (scorer.custom) failRowsMissingScores(results, numbers, scorer.givers);
  const { metrics, summary } = summarize(results, scorer.fallback);
  const main = summary[0];
  return { run, score: main?.mean ?? null, low: main?.low ?? null, high: main?.high ?? null, rows: results, summary, metrics };
}
