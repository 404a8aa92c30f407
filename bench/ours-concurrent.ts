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
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { ai, memoryStore, tool, type Store } from "../src/index.js";
import { scripted } from "../src/testing/index.js";
import { fsStore } from "../adapters/node-fs/index.js";
import {
  CONCURRENT_STEPS,
  CONCURRENT_TURNS,
  FINAL_TEXT,
  QUESTION,
  concurrentRate,
  concurrentRates,
  main,
  orderId,
  toolOutput,
} from "./lib/measure.js";
import { bareWriters } from "./lib/writers.js";

let onStep = (): void => {};
const updateOrder = tool(
  "update_order",
  { description: "Mark the order as checked.", input: { order_id: z.string() }, effects: "changes" },
  ({ order_id }) => {
    onStep();
    return toolOutput(order_id);
  },
);
const fn = ai("answer", {
  description: "Answer the customer's question. Update each order.",
  input: { question: z.string() },
  output: z.string(),
  tools: [updateOrder],
  maxSteps: CONCURRENT_STEPS + 1,
});
const replies = () => [
  ...Array.from({ length: CONCURRENT_STEPS }, (_, k) => ({
    toolCalls: [{ id: `call_${k}`, name: "update_order", input: { order_id: orderId(k) } }],
  })),
  FINAL_TEXT,
];

let seq = 0;
interface Prepared {
  store: Store;
  dir?: string;
  chats: { send: (q: string) => Promise<unknown> }[];
}

function turns(store: Store, dir?: string): Prepared {
  const run = ++seq;
  const chats = Array.from({ length: CONCURRENT_TURNS }, (_, i) => fn.conversation(`c${run}-${i}`, { store, lm: scripted(replies()) }));
  return dir === undefined ? { store, chats } : { store, dir, chats };
}

async function all(p: Prepared, step: () => void): Promise<void> {
  onStep = step;
  const answers = await Promise.all(p.chats.map((chat) => chat.send(QUESTION)));
  const wrong = answers.filter((a) => a !== FINAL_TEXT).length;
  if (wrong > 0) throw new Error(`ours concurrent: ${wrong} wrong answers`);
}

async function cleanup(p: Prepared): Promise<void> {
  await p.store.close?.();
  if (p.dir !== undefined) rmSync(p.dir, { recursive: true, force: true });
}

const how = (store: string) =>
  `${CONCURRENT_TURNS} conversations on one ${store}, each send() of a turn of ${CONCURRENT_STEPS} changing tool steps, all started at once; steps ÷ wall time`;

/** Ours on the file store, in the same rounds as the bare writers (lib/writers.ts): the ratio is taken per round. */
async function fs(): Promise<void> {
  await concurrentRates([
    {
      o: { metric: "concurrent_durable_steps_per_s", heapMetric: "concurrent_heap_per_turn_kb", name: "ours", how: how("fsStore"), cleanup },
      prepare: () => {
        const dir = mkdtempSync(join(tmpdir(), "functai-bench-conc-"));
        return turns(fsStore(dir), dir);
      },
      run: all,
    },
    bareWriters(),
  ]);
}

async function memory(): Promise<void> {
  await concurrentRate(
    { metric: "concurrent_memory_steps_per_s", heapMetric: "concurrent_memory_heap_per_turn_kb", name: "ours", how: how("memoryStore"), cleanup },
    () => turns(memoryStore()),
    all,
  );
}

await main({ "concurrent-fs": fs, "concurrent-memory": memory });
