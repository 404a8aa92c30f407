/**
 * A served desk over a folder store, in a process of its own, for the hunt3
 * tests that kill or pause the serving process at an exact moment. Run as
 * `hunt3-server.ts <dir> <effects file> <mode>`; prints `url <url>`, then
 * serves until killed. Every model reply it pays for and every refund it
 * runs is appended to the effects file (`paid <pid>`, `refund <pid>`), so
 * the parent counts them whatever became of this process.
 *
 * Modes:
 * - `kill-in-tool`: the refund writes its effect, prints `refund-start` and
 *   never returns (the parent SIGKILLs the process there).
 * - `stop-after-answer`: right after the append that keeps a person's answer
 *   returned, prints `answered` and stops itself (SIGSTOP), before the turn
 *   is claimed; once continued it goes on as usual.
 * - `kill-after-answer`: the same moment, but the process SIGKILLs itself.
 * - `plain`: serves, nothing more.
 */
import { appendFileSync } from "node:fs";
import { z } from "zod";
import { fsStore } from "../../../adapters/node-fs/index.js";
import { serve } from "../../../adapters/websocket/index.js";
import { ai, tool } from "../../../src/index.js";
import type { Store } from "../../../src/store/types.js";
import { deskReplies } from "./desk-replies.js";

const [dir, effects, mode] = process.argv.slice(2) as [string, string, string];
const effect = (what: string): void => appendFileSync(effects, `${what} ${process.pid}\n`);

const findOrder = tool("find_order", { description: "The order's item, price paid and shipping status.", input: { order_id: z.string() }, effects: "reads" },
  ({ order_id }) => ({ "A-1042": { item: "kettle", paid: 39.0, status: "lost by the carrier" } } as Record<string, object>)[order_id] ?? {});
const refund = tool("refund", { description: "Refund an amount to the customer's card.", input: { order_id: z.string(), amount: z.number() }, effects: "changes" },
  async ({ order_id, amount }) => {
    effect("refund");
    if (mode === "kill-in-tool") {
      process.stdout.write("refund-start\n");
      await new Promise(() => undefined); // killed here
    }
    return `refunded ${amount.toFixed(2)} for ${order_id}`;
  });
const desk = ai("desk", { description: "Help the customer. Refund lost orders in full.", input: { message: z.string() }, tools: [findOrder, refund] });

const lm = deskReplies(() => effect("paid"));

const inner = fsStore(dir);
const isAnswer = (r: object): boolean => (r as { kind?: unknown }).kind === "approval";
/** The folder store, with the moment after an answer is kept made visible (and, by mode, fatal or paused). */
const store: Store = new Proxy(inner, {
  get(target, key, receiver) {
    if (key !== "append") {
      const value = Reflect.get(target, key, receiver) as unknown;
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    }
    return async (conversation: string, records: readonly object[], opts?: { expect?: number; durable?: boolean }) => {
      const length = await target.append(conversation, records, opts);
      if (records.some(isAnswer)) {
        process.stdout.write("answered\n");
        if (mode === "kill-after-answer") process.kill(process.pid, "SIGKILL");
        if (mode === "stop-after-answer") process.kill(process.pid, "SIGSTOP");
      }
      return length;
    };
  },
});

// a short lease: a killed server's turn reads interrupted within a second, not the default's half minute
const server = await serve({ store, programs: [desk.using({ lm })], port: 0, pollMs: 50, settings: { approve: "changes", lease: { renewMs: 200, ttlMs: 1000 } } });
process.stdout.write(`url ${server.url}\n`);
process.once("SIGTERM", () => void server.close().then(() => process.exit(0)));
