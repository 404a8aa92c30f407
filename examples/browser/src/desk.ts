/**
 * The spec's refund desk: `find_order` only looks, `refund` pays. Each run
 * is written to the shared log (log.ts). A slow refund pays first, then
 * takes its time to return: close the tab meanwhile and the refund has
 * happened but the turn never heard back, which is what `turn.unfinished`
 * is for.
 */
import { z } from "zod";
import { ai, tool } from "functai";
import { log } from "./log.js";

export const ORDERS: Record<string, { item: string; paid: number; status: string }> = {
  "A-1042": { item: "kettle", paid: 39.0, status: "lost by the carrier" },
  "B-2210": { item: "toaster", paid: 24.5, status: "delivered" },
  "C-3303": { item: "teapot", paid: 18.0, status: "lost by the carrier" },
};

export interface DeskOptions {
  /** This tab's name, written with each log entry. */
  tab: string;
  /** How long a refund takes to return after paying (read at each run). */
  slowMs: () => number;
}

const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });

export function makeDesk({ tab, slowMs }: DeskOptions) {
  const at = (): string => new Date().toISOString();

  const findOrder = tool(
    "find_order",
    { description: "The order's item, price paid and shipping status.", input: { order_id: z.string() }, effects: "reads" },
    ({ order_id }, ctx) => {
      log({ kind: "tool", name: "find_order", invocation: ctx.invocation, phase: "start", tab, at: at() });
      const order = ORDERS[order_id] ?? { error: `no order ${order_id}` };
      log({ kind: "tool", name: "find_order", invocation: ctx.invocation, phase: "end", tab, at: at() });
      return order;
    },
  );

  const refund = tool(
    "refund",
    { description: "Refund an amount to the customer's card.", input: { order_id: z.string(), amount: z.number() }, effects: "changes" },
    async ({ order_id, amount }, ctx) => {
      log({ kind: "tool", name: "refund", invocation: ctx.invocation, phase: "start", tab, at: at() });
      log({ kind: "refund", order_id, amount, tab, at: at() }); // the money goes out here
      await sleep(slowMs(), ctx.signal);
      ctx.signal.throwIfAborted(); // stopped while it waited: it paid, but it did not finish
      log({ kind: "tool", name: "refund", invocation: ctx.invocation, phase: "end", tab, at: at() });
      return `refunded ${amount.toFixed(2)} for ${order_id}`;
    },
  );

  return ai("desk", {
    description: "Help the customer. Refund lost orders in full.",
    input: { message: z.string() },
    tools: [findOrder, refund],
  });
}

export type Desk = ReturnType<typeof makeDesk>;
