/** Hunt 14's refund desk: a changing refund tool, the desk that calls it, and a model that calls it once, then answers. */
import { z } from "zod";
import { ai, tool } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

export function desk() {
  const REFUNDS: string[] = [];
  const refund = tool("refund", { description: "Refund an order.", input: { order_id: z.string() }, effects: "changes" }, ({ order_id }) => {
    REFUNDS.push(order_id);
    return `refunded ${order_id}`;
  });
  const fn = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [refund] });
  const lm = scripted([{ toolCalls: [{ name: "refund", input: { order_id: "A-1" } }] }, "Refunded."]);
  return { fn, lm, REFUNDS };
}
