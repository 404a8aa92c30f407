import { z } from "zod";
import { ai, delegate, tool } from "../../src/index.js";
import type { LMRequest, Plugin } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

/** The refund desk's tools, each keeping a list of what it did (its side effects). */
export function deskTools() {
  const LOOKUPS: string[] = [];
  const REFUNDS: [string, number][] = [];
  const NOTES: string[] = [];
  const findOrder = tool("find_order", { description: "The order's status.", input: { order_id: z.string() }, effects: "reads" }, ({ order_id }) => {
    LOOKUPS.push(order_id);
    return { order_id, item: "kettle", paid: 39 };
  });
  const refund = tool("refund", { description: "Refund an amount.", input: { order_id: z.string(), amount: z.number() }, effects: "changes" }, ({ order_id, amount }) => {
    REFUNDS.push([order_id, amount]);
    return `refunded ${amount} for ${order_id}`;
  });
  // says nothing about its effects: every rule treats it as changing things
  const note = tool("note", { description: "Keep a note.", input: { text: z.string() } }, ({ text }) => {
    NOTES.push(text);
    return "noted";
  });
  return { findOrder, refund, note, LOOKUPS, REFUNDS, NOTES };
}

/** A desk (`{ message }`) with one changing tool, refund (`{ amount }`), and the amounts it refunded. */
export function amountDesk() {
  const REFUNDS: number[] = [];
  const refund = tool("refund", { description: "Refund.", input: { amount: z.number() }, effects: "changes" }, ({ amount }) => {
    REFUNDS.push(amount);
    return `refunded ${amount}`;
  });
  const fn = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [refund] });
  return { fn, refund, REFUNDS };
}

/** The tool messages of a request, as [name, content]. */
export const toolResults = (request: LMRequest | undefined): [string, string][] =>
  (request?.messages ?? []).flatMap((m) => (m.role === "tool" ? [[m.name, m.content] as [string, string]] : []));

/** A reply that repeats the last message the model was sent (to see what it saw). */
export const echoLast = (request: LMRequest): string => `saw: ${request.messages.at(-1)!.content}`;

/**
 * desk → delegate(billing, with `plugins` of its own) → refund (changes); a
 * model whose desk asks billing, billing asks for a refund of 39 for A-1042,
 * then each echoes what it saw.
 */
export function delegatedRefund(plugins: Plugin[] = []) {
  const t = deskTools();
  const billing = ai("billing", { description: "Billing.", input: { request: z.string() }, tools: [t.refund], plugins });
  const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [delegate(billing)] });
  const lm = scripted([
    { toolCalls: [{ name: "billing", input: { request: "refund A-1042" } }] },
    { toolCalls: [{ name: "refund", input: { order_id: "A-1042", amount: 39 } }] },
    echoLast,
    echoLast,
  ]);
  return { t, billing, desk, lm };
}

/**
 * How `p` settles within `ms`: "done", the code of what it rejected with
 * (else its text), or "hung". The stop tests' bound: the stop settles after
 * its 5 s grace; 20 s leaves room for a loaded machine's late timers.
 */
export async function settleOrHang(p: Promise<unknown>, ms = 20_000): Promise<string> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      p.then(
        () => "done",
        (e: unknown) => (e as { code?: string } | null)?.code ?? String(e),
      ),
      new Promise<string>((r) => (timer = setTimeout(() => r("hung"), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A desk that delegates to billing, whose `charge` changes things (a rule
 * on it makes billing's turn wait for a person); the model: desk calls
 * billing, billing calls charge, then both answer.
 */
export function chargeDesk() {
  const charges: string[] = [];
  const charge = tool("charge", { description: "Charge the card.", input: { note: z.string() }, effects: "changes" }, ({ note }) => {
    charges.push(note);
    return "charged";
  });
  const billing = ai("billing", { description: "Billing.", input: { request: z.string() }, tools: [charge] });
  const desk = ai("desk", { description: "Ask billing.", input: { message: z.string() }, tools: [delegate(billing)] });
  // desk calls billing; billing calls charge (asked: it changes), then both answer
  const lm = scripted([
    { toolCalls: [{ name: "billing", input: { request: "charge A-1" } }] },
    { toolCalls: [{ name: "charge", input: { note: "A-1" } }] },
    "billing: charged",
    "desk: billing says charged",
  ]);
  return { desk, lm, charges };
}
