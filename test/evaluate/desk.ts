/**
 * A small order desk for the evaluation tests: a tool that reads orders and
 * one that changes things, and scripted models whose behaviour depends on
 * what they are sent (as a real model's would): the "student" guesses
 * unless its request shows a worked example that used a tool; the "teacher"
 * always looks the order up.
 */
import { z } from "zod";
import { ai, tool, type LMRequest, type Message } from "../../src/index.js";
import { scripted, type ScriptedLM } from "../../src/testing/index.js";

export const ORDERS: Record<string, { item: string; status: string }> = {
  "A-1042": { item: "kettle", status: "stuck at the carrier" },
  "B-2210": { item: "lamp", status: "delivered" },
  "C-3301": { item: "chair", status: "in the warehouse" },
  "D-4410": { item: "rug", status: "out for delivery" },
  "E-5520": { item: "desk", status: "delivered" },
  "F-6630": { item: "mug", status: "returned to sender" },
};

export const lookups: string[] = [];
export const refunds: string[] = [];

export const lookupOrder = tool(
  "lookup_order",
  { description: "The order's item and shipping status.", input: { order_id: z.string() }, effects: "reads" },
  ({ order_id }) => {
    lookups.push(order_id);
    return ORDERS[order_id] ?? { error: `no order ${order_id}` };
  },
);

export const refund = tool(
  "refund",
  { description: "Refund an order.", input: { order_id: z.string() }, effects: "changes" },
  ({ order_id }) => {
    refunds.push(order_id);
    return `refunded ${order_id}`;
  },
);

export const status = ai("status", {
  description: "Say the order's shipping status, in the words the tool gives.",
  input: { question: z.string() },
  tools: [lookupOrder, refund],
});

/** Rows whose right answer needs the tool. */
export const rows = Object.entries(ORDERS).map(([id, o]) => ({ question: `What is the status of ${id}?`, result: o.status }));

const orderIn = (text: string): string => /[A-Z]-\d{4}/.exec(text)?.[0] ?? "?";
const liveQuestion = (r: LMRequest): string => {
  const users = r.messages.filter((m): m is Extract<Message, { role: "user" }> => m.role === "user" && m.content.startsWith("<question>"));
  return users.at(-1)?.content ?? "";
};

/** The reply of a model that reads what it is sent. `useTool` decides whether it looks the order up. */
function reply(r: LMRequest, useTool: (r: LMRequest) => boolean) {
  const last = r.messages.at(-1)!;
  const question = liveQuestion(r);
  if (last.role === "tool" || (last.role === "user" && last.content.startsWith("<tool_result"))) {
    const body = last.role === "tool" ? last.content : /\n([\s\S]*)\n<\/tool_result>/.exec(last.content)?.[1] ?? "{}";
    const found = body.startsWith("{") ? (JSON.parse(body) as { status?: string; error?: string }) : { status: body };
    return `<result>\n${found.status ?? found.error}\n</result>`;
  }
  if (/refund/i.test(question)) return { toolCalls: [{ name: "refund", input: { order_id: orderIn(question) } }] };
  if (useTool(r)) return { toolCalls: [{ name: "lookup_order", input: { order_id: orderIn(question) } }] };
  return "<result>\nIt is on its way.\n</result>";
}

/** Whether the request shows an example that called a tool (natively, or as text). */
export const showsToolUse = (r: LMRequest): boolean =>
  r.messages.some((m) => (m.role === "assistant" && (m.toolCalls?.length ?? 0) > 0) || (m.role === "assistant" && m.content.includes("<tool_call>")));

const many = (f: (r: LMRequest) => ReturnType<typeof reply>): ((r: LMRequest) => ReturnType<typeof reply>)[] => Array.from({ length: 2000 }, () => f);

/** Guesses unless an example in its request shows a tool call. */
export const student = (options: { nativeTools?: boolean } = {}): ScriptedLM => scripted(many((r) => reply(r, showsToolUse)), options);
/** Always looks the order up. */
export const teacher = (options: { nativeTools?: boolean } = {}): ScriptedLM => scripted(many((r) => reply(r, () => true)), options);
