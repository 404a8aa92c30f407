/**
 * The model: scripted by default, or any OpenAI-compatible endpoint.
 *
 * The scripted "brain" is a function of the request, as a model is: it reads
 * the customer's message and the tool results so far, and asks for the next
 * tool or answers. Being stateless, it serves a turn resumed in another tab
 * just as well, where the replies recorded before come from the journal and
 * only new requests reach it.
 */
import { openai, type LanguageModel, type LMRequest, type Message } from "functai";
import { scripted } from "functai/testing";

type Reply = string | { text?: string; toolCalls?: { id?: string; name: string; input: unknown }[] };

const toolResults = (messages: Message[], name: string): string[] =>
  messages.flatMap((m) => (m.role === "tool" && m.name === name ? [m.content] : []));

const parse = (text: string | undefined): Record<string, unknown> => {
  try {
    return JSON.parse(text ?? "{}") as Record<string, unknown>;
  } catch {
    return {};
  }
};

/** What the desk's model says next, given the request. */
export function deskBrain(request: LMRequest): Reply {
  const user = [...request.messages].reverse().find((m) => m.role === "user")?.content ?? "";
  const message = /<message>\s*([\s\S]*?)\s*<\/message>/.exec(user)?.[1] ?? user;
  const orderId = /\b[A-Z]-\d{4}\b/.exec(message)?.[0];
  const id = `call_${request.messages.length}`;
  if (!orderId) return "Which order is it? Give me its number, like A-1042.";

  const found = toolResults(request.messages, "find_order");
  if (found.length === 0) return { toolCalls: [{ id, name: "find_order", input: { order_id: orderId } }] };
  const order = parse(found.at(-1));
  if (typeof order.error === "string") return `I could not find order ${orderId}.`;

  const lost = String(order.status).includes("lost");
  const refunded = toolResults(request.messages, "refund");
  if (lost && /refund|money back/i.test(message) && refunded.length === 0)
    return { toolCalls: [{ id, name: "refund", input: { order_id: orderId, amount: Number(order.paid) } }] };
  const said = refunded.at(-1);
  if (said === undefined) return `Order ${orderId} (${String(order.item)}) is ${String(order.status)}.`;
  if (said.startsWith("The person did not allow this call")) {
    const reason = /Reason:\s*([\s\S]*)$/.exec(said)?.[1]?.trim();
    return `I could not refund order ${orderId}: a person said no${reason ? ` (${reason})` : ""}.`;
  }
  return `Order ${orderId}, the ${String(order.item)}, was ${String(order.status)}: ${said}.`;
}

/** A scripted model that answers every request with `deskBrain` (never runs out). */
export function scriptedDesk(): LanguageModel {
  return {
    specificationVersion: "functai.lm.v1",
    provider: "scripted",
    model: "scripted desk",
    nativeTools: true,
    // a one-reply scripted model per request, replying as a real one does: in the reply form, a few characters a chunk
    generate: (request, options) => scripted([deskBrain], { form: "reply", chunks: 6 }).generate(request, options),
  };
}

export interface EndpointChoice {
  baseURL: string;
  apiKey: string;
  model: string;
}

/** The endpoint when a base URL and a model are filled in (a local server may need no key), else the scripted desk. */
export function chooseModel(choice: EndpointChoice): { lm: LanguageModel; label: string } {
  const { baseURL, apiKey, model } = choice;
  if (baseURL.trim() && model.trim())
    return { lm: openai({ baseURL: baseURL.trim(), apiKey: apiKey.trim() || "none", model: model.trim() }), label: `${model.trim()} at ${baseURL.trim()}` };
  return { lm: scriptedDesk(), label: "scripted desk (no endpoint given)" };
}
