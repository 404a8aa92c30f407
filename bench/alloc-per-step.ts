/**
 * Heap allocated per tool step, at several turn lengths: a figure the load of
 * a shared machine does not move (wall and even CPU time do). Run by hand:
 *
 *   node --min-semi-space-size=16 --max-semi-space-size=16 --conditions=functai-source --import tsx bench/alloc-per-step.ts
 *
 * With the young generation held at 16 MiB, every scavenge follows 16 MiB
 * of allocation; scavenges (observed as `gc` performance entries) × 16 MiB ÷
 * steps is the allocation per step, to within one scavenge. The workload is
 * ours.ts's `step` (a conversation turn on `memoryStore()`, one `reads` tool
 * call per step), TOTAL steps at each n; then the same with a `changes` tool
 * (its `started` record is written before it runs: a batch more a step).
 * Flat across n: a step does not allocate in proportion to the steps before
 * it. `--effects=changes` (or `reads`) measures only that one. The time per
 * step is printed beside it, for reference only: the machine's load moves it.
 */
import { PerformanceObserver, constants, performance } from "node:perf_hooks";
import { z } from "zod";
import { ai, memoryStore, tool } from "../src/index.js";
import { scripted } from "../src/testing/index.js";
import { FINAL_TEXT, QUESTION, orderId, toolOutput } from "./lib/measure.js";

const TOTAL = 20_000;
const SEMI_SPACE_MIB = 16;
let scavenges = 0;
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) if ((e as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR) scavenges++;
}).observe({ entryTypes: ["gc"] });

const settle = () => new Promise((r) => setTimeout(r, 50)); // (gc entries arrive on a later tick)
const only = process.argv.find((a) => a.startsWith("--effects="))?.slice("--effects=".length);
const kinds = (["reads", "changes"] as const).filter((effects) => only === undefined || only === effects);
if (kinds.length === 0) throw new Error(`--effects is reads or changes, not ${only}`);

for (const effects of kinds) for (const n of [50, 200, 1000]) await measure(effects, n);

async function measure(effects: "reads" | "changes", n: number): Promise<void> {
  const lookup = tool("lookup_order", { description: "The order's item and shipping status.", input: { order_id: z.string() }, effects }, ({ order_id }) => toolOutput(order_id));
  const fn = ai("answer", { description: "Answer.", input: { question: z.string() }, output: z.string(), tools: [lookup], maxSteps: n + 1 });
  const turn = async (id: string) => {
    const replies = [...Array.from({ length: n }, (_, k) => ({ toolCalls: [{ id: `call_${k}`, name: "lookup_order", input: { order_id: orderId(k) } }] })), FINAL_TEXT];
    if ((await fn.conversation(id, { store: memoryStore(), lm: scripted(replies) }).send(QUESTION)) !== FINAL_TEXT) throw new Error("wrong answer");
  };
  for (let w = 0; w < 3; w++) await turn(`warm-${n}-${w}`);
  await settle();
  scavenges = 0;
  const t0 = performance.now();
  for (let r = 0; r < TOTAL / n; r++) await turn(`run-${n}-${r}`);
  const us = ((performance.now() - t0) * 1000) / TOTAL;
  await settle();
  const kib = ((scavenges * SEMI_SPACE_MIB * 1024) / TOTAL).toFixed(1);
  console.log(`${effects} n=${n}: ${scavenges} scavenges in ${TOTAL} steps ≈ ${kib} KiB allocated per step (${us.toFixed(1)} µs a step)`);
}
