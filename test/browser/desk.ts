/**
 * The spec's refund desk for the browser tests: `find_order` reads,
 * `refund` changes. Counters are per desk, so each test sees its own; a
 * `hang` refund records its side effect, then never returns (the tab dies
 * before the tool does).
 */
import { z } from "zod";
import { ai, tool, type LMRequest } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

export const ORDERS: Record<string, object> = { "A-1042": { item: "kettle", paid: 39.0, status: "lost by the carrier" } };

export function desk(options: { hang?: boolean } = {}) {
  const REFUNDS: [string, number][] = [];
  const LOOKUPS: string[] = [];
  const findOrder = tool("find_order", { description: "The order's item, price paid and shipping status.", input: { order_id: z.string() }, effects: "reads" },
    ({ order_id }) => {
      LOOKUPS.push(order_id);
      return ORDERS[order_id] ?? {};
    });
  const refund = tool("refund", { description: "Refund an amount to the customer's card.", input: { order_id: z.string(), amount: z.number() }, effects: "changes" },
    async ({ order_id, amount }) => {
      REFUNDS.push([order_id, amount]);
      if (options.hang) await new Promise<never>(() => {});
      return `refunded ${amount.toFixed(2)} for ${order_id}`;
    });
  const fn = ai("desk", { description: "Help the customer. Refund lost orders in full.", input: { message: z.string() }, tools: [findOrder, refund] });
  return { fn, REFUNDS, LOOKUPS };
}

/** The model's last reply: what the last tool said. */
const last = (req: LMRequest): string => `The last tool said: ${req.messages.at(-1)!.content}`;

const ASKS = [
  { toolCalls: [{ name: "find_order", input: { order_id: "A-1042" } }] },
  { toolCalls: [{ name: "refund", input: { order_id: "A-1042", amount: 39 } }] },
];

/** The first tab's model: it asks for the order, then the refund; nothing more. */
export const firstTab = () => scripted(ASKS);

/** One tab's model for the whole turn: the order, the refund, then what the last tool said. */
export const oneTab = () => scripted([...ASKS, last]);

/** The second tab's model: only the last reply. Asked for an earlier one, it would answer wrongly or run out. */
export const secondTab = () => scripted([last]);

export const MESSAGE = "Order A-1042 never arrived. Refund it, please.";
