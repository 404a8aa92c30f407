/**
 * The workload of the concurrency figures: CONCURRENT_TURNS conversations,
 * each sending one turn of CONCURRENT_STEPS steps (one changing tool call a
 * step, then the answer), all started at once in one process, through the
 * public API. Shared by ours-concurrent.ts (the figures) and
 * store-alone.ts (the file store's part of them).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { fsStore } from "../../adapters/node-fs/index.js";
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

/** A store, and the temp folder it keeps its files in (none for a memory store). */
export interface Placed {
  store: Store;
  dir?: string;
}

/** `count` conversations (CONCURRENT_TURNS by default) on a store, ready to send. */
export interface Turns extends Placed {
  chats: { send: (q: string) => Promise<unknown> }[];
}

export function turns({ store, dir }: Placed, count = CONCURRENT_TURNS): Turns {
  const run = ++seq;
  const chats = Array.from({ length: count }, (_, i) => fn.conversation(`c${run}-${i}`, { store, lm: scripted(replies()) }));
  return dir === undefined ? { store, chats } : { store, dir, chats };
}

/** An `fsStore` on a fresh temp folder. */
export function tempFsStore(): Placed & { dir: string } {
  const dir = mkdtempSync(join(tmpdir(), "functai-bench-conc-"));
  return { store: fsStore(dir), dir };
}

/** Closes the store and removes its folder. */
export async function dropStore(p: Placed): Promise<void> {
  await p.store.close?.();
  if (p.dir !== undefined) rmSync(p.dir, { recursive: true, force: true });
}

/** Sends every turn at once; `step` is called as each changing tool runs. */
export async function sendAll(p: Turns, step: () => void): Promise<void> {
  onStep = step;
  const answers = await Promise.all(p.chats.map((chat) => chat.send(QUESTION)));
  const wrong = answers.filter((a) => a !== FINAL_TEXT).length;
  if (wrong > 0) throw new Error(`ours concurrent: ${wrong} wrong answers`);
}
