/**
 * Measurement helpers used inside one benchmark child process.
 *
 * A child measures one SDK (or one variant of it) and reports each figure as
 * one line on stdout: `@@bench <json Sample>`. The runner (bench/run.ts)
 * collects those lines; anything else a child prints is passed through.
 *
 * Rules every figure follows:
 * - warm-up runs first (not recorded), then RUNS (5) timed runs, the median kept;
 * - `global.gc()` (when the child runs with --expose-gc, which the runner
 *   passes) once, before the warm-up, never between nor just before timed
 *   runs: V8's forced collection also drops the hidden classes (maps) of
 *   objects that no longer exist, which a collection that comes by itself
 *   keeps for the code optimized on them, so a run after a forced `gc()`
 *   deoptimizes and optimizes the hot code anew; the warm-up runs after it
 *   pay for that, the timed runs do not (measurements: bench/README.md,
 *   Method). Each run pays for collecting garbage as it comes (its own and
 *   the run before's), as a process does. Except runs of one large operation (`gc: "each"`:
 *   resuming or opening a journal of megabytes, every SDK alike): what one
 *   run parsed and kept to its end is old-generation garbage after it, and
 *   collecting it (tens of ms) would land in one later run or another, so
 *   each of those runs starts on a collected heap; and the concurrency
 *   rounds (`concurrentRates`), whose heap figure is taken above a
 *   collected heap;
 * - nothing is subtracted from a per-step figure: total wall time of the
 *   loop divided by its number of steps.
 */
import fsModule from "node:fs";
import { basename } from "node:path";
import { performance } from "node:perf_hooks";

/**
 * A timed resume's folder: the store folder `seed` copied to `dir`, and the
 * journal `file` of the copy flushed, so that it is on disk before the clock
 * starts, as a journal being resumed is (else the turn's first fsync writes the
 * whole copied file, and the figure is the disk's). The copy leaves out the
 * holder link the benchmark's own process made while writing the seed (its
 * file locks are hard links to it): a journal being resumed was written by a
 * process now gone, or in a folder the resuming one locks in already, never
 * beside a copy of its own link (with one, the first append found "its" link
 * under a name it never made there, removed it and made it again).
 */
export function copyWaitingJournal(seed: string, dir: string, file: string): void {
  fsModule.cpSync(seed, dir, { recursive: true, filter: (src) => !basename(src).startsWith(".holder-") });
  const fd = fsModule.openSync(file, "r+");
  try {
    fsModule.fsyncSync(fd);
  } finally {
    fsModule.closeSync(fd);
  }
}

export const RUNS = 5;
export const MARK = "@@bench ";

export interface Sample {
  metric: string;
  n: number | null;
  unit: string;
  /** Column name: "ours", or a peer (variant) name such as "langgraph (sqlite)". */
  name: string;
  value: number;
  /** Anything that helps read the figure (all runs, settings used). Printed, kept in results.json. */
  detail?: Record<string, unknown>;
}

export function median(xs: readonly number[]): number {
  if (xs.length === 0) throw new Error("median of nothing");
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export function gc(): void {
  const g = (globalThis as { gc?: () => void }).gc;
  if (g) g();
}

/** The most warm-up runs a time-based warm-up (`warmupMs`) makes. */
export const WARMUP_MAX_RUNS = 100;

export interface TimedOptions {
  /** Warm-up runs, not recorded. Default 10. */
  warmup?: number;
  /**
   * Go on warming up after `warmup` runs until the warm-up took this long
   * (at most WARMUP_MAX_RUNS runs): a slow SDK still gets its `warmup` runs,
   * a fast one enough to reach its steady state. Default 0.
   */
  warmupMs?: number;
  /** Timed runs. Default RUNS (5). */
  runs?: number;
  /** `gc()` once before the warm-up (default), or before each run: for runs of one large operation (see the rules above). */
  gc?: "once" | "each";
}

/**
 * Runs `prepare` (untimed) then `run` (timed) warmup + runs times; returns
 * the median and every timed run, in milliseconds. `prepare` builds what one
 * run needs (a fresh model script, a fresh thread id, a temp dir) so that
 * fixture cost never lands in the figure.
 */
export async function timed<P>(
  prepare: () => P | Promise<P>,
  run: (p: P) => unknown | Promise<unknown>,
  opts: TimedOptions = {},
): Promise<{ medianMs: number; runsMs: number[]; warmupRuns: number }> {
  const warmup = opts.warmup ?? 10; // every SDK alike: fewer left the JIT tiering up inside the timed runs
  const runs = opts.runs ?? RUNS;
  const all: number[] = [];
  let warmed = 0;
  let warmMs = 0;
  const warming = () => warmed < warmup || (warmMs < (opts.warmupMs ?? 0) && warmed < WARMUP_MAX_RUNS);
  while (all.length < runs) {
    const p = await prepare();
    if (warmed + all.length === 0 || opts.gc === "each") gc(); // (see the rules above)
    const t0 = performance.now();
    await run(p);
    const ms = performance.now() - t0;
    if (warming()) {
      warmed++;
      warmMs += ms;
    } else all.push(ms);
  }
  return { medianMs: median(all), runsMs: all, warmupRuns: warmed };
}

export function report(s: Sample): void {
  process.stdout.write(`${MARK}${JSON.stringify(s)}\n`);
}

/** Median and range of per-round (or per-run) values, rounded for a report. */
export function spread(xs: readonly number[], digits = 3): { median: number; min: number; max: number; rounds: number[] } {
  return { median: round(median(xs), digits), min: round(Math.min(...xs), digits), max: round(Math.max(...xs), digits), rounds: xs.map((x) => round(x, digits)) };
}

/** Rounds for display and JSON: 3 significant decimals are plenty. */
export function round(x: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/** Peak resident set size of this process so far, in MiB (getrusage maxrss). */
export function peakRssMiB(): number {
  return process.resourceUsage().maxRSS / 1024;
}

/**
 * Samples heapUsed every `everyMs` while `fn` runs; returns fn's value and
 * the highest heapUsed seen (MiB), including one reading right after.
 */
export async function withHeapPeak<T>(fn: () => Promise<T>, everyMs = 5): Promise<{ value: T; peakHeapMiB: number }> {
  let peak = process.memoryUsage().heapUsed;
  const timer = setInterval(() => {
    const h = process.memoryUsage().heapUsed;
    if (h > peak) peak = h;
  }, everyMs);
  try {
    const value = await fn();
    const h = process.memoryUsage().heapUsed;
    if (h > peak) peak = h;
    return { value, peakHeapMiB: peak / 2 ** 20 };
  } finally {
    clearInterval(timer);
  }
}

/**
 * Entry point of a benchmark file. The runner starts the file once per
 * variant: `node --expose-gc --import tsx <file> --variant=<name>`; with
 * `--list` the file prints its variant names (one JSON array line) and exits.
 * Run by hand without arguments, it runs every variant in this one process
 * (handy to try a file; the runner never does that).
 */
export async function main(variants: Record<string, () => Promise<void>>): Promise<void> {
  const args = process.argv.slice(2);
  if (args.includes("--list")) {
    process.stdout.write(`${MARK}${JSON.stringify({ variants: Object.keys(variants) })}\n`);
    return;
  }
  const chosen = args.find((a) => a.startsWith("--variant="))?.slice("--variant=".length);
  const names = chosen ? [chosen] : Object.keys(variants);
  for (const name of names) {
    const v = variants[name];
    if (!v) throw new Error(`unknown variant ${name}; have ${Object.keys(variants).join(", ")}`);
    await v();
  }
}

/** Step counts every per-step figure is measured at. */
// the long run first, for every SDK alike: the short one is then measured warm, not while the JIT tiers up
export const STEP_NS = [200, 50] as const;
/** The long turn, measured after STEP_NS where it fits the time box (see `stepSeries`). */
export const LONG_N = 1000;

/**
 * A peer of bench/postgres.ts that is the floor of DESIGN's rules for a
 * changing step, not an SDK: its reply with the tool's `started` record kept
 * (flushed) before the tool runs, then the tool's result committed before
 * the next model request (without waiting for the flush, as ours does: the
 * next flush keeps it). Two round trips a step, where "bare insert+commit"
 * counts one: the distance between the two is the rules', above it ours.
 */
export const PG_RULE_FLOOR = "floor: insert+commit, then a relaxed one";
/** Timed runs of each per-step figure (its median and min–max are reported). */
export const STEP_RUNS = 7;
/**
 * The warm-up of every per-step series: at least `runs` runs (10 at
 * n = 50 and 200; 2 at n = 1,000, where a peer's run can take seconds),
 * and on until `ms` of runs (at most WARMUP_MAX_RUNS): a slow SDK gets its
 * runs, a fast one enough to reach its steady state (its first runs still
 * tier up code and grow the heap: 10 runs of a 50-step turn, 500 steps,
 * left ours at 32–75 µs a step where it settles at 22).
 */
const STEP_WARMUP = { runs: 10, longRuns: 2, ms: 1_500 } as const;
/** The warm-up `timed` options of a per-step series at n steps. */
export const stepWarmup = (n: number) => ({ warmup: n === LONG_N ? STEP_WARMUP.longRuns : STEP_WARMUP.runs, warmupMs: STEP_WARMUP.ms });
/** A long-turn figure is only measured when its runs are expected to take less than this. */
export const LONG_TIME_BOX_MS = 120_000;

/** The step counts a series measures: every one, or the one FUNCTAI_BENCH_STEP_N names. */
function stepNs(): number[] {
  const only = process.env.FUNCTAI_BENCH_STEP_N;
  if (only === undefined || only === "") return [...STEP_NS, LONG_N];
  const n = Number(only);
  if (!(STEP_NS as readonly number[]).includes(n)) throw new Error(`FUNCTAI_BENCH_STEP_N=${only}: not one of ${STEP_NS.join(", ")}`);
  return [n];
}

/**
 * `overhead_per_tool_step_us` for one SDK (variant) at n = 200, 50, then
 * LONG_N: `prepare(n)` untimed, `run` timed, STEP_RUNS runs after warm-up,
 * median per step reported with every run and its spread (min–max per step).
 * The long turn is measured only if the n=200 median, scaled as if the cost
 * per step grew linearly with n (the whole turn quadratically: ×25), fits
 * LONG_TIME_BOX_MS over its runs; otherwise a `skipped` line says why.
 *
 * `extra(n)` runs after n's timed runs, before the next n: whatever else it
 * measures (ours' plain call) never warms the process before the first series.
 *
 * With FUNCTAI_BENCH_STEP_N set (one of STEP_NS), only that n is measured,
 * with the same warm-up and runs: the runner's paired rounds (bench/run.ts).
 */
export async function stepSeries<P>(
  name: string,
  prepare: (n: number) => P | Promise<P>,
  run: (p: P, n: number) => unknown | Promise<unknown>,
  extra: (n: number) => Record<string, unknown> | Promise<Record<string, unknown>> = () => ({}),
): Promise<void> {
  let longSkipped: string | undefined;
  for (const n of stepNs()) {
    if (n === LONG_N && longSkipped !== undefined) continue;
    const cpuMs: number[] = [];
    const r = await timed(() => prepare(n), async (p) => {
      const c0 = process.cpuUsage();
      await run(p, n);
      const c = process.cpuUsage(c0);
      cpuMs.push((c.user + c.system) / 1000);
    }, { ...stepWarmup(n), runs: STEP_RUNS });
    const perStep = (ms: number) => round((ms * 1000) / n);
    const cpu = cpuMs.slice(-STEP_RUNS);
    const detail: Record<string, unknown> = {
      ...(await extra(n)), runs_ms: r.runsMs.map((x) => round(x)), min_us: perStep(Math.min(...r.runsMs)), max_us: perStep(Math.max(...r.runsMs)),
      // CPU time of the process (every thread) per step: on a loaded machine, wall time also counts the time it waited for a core
      cpu_us: perStep(median(cpu)), cpu_min_us: perStep(Math.min(...cpu)), cpu_max_us: perStep(Math.max(...cpu)),
      warmup_runs: r.warmupRuns,
    };
    if (n === 200) {
      const perRun = r.medianMs * (LONG_N / 200) ** 2;
      // the warm-up: its runs, or on until its time is up (one run more at most)
      const long = stepWarmup(LONG_N);
      const guess = Math.max(long.warmup * perRun, long.warmupMs + perRun) + STEP_RUNS * perRun;
      if (guess > LONG_TIME_BOX_MS) detail[`n${LONG_N}_skipped`] = longSkipped = `expected ${Math.round(guess / 1000)} s > time box ${LONG_TIME_BOX_MS / 1000} s`;
    }
    report({ metric: "overhead_per_tool_step_us", n, unit: "us", name, value: perStep(r.medianMs), detail });
  }
}

/** The same tiny workload for every SDK: the tool's input and output. */
export const orderId = (i: number): string => `A-${1000 + i}`;
export const toolOutput = (orderId: string) => ({ order_id: orderId, item: "blue mug", status: "shipped", eta: "2026-12-02" });
export const FINAL_TEXT = "All orders looked up.";
export const QUESTION = "Look up every order, one at a time.";

/** The streamed workload: STREAM_N tool steps, then a final answer streamed as these deltas (joined: STREAM_FINAL_TEXT). */
export const STREAM_N = 200;
export const STREAM_DELTAS: readonly string[] = Array.from({ length: 20 }, (_, i) => (i === 0 ? "All" : ` word${i}`));
export const STREAM_FINAL_TEXT = STREAM_DELTAS.join("");

/**
 * The text stream (`stream_events_per_s`): no tool call, one reply streamed
 * word by word as TEXT_STREAM_N deltas (`w0 `, `w1 `, …), the way most events
 * of a real stream are text deltas. Joined: TEXT_STREAM_TEXT.
 */
export const TEXT_STREAM_N = 50_000;
export const TEXT_STREAM_DELTAS: readonly string[] = Array.from({ length: TEXT_STREAM_N }, (_, i) => `w${i} `);
export const TEXT_STREAM_TEXT = TEXT_STREAM_DELTAS.join("");
/** Steps in the turn that is interrupted and then resumed (resume_1000_steps_ms). */
export const RESUME_N = 1000;
/**
 * The `timed` options of every SDK's resume_1000_steps_ms, alike: the same
 * warm-up (each SDK had its own, 1 to 3, until 2026-12-03: more warm-up is
 * a warmer figure) and more runs than the others, since a resume's few
 * fsyncs swing it; a collected heap before each (it parses megabytes).
 */
export const RESUME_TIMING = { warmup: 3, runs: 11, gc: "each" } as const;

/** One streamed turn, read through `for await`: how many events it gave and the answer it ended with. */
export interface StreamedTurn {
  events: number;
  answer: unknown;
}

/**
 * Events per second through `for await`, every SDK alike: `prepare`
 * (untimed: a fresh model), then `run` timed, 2 warm-ups + RUNS, the median
 * reported; the answer must equal `final` (a stream that lost text fails).
 */
export async function streamRate<P>(
  o: { metric: string; n: number; name: string; final: string; how: string },
  prepare: () => P,
  run: (p: P) => Promise<StreamedTurn>,
): Promise<void> {
  const runs: { eventsPerS: number; events: number; ms: number }[] = [];
  for (let r = 0; r < 2 + RUNS; r++) {
    const p = prepare();
    if (r === 0) gc(); // once, before the warm-ups (see the rules above)
    const t0 = performance.now();
    const { events, answer } = await run(p);
    const ms = performance.now() - t0;
    if (answer !== o.final) throw new Error(`${o.name} stream: ${String(answer).slice(0, 80)}`);
    if (r >= 2) runs.push({ eventsPerS: events / (ms / 1000), events, ms });
  }
  report({
    metric: o.metric, n: o.n, unit: "events/s", name: o.name,
    value: Math.round(median(runs.map((x) => x.eventsPerS))),
    detail: { how: o.how, events_per_turn: runs[0]!.events, turn_ms_median: round(median(runs.map((x) => x.ms))) },
  });
}

/** The concurrency workload: this many turns (conversations, threads, writers) at once in one process… */
export const CONCURRENT_TURNS = 200;
/** …each of this many steps, one changing tool call per step, then the answer. */
export const CONCURRENT_STEPS = 10;

/**
 * Steps per second with CONCURRENT_TURNS turns running at once, and the heap
 * per running turn. `prepare` (untimed) builds the turns; `run` starts them
 * all at once and resolves when all are done, calling `step()` after each
 * step. 1 warm-up + STEP_RUNS timed runs; the median rate is reported with
 * its min–max and every run.
 * Heap, per turn: the peak heapUsed sampled every 2 ms during each timed run
 * above the heap right before it (after gc and `prepare`): what a process
 * must have room for, garbage not yet collected included; and, in one more
 * untimed run, the live heap halfway (gc() when half of all steps are done):
 * what the running turns really hold.
 * A slow SDK (its warm-up run over SLOW_RUN_MS) gets 3 timed runs and no
 * halfway probe, so that the whole file stays within minutes.
 */
const SLOW_RUN_MS = 10_000;

/** One contender of a concurrency round: how it is named and reported, and how it runs. */
export interface Concurrent<P> {
  o: { metric: string; heapMetric: string; name: string; how: string; cleanup?: (p: P) => void | Promise<void> };
  prepare: () => P | Promise<P>;
  run: (p: P, step: () => void) => Promise<void>;
}

export async function concurrentRate<P>(
  o: Concurrent<P>["o"],
  prepare: () => P | Promise<P>,
  run: (p: P, step: () => void) => Promise<void>,
): Promise<void> {
  await concurrentRates([{ o, prepare, run }]);
}

/**
 * `concurrentRate` for several contenders in interleaved rounds (each round
 * runs each contender once, in turn), so that a ratio between two of them is
 * taken within a round: load that comes and goes falls on both alike. Each
 * contender's rates are reported, and the first contender's detail holds its
 * ratio to every other contender per round (median and range).
 */
// biome-ignore lint/suspicious/noExplicitAny: each contender prepares its own kind of value; only it reads it back
export async function concurrentRates(contenders: readonly Concurrent<any>[]): Promise<void> {
  const rates: number[][] = contenders.map(() => []);
  const heaps: number[][] = contenders.map(() => []);
  const live: (number | null)[] = contenders.map(() => null);
  let runs = STEP_RUNS;
  for (let r = 0; r < 2 + runs; r++) {
    const probing = r === 1 + runs;
    for (const [i, c] of contenders.entries()) {
      const p = await c.prepare();
      gc();
      const before = process.memoryUsage().heapUsed;
      let steps = 0;
      const step = !probing
        ? () => {}
        : () => {
            if (++steps !== (CONCURRENT_TURNS * CONCURRENT_STEPS) / 2) return;
            gc();
            live[i] = (process.memoryUsage().heapUsed - before) / 1024 / CONCURRENT_TURNS;
          };
      const t0 = performance.now();
      const { peakHeapMiB } = await withHeapPeak(() => c.run(p, step), 2);
      const ms = performance.now() - t0;
      await c.o.cleanup?.(p);
      if (r === 0 && ms > SLOW_RUN_MS) runs = 3;
      if (r === 0 || probing) continue;
      rates[i]!.push((CONCURRENT_TURNS * CONCURRENT_STEPS) / (ms / 1000));
      heaps[i]!.push((peakHeapMiB * 2 ** 20 - before) / 1024 / CONCURRENT_TURNS);
    }
    if (r === runs && runs < STEP_RUNS) break; // (slow: no probe)
  }
  const range = (xs: number[]) => {
    const { min, max } = spread(xs, 1);
    return { min, max };
  };
  for (const [i, c] of contenders.entries()) {
    const ratios = Object.fromEntries(
      i > 0 ? [] : contenders.slice(1).map((other, j) => [`ratio_to_${other.o.name}`, spread(rates[0]!.map((x, k) => x / rates[j + 1]![k]!), 2)]),
    );
    report({
      metric: c.o.metric,
      n: CONCURRENT_TURNS,
      unit: "steps/s",
      name: c.o.name,
      value: Math.round(median(rates[i]!)),
      detail: {
        how: c.o.how,
        turns: CONCURRENT_TURNS,
        steps_per_turn: CONCURRENT_STEPS,
        runs_steps_per_s: rates[i]!.map((x) => Math.round(x)),
        ...range(rates[i]!),
        ...(contenders.length > 1
          ? {
              rounds: `interleaved with ${contenders
                .filter((x) => x !== c)
                .map((x) => x.o.name)
                .join(", ")}, one run each per round`,
            }
          : {}),
        ...ratios,
      },
    });
    report({
      metric: c.o.heapMetric,
      n: CONCURRENT_TURNS,
      unit: "KB",
      name: c.o.name,
      value: round(median(heaps[i]!), 1),
      detail: {
        what: "peak heapUsed during a run above the heap before it, ÷ turns (garbage not yet collected included)",
        live_halfway_kb: live[i] === null ? null : round(live[i]!, 1),
        live_halfway_how: "one more run: gc() when half of all steps are done, heapUsed above the heap before the run, ÷ turns",
        runs_kb: heaps[i]!.map((x) => round(x, 1)),
        ...range(heaps[i]!),
      },
    });
  }
}
