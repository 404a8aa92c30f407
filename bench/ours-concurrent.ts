/**
 * OUR side of the concurrency metrics: CONCURRENT_TURNS conversations, each
 * sending one turn of CONCURRENT_STEPS steps (one changing tool call per
 * step, then the answer), all started at once in this one process, through
 * the public API (`ai`, `tool`, `conversation().send`, `fsStore`,
 * `memoryStore`, `scripted`). See `concurrentRate` in lib/measure.ts.
 *
 * - fs: one `fsStore` on a fresh temp dir shared by every conversation (a
 *   server with many conversations): `concurrent_durable_steps_per_s`,
 *   `concurrent_heap_per_turn_kb`. Every step's changing tool has its
 *   `started` record fsynced before it runs. Its floor, the bare append+fsync
 *   writers (lib/writers.ts), runs in the same rounds (`concurrentRates`).
 * - memory: the same on one `memoryStore()`: the SDK's own cost under
 *   concurrency (`concurrent_memory_steps_per_s`, `concurrent_memory_heap_per_turn_kb`).
 */
import { memoryStore } from "../src/index.js";
import { dropStore as cleanup, sendAll, tempFsStore, turns } from "./lib/concurrent-turns.js";
import { CONCURRENT_STEPS, CONCURRENT_TURNS, concurrentRate, concurrentRates, main } from "./lib/measure.js";
import { bareWriters } from "./lib/writers.js";

const how = (store: string) =>
  `${CONCURRENT_TURNS} conversations on one ${store}, each send() of a turn of ${CONCURRENT_STEPS} changing tool steps, all started at once; steps ÷ wall time`;

/** Ours on the file store, in the same rounds as the bare writers (lib/writers.ts): the ratio is taken per round. */
async function fs(): Promise<void> {
  await concurrentRates([
    {
      o: { metric: "concurrent_durable_steps_per_s", heapMetric: "concurrent_heap_per_turn_kb", name: "ours", how: how("fsStore"), cleanup },
      prepare: () => turns(tempFsStore()),
      run: sendAll,
    },
    bareWriters(),
  ]);
}

async function memory(): Promise<void> {
  await concurrentRate(
    { metric: "concurrent_memory_steps_per_s", heapMetric: "concurrent_memory_heap_per_turn_kb", name: "ours", how: how("memoryStore"), cleanup },
    () => turns({ store: memoryStore() }),
    sendAll,
  );
}

await main({ "concurrent-fs": fs, "concurrent-memory": memory });
