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
 * call per step), TOTAL steps at each n. Flat across n: a step does not
 * allocate in proportion to the steps before it.
 */
import { PerformanceObserver, constants } from "node:perf_hooks";
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

const lookup = tool("lookup_order", { description: "The order's item and shipping status.", input: { order_id: z.string() }, effects: "reads" }, ({ order_id }) => toolOutput(order_id));
const settle = () => new Promise((r) => setTimeout(r, 50)); // (gc entries arrive on a later tick)

for (const n of [50, 200, 1000]) {
  const fn = ai("answer", { description: "Answer.", input: { question: z.string() }, output: z.string(), tools: [lookup], maxSteps: n + 1 });
  const turn = async (id: string) => {
    const replies = [...Array.from({ length: n }, (_, k) => ({ toolCalls: [{ id: `call_${k}`, name: "lookup_order", input: { order_id: orderId(k) } }] })), FINAL_TEXT];
    if ((await fn.conversation(id, { store: memoryStore(), lm: scripted(replies) }).send(QUESTION)) !== FINAL_TEXT) throw new Error("wrong answer");
  };
  for (let w = 0; w < 3; w++) await turn(`warm-${n}-${w}`);
  await settle();
  scavenges = 0;
  for (let r = 0; r < TOTAL / n; r++) await turn(`run-${n}-${r}`);
  await settle();
  console.log(`n=${n}: ${scavenges} scavenges in ${TOTAL} steps ≈ ${((scavenges * SEMI_SPACE_MIB * 1024) / TOTAL).toFixed(1)} KiB allocated per step`);
}
