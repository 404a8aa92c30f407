/**
 * By hand (not run by `run.ts`): how much of `concurrent_durable_steps_per_s`'
 * gap to the bare writers is the file store's, and how much the rest of the
 * SDK's.
 *
 *   node --expose-gc --conditions=functai-source --import tsx bench/store-alone.ts
 *
 * Three contenders in interleaved rounds (lib/interleave.ts), each the
 * concurrency workload of 200 conversations × 10 changing-tool steps
 * (lib/concurrent-turns.ts):
 * - `bare writers`: lib/writers.ts, one fsynced line a step;
 * - `store alone`: the batches one of those turns appends (recorded from a
 *   turn on a memory store, the same records, the same `durable` flags),
 *   appended by 200 loops at once to one `fsStore`, each batch after the one
 *   before resolved, with nothing of the SDK around them;
 * - `ours`: the turns themselves on one `fsStore`.
 *
 * For each: steps per second (median, range), its ratio to the bare writers
 * within each round, and the main thread's busy time per step
 * (`performance.eventLoopUtilization`): the bare writers leave their work to
 * libuv's pool, the file store does its locked write on the main thread.
 */
import { performance } from "node:perf_hooks";
import { isDurable } from "../src/store/checks.js";
import { memoryStore, type Store } from "../src/index.js";
import { dropStore, sendAll, tempFsStore, turns, type Placed, type Turns } from "./lib/concurrent-turns.js";
import { interleaved } from "./lib/interleave.js";
import { CONCURRENT_STEPS, CONCURRENT_TURNS, STEP_RUNS, median, spread } from "./lib/measure.js";
import { bareWriters } from "./lib/writers.js";

const STEPS = CONCURRENT_TURNS * CONCURRENT_STEPS;

interface Batch {
  records: readonly object[];
  durable: boolean;
}

/** The batches one turn of the workload appends, in order: recorded from a turn on a memory store. */
async function recordBatches(): Promise<Batch[]> {
  const inner = memoryStore();
  const batches: Batch[] = [];
  const recording: Store = Object.assign(Object.create(inner) as Store, {
    append: (id: string, records: readonly object[], opts?: { expect?: number; durable?: boolean }) => {
      batches.push({ records: structuredClone(records), durable: isDurable(opts) });
      return inner.append(id, records, opts);
    },
  });
  await sendAll(turns({ store: recording }, 1), () => {});
  if (batches.length === 0) throw new Error("store-alone: the turn appended nothing");
  return batches;
}

/** Each contender's figures, one per timed round. */
interface Figures {
  rate: number[];
  mainUs: number[];
}

/** Times `work` (wall and main-thread busy time), then cleans up untimed. */
async function measured(f: Figures, work: () => Promise<void>, cleanup: () => void | Promise<void>): Promise<void> {
  const e0 = performance.eventLoopUtilization();
  const t0 = performance.now();
  await work();
  const ms = performance.now() - t0;
  const busy = performance.eventLoopUtilization(e0).active; // ms
  f.rate.push(STEPS / (ms / 1000));
  f.mainUs.push((busy * 1000) / STEPS);
  await cleanup();
}

const batches = await recordBatches();
const kept = batches.filter((b) => b.durable).length;
const names = ["bare writers", "store alone", "ours"] as const;
const figures = Object.fromEntries(names.map((n) => [n, { rate: [], mainUs: [] } as Figures])) as Record<(typeof names)[number], Figures>;
const bare = bareWriters();
let run = 0;

const WARMUP = 2;
await interleaved(
  {
    "bare writers": {
      prepare: () => bare.prepare(),
      run: (dir: string) =>
        measured(
          figures["bare writers"],
          () => bare.run(dir, () => {}),
          () => bare.o.cleanup?.(dir),
        ),
    },
    "store alone": {
      prepare: tempFsStore,
      run: (t: Placed) =>
        measured(
          figures["store alone"],
          async () => {
            const r = ++run;
            await Promise.all(
              Array.from({ length: CONCURRENT_TURNS }, async (_, i) => {
                const id = `a${r}-${i}`;
                let length = 0;
                for (const b of batches) length = await t.store.append(id, b.records, { expect: length, durable: b.durable });
              }),
            );
          },
          () => dropStore(t),
        ),
    },
    ours: {
      prepare: () => turns(tempFsStore()),
      run: (t: Turns) =>
        measured(
          figures.ours,
          () => sendAll(t, () => {}),
          () => dropStore(t),
        ),
    },
  },
  { warmup: WARMUP, rounds: STEP_RUNS },
);
// `measured` records every round, the warm-up ones too: keep the timed rounds only, and refuse to print
// from anything else (a figure that counted its warm-up would read the JIT's first passes as the store's cost)
for (const n of names) {
  const f = figures[n];
  if (f.rate.length !== WARMUP + STEP_RUNS) throw new Error(`store-alone: ${n} ran ${f.rate.length} rounds, not ${WARMUP + STEP_RUNS}`);
  f.rate.splice(0, WARMUP);
  f.mainUs.splice(0, WARMUP);
}

const fmt = (x: number) => Math.round(x).toLocaleString("en-US");
console.log(
  `${CONCURRENT_TURNS} at once × ${CONCURRENT_STEPS} changing steps; a turn appends ${batches.length} batches (${kept} kept before they resolve, ${batches.length - kept} only written); ${STEP_RUNS} rounds`,
);
for (const n of names) {
  const f = figures[n];
  const { min, max } = spread(f.rate, 0);
  const ratio = spread(
    f.rate.map((x, i) => x / figures["bare writers"].rate[i]!),
    2,
  );
  const main = spread(f.mainUs, 1);
  console.log(
    `${n.padEnd(13)} ${fmt(median(f.rate))} steps/s (${fmt(min)}–${fmt(max)})` +
      (n === "bare writers" ? "" : `, ${ratio.median}× the writers (${ratio.min}–${ratio.max})`) +
      `; main thread ${main.median} µs a step (${main.min}–${main.max})`,
  );
}
