/**
 * What the demo's processes share: the model (scripted unless a key is set),
 * the tools and AI functions of the spec's stories, and a little printing.
 *
 * The scripted "brains" below are functions of the request: each reads the
 * conversation the way a model would (the customer's message, the last tool
 * result) and answers from it. Being stateless, the same brain serves a turn
 * that is resumed in another process, where the replies recorded before are
 * read from the journal and only the new requests reach the model.
 */
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { z } from "zod";
import { ai, anthropic, configure, openai, tool, type LanguageModel, type LMRequest } from "functai";
import { scripted, type ScriptedReply } from "functai/testing";

// ---------------------------------------------------------------- printing

const useColour = process.stdout.isTTY === true && !process.env.NO_COLOR;
const paint = (code: string) => (s: string): string => (useColour ? `\x1b[${code}m${s}\x1b[0m` : s);
export const bold = paint("1");
export const dim = paint("2");
export const red = paint("31");
export const green = paint("32");
export const yellow = paint("33");
export const cyan = paint("36");

export const say = (line = ""): void => void process.stdout.write(`${line}\n`);
export const json = (v: unknown): string => JSON.stringify(v);

export function header(title: string): void {
  say();
  say(bold(title));
  say(bold("-".repeat(title.length)));
}

// ---------------------------------------------------------------- the model

export interface ModelChoice {
  /** A real model, or null: each story then gets a scripted one. */
  real: LanguageModel | null;
  label: string;
}

/** The model, from the environment: OPENAI_BASE_URL, OPENAI_API_KEY or ANTHROPIC_API_KEY; else scripted. */
export function chooseModel(env: NodeJS.ProcessEnv = process.env): ModelChoice {
  const named = env.FUNCTAI_MODEL;
  if (env.OPENAI_BASE_URL) {
    const model = named ?? "gpt-4.1-mini";
    return { real: openai({ model, baseURL: env.OPENAI_BASE_URL, apiKey: env.OPENAI_API_KEY ?? "none" }), label: `openai ${model} at ${env.OPENAI_BASE_URL} (OPENAI_BASE_URL)` };
  }
  if (env.OPENAI_API_KEY) {
    const model = named ?? "gpt-4.1-mini";
    return { real: openai({ model }), label: `openai ${model} (OPENAI_API_KEY)` };
  }
  if (env.ANTHROPIC_API_KEY) {
    const model = named ?? "claude-haiku-4-5";
    return { real: anthropic({ model }), label: `anthropic ${model} (ANTHROPIC_API_KEY)` };
  }
  return {
    real: null,
    label: "scripted (the embedded test model: no OPENAI_API_KEY, ANTHROPIC_API_KEY or OPENAI_BASE_URL set)",
  };
}

const choice = chooseModel();

// Every process of the demo sets the same settings: a resumed turn's requests
// must match the recorded ones (same messages, tools and settings) to reuse
// their replies; a request that differs is sent anew (it costs, never misleads).
configure({ temperature: 0 });
export const modelLabel = choice.label;
export const isScripted = choice.real === null;

/** A reply of the scripted model (text, or tool calls and text). */
export type Reply = Exclude<ScriptedReply, (...args: never[]) => unknown>;

/**
 * The real model when there is one; else a scripted model that answers every
 * request with `brain`, as a real model does: in the reply form
 * (`<result>\n…\n</result>`), streamed a few characters a chunk, so the demo
 * shows what a user sees with a real model.
 */
export function model(brain: (request: LMRequest) => Reply): LanguageModel {
  if (choice.real) return choice.real;
  // stateless: every request is answered by the same function of the request
  const replies = Array.from({ length: 16 }, () => (request: LMRequest) => withUsage(request, brain(request)));
  return scripted(replies, { model: "scripted", form: "reply", chunks: 7 });
}

/** Rough token counts (4 characters a token), so the printed usage looks like a real model's. */
function withUsage(request: LMRequest, reply: Reply): Reply {
  const r = typeof reply === "string" ? { text: reply } : reply;
  const inputChars = request.messages.reduce((n, m) => n + m.content.length, 0) + JSON.stringify(request.tools).length;
  const outputChars = (r.text ?? "").length + JSON.stringify(r.toolCalls ?? []).length;
  return { ...r, usage: { inputTokens: Math.ceil(inputChars / 4), outputTokens: Math.ceil(outputChars / 4) } };
}

/** How many requests a scripted model was sent (undefined for a real model). */
export const askedCount = (lm: LanguageModel): number | undefined =>
  "requests" in lm && Array.isArray(lm.requests) ? lm.requests.length : undefined;

const userText = (req: LMRequest): string => req.messages.filter((m) => m.role === "user").map((m) => m.content).join("\n");
const lastTool = (req: LMRequest) => {
  const m = req.messages.at(-1);
  return m?.role === "tool" ? m : undefined;
};
const orderIdIn = (text: string): string => /[A-Z]-\d{4}/.exec(text)?.[0] ?? "A-1042";
const parse = (text: string): Record<string, unknown> => {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return {};
  }
};

// ---------------------------------------------------------------- story 1: a first tool

const ORDERS: Record<string, { item: string; status: string; shipped?: string }> = {
  "A-1042": { item: "kettle", status: "stuck at carrier", shipped: "2026-09-02" },
  "B-2210": { item: "toaster", status: "delivered" },
};

export const lookupOrder = tool(
  "lookup_order",
  { description: "The order's item and shipping status.", input: { order_id: z.string() }, effects: "reads" },
  ({ order_id }) => ORDERS[order_id] ?? { error: `no order ${order_id}` },
);

export const answer = ai("answer", {
  description: "Answer the customer's question. Look the order up first.",
  input: { question: z.string() },
  output: z.string(),
  tools: [lookupOrder],
});

/** Looks the order up, then says what the lookup said. */
export function answerBrain(req: LMRequest): Reply {
  const result = lastTool(req);
  const id = orderIdIn(userText(req));
  if (!result) return { toolCalls: [{ name: "lookup_order", input: { order_id: id } }] };
  const o = parse(result.content);
  if (typeof o.error === "string") return `Sorry, I could not find that order (${o.error}).`;
  const shipped = typeof o.shipped === "string" ? ` It was shipped on ${o.shipped}.` : "";
  return `Your order ${id}, a ${String(o.item)}, is ${String(o.status)}.${shipped}`;
}

// ---------------------------------------------------------------- story 2: the refund desk

/** The refund desk; every tool run is also written to `ledger` (a file), so runs can be counted across processes. */
export function makeDesk(ledger?: string) {
  const REFUNDS: [string, number][] = [];
  const LOOKUPS: string[] = [];
  const log = (line: string): void => {
    if (ledger) appendFileSync(ledger, `${line}\n`);
  };
  const findOrder = tool(
    "find_order",
    { description: "The order's item, price paid and shipping status.", input: { order_id: z.string() }, effects: "reads" },
    ({ order_id }) => {
      LOOKUPS.push(order_id);
      log(`find_order ${order_id} (process ${process.pid})`);
      return ({ "A-1042": { item: "kettle", paid: 39.0, status: "lost by the carrier" } } as Record<string, object>)[order_id] ?? {};
    },
  );
  const refund = tool(
    "refund",
    { description: "Refund an amount to the customer's card.", input: { order_id: z.string(), amount: z.number() }, effects: "changes" },
    ({ order_id, amount }) => {
      REFUNDS.push([order_id, amount]);
      log(`refund ${order_id} ${amount.toFixed(2)} (process ${process.pid})`);
      return `refunded ${amount.toFixed(2)} for ${order_id}`;
    },
  );
  const desk = ai("desk", {
    description: "Help the customer. Refund lost orders in full.",
    input: { message: z.string() },
    output: z.string(),
    tools: [findOrder, refund],
  });
  return { desk, REFUNDS, LOOKUPS };
}

/** Finds the order, refunds it in full when it was lost, then says what the refund tool said. */
export function deskBrain(req: LMRequest): Reply {
  const result = lastTool(req);
  const id = orderIdIn(userText(req));
  if (!result) return { toolCalls: [{ name: "find_order", input: { order_id: id } }] };
  if (result.name === "find_order") {
    const o = parse(result.content);
    if (typeof o.paid === "number" && /lost/.test(String(o.status)))
      return { toolCalls: [{ name: "refund", input: { order_id: id, amount: o.paid } }] };
    return `Order ${id} is ${String(o.status ?? "unknown to me")}; nothing to refund.`;
  }
  const refused = /^The person did not allow this call\.(?: Reason: (.*))?$/s.exec(result.content);
  if (refused) {
    // the reason is written to the model, not to the customer: act on it, as a model would, without quoting it
    const why = refused[1] ?? "";
    const manager = /manager/i.test(why) ? " A manager will look at your refund, and we will write to you." : "";
    const replacement = /replace/i.test(why) ? " I can send you a new kettle instead: shall I?" : "";
    return `I'm sorry, your kettle (order ${id}) was lost by the carrier, and I could not refund it here.${manager}${replacement}`;
  }
  return `Your kettle (order ${id}) was lost by the carrier: ${result.content}. Sorry for the trouble!`;
}

/** How many times each tool ran, from a ledger file. */
export function countRuns(ledger: string): Record<string, number> {
  const counts: Record<string, number> = {};
  if (!existsSync(ledger)) return counts;
  for (const line of readFileSync(ledger, "utf8").split("\n")) {
    const name = line.split(" ")[0];
    if (name) counts[name] = (counts[name] ?? 0) + 1;
  }
  return counts;
}

// ---------------------------------------------------------------- story 3: when the process dies

export const EMAIL_REQUEST = "Email sam@example.com: the meeting moves to 3pm.";

/** Writes a sent email to `file`, one JSON line per email (an email's text may hold line breaks). */
export const recordEmail = (file: string, to: string, text: string): void => appendFileSync(file, `${JSON.stringify({ to, text })}\n`);

/** The emails written to `file`: one per line, however many lines each one's text has. */
export function emailsIn(file: string): { to: string; text: string }[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8").split("\n").filter((line) => line !== "").map((line) => JSON.parse(line) as { to: string; text: string });
}

/** The file (in the store folder) where the second process writes how long its prompt waited for a person, in ms. */
export const PROMPT_FILE = "prompt-ms.txt";

/** The assistant that sends email; `send` is what sending does (the child process dies in it). */
export function makeAssistant(send: (to: string, text: string) => string) {
  const sendEmail = tool(
    "send_email",
    { description: "Send an email.", input: { to: z.string(), text: z.string() }, effects: "changes" },
    ({ to, text }) => send(to, text),
  );
  return ai("assistant", {
    description: "Do what the user asks, with the tools.",
    input: { message: z.string() },
    output: z.string(),
    tools: [sendEmail],
  });
}

/** Sends the email the message asks for, then says what send_email returned. */
export function emailBrain(req: LMRequest): Reply {
  const result = lastTool(req);
  // an email as a model writes one: several lines
  if (!result) return { toolCalls: [{ name: "send_email", input: { to: "sam@example.com", text: "Hi Sam,\n\nThe meeting moves to 3pm.\n\nBest" } }] };
  return `The email to sam@example.com went out (send_email said: ${result.content}): the meeting moves to 3pm.`;
}
