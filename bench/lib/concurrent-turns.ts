/**
 * The workload of the concurrency figures: CONCURRENT_TURNS conversations,
 * each sending one turn of CONCURRENT_STEPS steps (one changing tool call a
 * step, then the answer), all started at once in one process, through the
 * public API. Shared by ours-concurrent.ts (the figures) and
 * store-alone.ts (the file store's part of them).
 */
import { z } from "zod";
import { ai, tool, type Store } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { CONCURRENT_STEPS, CONCURRENT_TURNS, FINAL_TEXT, QUESTION, orderId, toolOutput } from "./measure.js";

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

/** CONCURRENT_TURNS conversations on `store`, ready to send (`dir`: the store's folder, removed by the caller). */
export interface Turns {
  store: Store;
  dir?: string;
  chats: { send: (q: string) => Promise<unknown> }[];
}

export function turns(store: Store, dir?: string): Turns {
  const run = ++seq;
  const chats = Array.from({ length: CONCURRENT_TURNS }, (_, i) => fn.conversation(`c${run}-${i}`, { store, lm: scripted(replies()) }));
  return dir === undefined ? { store, chats } : { store, dir, chats };
}

/** Sends every turn at once; `step` is called as each changing tool runs. */
export async function sendAll(p: Turns, step: () => void): Promise<void> {
  onStep = step;
  const answers = await Promise.all(p.chats.map((chat) => chat.send(QUESTION)));
  const wrong = answers.filter((a) => a !== FINAL_TEXT).length;
  if (wrong > 0) throw new Error(`ours concurrent: ${wrong} wrong answers`);
}
