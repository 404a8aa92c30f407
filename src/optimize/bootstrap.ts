import type { z } from "zod";
import type { AIFunction } from "../functions/ai.js";
import type { Step } from "../engine/runtime.js";
import { describeValue, FunctaiError, isErrorCode } from "../errors.js";
import type { Progress, RowResult } from "../evaluate/evaluate.js";
import { checkTurnSignal, reportProgress, rowFrames, scoreRow, TurnStops } from "../evaluate/evaluate.js";
import { makeScorer, type MetricOption } from "../evaluate/metrics.js";
import { checkConcurrency, checkOptionKeys, checkRunOptions } from "../evaluate/options.js";
import { pool } from "../evaluate/pool.js";
import { callRow, newRunId, type RowCall, type RowOutcome } from "../evaluate/run-row.js";
import { checkAnswerColumns, checkExpected, checkInputs, checkRows, checkRowsCopyable, expectedOf, inputsOf, rowShape, type Row } from "../evaluate/rows.js";
import type { LanguageModel } from "../lm/types.js";
import { blockSettings } from "../settings.js";
import type { InputShape } from "../tools/types.js";
import { checkOptimizable, checkTeacher } from "./arguments.js";
import { jsonCopy, pairResults, stepsFrom, type Demo, type DemoStep } from "./demo.js";
import { count, labeledDemo, withoutRepeats } from "./labeled.js";
import { sample } from "./sample.js";
import { progressFailure, stoppedRun } from "../evaluate/kept.js";
import { runStops } from "../evaluate/stops.js";

/**
 * How `bootstrapFewShot` records examples: the metric and the score a run
 * needs, how many recorded and labeled examples, the teacher model, the rows' order.
 *
 * @example
 * const options: BootstrapOptions = { maxBootstrapped: 2, maxLabeled: 8, threshold: 1, teacher: openai({ model: "gpt-4.1" }) };
 * const better = await bootstrapFewShot(answer, train, options);
 */
export interface BootstrapOptions {
  /** Scores a run (default: `exactMatch` of the expected outputs); the main score decides whether it passes. */
  metric?: MetricOption;
  /** A run passes when its main score is at least this (default: above 0). */
  threshold?: number;
  /** At most this many recorded runs become examples (default 4). */
  maxBootstrapped?: number;
  /**
   * Labeled rows fill the examples up to this many, recorded ones counted
   * (default 16). It never drops a recorded run: DESIGN adds "maxLabeled
   * minus that many" labeled rows after up to `maxBootstrapped` recorded
   * ones, so below `maxBootstrapped` it means no labeled rows, not fewer
   * recorded ones (`{ maxBootstrapped: 4, maxLabeled: 2 }` may give 4).
   */
  maxLabeled?: number;
  /** The model that makes the runs (default: the function's own). */
  teacher?: LanguageModel | string;
  /** Which labeled rows (default 0). */
  seed?: number;
  /** Rows run at once (default 8). */
  concurrency?: number;
  /** The column of the expected `result`, or `{ output: column }` (as `evaluate` takes it). */
  expected?: string | Record<string, string>;
  /**
   * Stops the runs (no new row starts, the running calls are stopped): it rejects with `turn-aborted`, whose
   * `demos` (`Demo[]`) holds the recorded runs that passed before the stop, in row order.
   */
  signal?: AbortSignal;
  /**
   * Called after each run, as `evaluate` calls it (a promise it gives is awaited); once it has its examples, the rows
   * it no longer runs are done (not failed), and the last report says so (`done === total`).
   */
  onProgress?: (progress: Progress) => void;
}

/**
 * The steps without the calls of a tool the function does not have (a
 * misspelt name the run was answered an error for, then called right), nor
 * their results: kept, `withState` refused the example (it teaches calling
 * a tool that is not there), and bootstrapFewShot rejected once every run was
 * paid for. A step left with no call is left out.
 */
function knownCalls(steps: DemoStep[], tools: readonly string[] | undefined): DemoStep[] {
  if (tools === undefined) return steps;
  return steps.flatMap((s) => {
    const toolCalls = s.toolCalls.filter((c) => tools.includes(c.name));
    if (toolCalls.length === s.toolCalls.length) return [s];
    if (toolCalls.length === 0) return [];
    // each dropped call's own result (calls of one reply may share an id: their results are told apart in order)
    const paired = pairResults(s);
    const dropped = new Set(s.toolCalls.flatMap((c, i) => (tools.includes(c.name) || paired[i] === undefined ? [] : [paired[i]])));
    return [{ ...s, toolCalls, results: s.results.filter((r) => !dropped.has(r)) }];
  });
}

/** The names of an AI function's tools (as its `withState` checks an example's calls against them). */
const toolNames = (fn: { readonly definition: { describe(): Record<string, unknown> } }): string[] | undefined => {
  const tools = fn.definition.describe().tools;
  return Array.isArray(tools) ? tools.map((t: { name: string }) => t.name) : undefined;
};

/** A passing run as a worked example: the whole turn from its model calls (every tool call, every result, the answer). */
export function recordedDemo(inputs: Row, value: unknown, steps: readonly Step[], tools?: readonly string[]): Demo {
  const root = steps[0]?.path;
  const own = steps.filter((s) => s.path === root);
  const first = own[0];
  const last = own.at(-1);
  // the last request holds the whole exchange; the first one's length is where the live input ends
  const recorded = first && last ? knownCalls(stepsFrom(last.request.messages.slice(first.request.messages.length)), tools) : [];
  const demo: Demo = { inputs, outputs: { result: value } };
  if (recorded.length > 0) demo.steps = recorded;
  // a BigInt the answer was read as (z.coerce.bigint()) is kept as its decimal text, as the model wrote it: refused,
  // the whole optimization rejected once every run was paid for (inputs that are not JSON were refused up front)
  return jsonCopy(demo, "a passing run", (_key, v) => (typeof v === "bigint" ? v.toString() : v));
}

/**
 * A new AI function with worked examples: runs `fn` (with `teacher`'s model
 * when given) over the rows in order; each run whose metric passes becomes
 * an example with its whole recorded turn (its tool calls and their
 * results), until `maxBootstrapped` are found; then labeled rows, sampled
 * with `seed`, fill up to `maxLabeled`. `fn` is unchanged; the examples'
 * tools are never run again.
 *
 * @example
 * const better = await bootstrapFewShot(answer, train, { maxBootstrapped: 2 });
 * better.demos[0].steps; // the model's tool calls and what each tool returned
 */
export async function bootstrapFewShot<S extends InputShape, O extends z.ZodType>(
  fn: AIFunction<S, O>,
  rows: readonly Row[],
  options: BootstrapOptions = {},
): Promise<AIFunction<S, O>> {
  checkOptimizable(fn, "bootstrapFewShot");
  checkRunOptions(options);
  // its runs keep their steps in memory, never in a conversation: a store given here would be silently ignored
  if ((options as { store?: unknown }).store !== undefined)
    throw new FunctaiError("input-invalid", "bootstrapFewShot keeps its runs in no store (store is an option of evaluate)");
  checkOptionKeys("bootstrapFewShot", options, [
    "metric",
    "threshold",
    "maxBootstrapped",
    "maxLabeled",
    "teacher",
    "seed",
    "concurrency",
    "expected",
    "signal",
    "onProgress",
  ]);
  const shape = rowShape(fn, options.expected);
  checkRows(shape, rows);
  checkInputs(fn, shape, rows);
  const scorer = makeScorer(options.metric);
  if (!scorer.custom) checkExpected(shape, rows);
  checkRowsCopyable(shape, rows, scorer.custom ? undefined : Object.values(shape.expected));
  const maxBootstrapped = count("maxBootstrapped", options.maxBootstrapped, 4);
  const maxLabeled = count("maxLabeled", options.maxLabeled, 16);
  // the expected outputs score the runs (the default metric) and answer the labeled examples
  if (!scorer.custom || maxLabeled > 0) checkAnswerColumns(shape);
  const seed = count("seed", options.seed, 0);
  const concurrency = checkConcurrency(options.concurrency);
  const { threshold } = options;
  if (threshold !== undefined && !Number.isFinite(threshold))
    throw new FunctaiError("input-invalid", `threshold is a number, not ${describeValue(threshold, 40)}`);
  const teacher = checkTeacher(options.teacher);
  checkTurnSignal("bootstrapFewShot", options);
  // each row as a labeled example, made before any run: an answer JSON cannot keep (a BigInt) is refused naming its
  // row before anything is paid for, not by withState once every run is done
  const asLabeled = rows.map((row, i) => {
    const d = labeledDemo(shape, row);
    return d ? jsonCopy(d, `${shape.name}: row ${i + 1}`) : null;
  });
  const student = teacher === undefined ? fn : fn.using({ lm: teacher });
  // in a turn, each row's metrics run in a place of the row's own (a judge's replies are found again when it is resumed)
  const place = rowFrames("bootstrapFewShot");
  const tools = toolNames(fn);
  const call: RowCall = {
    fn: student,
    shape,
    caller: { optimization: newRunId("opt") },
    signal: options.signal,
    keepSteps: true,
    block: blockSettings(),
    // in a turn, each run joins it at its row's place (journaled, under its approval rules; see callRow)
    ...(place !== undefined && { place: place.row }),
  };

  const found: (Demo | null)[] = new Array(rows.length).fill(null);
  // each row's inputs as JSON, the key a repeated row is known by; inputs JSON cannot keep (a BigInt) are refused
  // naming the row: with a metric and no expected column, each such run failed (a call refuses them) and the
  // optimizer quietly gave no examples, as if no run had passed
  const keys = rows.map((row, i) => JSON.stringify(jsonCopy(inputsOf(shape, row), `${shape.name}: row ${i + 1}'s inputs`)));
  // the inputs of the runs that passed: a row there twice is one example (shown twice, it spent two of the slots
  // on one question and left another row's run out), so `passed` counts inputs, not runs
  const passedInputs = new Set<string>();
  let passed = 0;
  /** The rows whose runs are kept: each the first passing run of its inputs, in row order. */
  const kept = (): number[] => {
    const seen = new Set<string>();
    return found.flatMap((d, i) => {
      if (d === null || seen.has(keys[i]!)) return [];
      seen.add(keys[i]!);
      return [i];
    });
  };
  let done = 0;
  let failed = 0;
  // the first row (in row order) whose run failed with an error (`"<code>: <message>"`): what an optimization none of whose runs worked rejects with
  let firstError: { row: number; error: string } | undefined;
  // rows the run's stop cut short (they did not finish: the stopped run's message does not count them)
  let cut = 0;
  // each running row's own stop: the run's signal, or the row is no longer needed
  const running = new Map<number, AbortController>();
  /**
   * Once `maxBootstrapped` runs passed, a row running after the last of the
   * first ones can never be kept (a run in order would not have started it):
   * it is stopped, its further model calls and tools would be paid for
   * nothing. A row before it runs to its end: it may pass, and be kept.
   */
  const stopUnneeded = (): void => {
    if (passed < maxBootstrapped) return;
    const last = kept()[maxBootstrapped - 1]!;
    for (const [i, stop] of running)
      if (i > last)
        stop.abort(
          new FunctaiError("turn-aborted", `bootstrapFewShot found its ${maxBootstrapped} examples before row ${i + 1}: its run is not needed`),
        );
  };
  const stops = runStops(options.signal);
  // in a turn: what stopped it (runs waiting for a person, each; or a lost lease, a stop), once the running rows end
  const turnStops = new TurnStops();
  // each row's inputs still being run, and the promise that settles once its run is scored
  const inFlight = new Map<string, Promise<void>>();
  /**
   * Runs row `i` unless it is not needed, and scores it; whether it counts as
   * done. A repeat of a row still running waits for that copy, and runs only
   * if it did not pass: run together, a tool that changes the world (a
   * refund) ran twice for one question, of which one run could be kept.
   */
  const attempt = async (i: number): Promise<boolean> => {
    const row = rows[i]!;
    const key = keys[i]!;
    const earlier = inFlight.get(key);
    let ended!: () => void;
    const mine = new Promise<void>((resolve) => {
      ended = resolve;
    });
    inFlight.set(key, mine);
    try {
      if (earlier !== undefined) {
        await earlier;
        // stopped while it waited: it never ran
        if (options.signal?.aborted) return false;
      }
      // a repeat of a row whose run passed is not run again (it cannot be kept), nor a row after the examples found
      if (passedInputs.has(key) || (passed >= maxBootstrapped && i > kept()[maxBootstrapped - 1]!)) {
        done += 1;
        return true;
      }
      // the row's own stop: told from the run's signal (one listener on it, however many rows run), or not needed
      const own = stops.row();
      const stop = own.controller;
      running.set(i, stop);
      let outcome: RowOutcome;
      let result: RowResult;
      try {
        // in a turn a run's call stops only with its turn (the turn's signal or none): a run no longer needed runs to
        // its end there, as a run of the turn again would find it
        const rowCall = place === undefined ? { ...call, signal: stop.signal } : call;
        ({ outcome, result } = await turnStops.watch(async () => {
          const outcome = await callRow(rowCall, row, i);
          return { outcome, result: await scoreRow(scorer, row, expectedOf(shape, row), outcome, shape, stop.signal, place?.row(i)) };
        }));
      } finally {
        running.delete(i);
        own.release();
      }
      const main = Object.values(result.scores)[0] ?? 0;
      if (outcome.ok && result.error === null && (threshold === undefined ? main > 0 : main >= threshold)) {
        found[i] = recordedDemo(inputsOf(shape, row), outcome.value, outcome.steps ?? [], tools);
        if (!passedInputs.has(key)) {
          passedInputs.add(key);
          passed += 1;
        }
        stopUnneeded();
      }
      done += 1;
      if (result.error !== null && options.signal?.aborted === true) cut += 1;
      // a row stopped as not needed did not fail
      if (result.error !== null && !(stop.signal.aborted && options.signal?.aborted !== true)) {
        failed += 1;
        // the first row's, not the first to fail in time: rows run at once, and which failed first changed run to run
        if (firstError === undefined || i < firstError.row) firstError = { row: i, error: result.error };
      }
      return true;
    } finally {
      ended();
      if (inFlight.get(key) === mine) inFlight.delete(key);
    }
  };
  /** The recorded runs kept so far, in row order (what the new function would show). */
  const keptDemos = (): Demo[] =>
    kept()
      .slice(0, maxBootstrapped)
      .map((i) => found[i]!);
  const stoppedAfter = (): string => `bootstrapFewShot was stopped after ${done - cut} of ${rows.length} rows`;
  const holds = (demos: Demo[]): string => `the error's demos hold the ${demos.length} ${demos.length === 1 ? "run" : "runs"} that passed`;
  /** Tells the host's onProgress, with a stop of its own for the progress awaited (the row's may have been aborted as not needed). */
  const report = async (progress: Progress): Promise<void> => {
    const own = stops.row();
    try {
      await reportProgress(options.onProgress, progress, options.signal === undefined ? undefined : own.controller.signal);
    } finally {
      own.release();
    }
  };
  try {
    await pool(
      rows.length,
      concurrency,
      async (i) => {
        if (await attempt(i)) await report({ done, total: rows.length, failed });
      },
      { signal: options.signal, enough: () => passed >= maxBootstrapped },
    );
    // the rows never started once enough runs passed are done too (not needed, not failed): the bar ends full, not
    // at the row the last example was found on
    if (done < rows.length && options.signal?.aborted !== true) await report({ done: rows.length, total: rows.length, failed });
  } catch (e) {
    // the turn stopped through the run's own signal (ctx.signal): the run's turn-aborted, which keeps its runs, below
    if (!(options.signal?.aborted === true && turnStops.seen)) {
      turnStops.rethrow();
      // onProgress threw (a row's call and metric keep their own errors; a passing run JSON cannot keep is refused
      // input-invalid): the error carries the runs that passed
      const demos = keptDemos();
      throw progressFailure(e, stoppedAfter(), holds(demos), "demos", demos);
    }
  } finally {
    stops.dispose();
  }
  if (options.signal?.aborted) {
    // the runs that passed were paid for: the error keeps them (`demos`, as the new function would show them), so a
    // stopped optimization is not run again from nothing
    const demos = keptDemos();
    throw stoppedRun(`${stoppedAfter()}; ${holds(demos)}`, options.signal.reason, "demos", demos);
  }

  // every run failed with an error (the teacher's key missing, its script ended, a plugin broken): no run was made
  // at all, and the function given back would be the old one, the errors lost. Refused with the first run's error.
  if (firstError !== undefined && failed === rows.length) throw everyRunFailed(rows.length, firstError);

  // rows start in order, and every started row that could still be kept finishes (only rows after the last kept one are
  // stopped): the first passing ones are those a run in order would find
  const recorded = keptDemos();
  // a labeled row asking what a kept run asked, or an earlier labeled row (the same row twice), is left out: the
  // model was shown the question twice, once with the run's tool calls and once answered bare
  const labeled = withoutRepeats(
    asLabeled.flatMap((d) => (d ? [d] : [])),
    recorded,
  );
  const demos = [...recorded, ...sample(labeled, maxLabeled - recorded.length, seed)];
  return fn.withState({ instructions: fn.state().instructions, demos });
}

/**
 * Every run of a bootstrap failed with an error: a coded error with the
 * first run's code (`turn-failed` when its error had none) and message.
 */
function everyRunFailed(runs: number, first: { row: number; error: string }): FunctaiError {
  const code = first.error.slice(0, first.error.indexOf(":"));
  return new FunctaiError(
    isErrorCode(code) ? code : "turn-failed",
    `bootstrapFewShot: every one of its ${runs} ${runs === 1 ? "run" : "runs"} failed with an error, so no example could be found; the first (row ${first.row + 1}): ${first.error}`,
  );
}
