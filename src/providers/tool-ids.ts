/**
 * Tool call ids (and names) a provider would refuse, made into ones it takes
 * as a request is written. A conversation may have begun on another model
 * (a local server's "call:0", "functions.lookup:0", the same "call_0" in
 * every reply, an id longer than OpenAI takes): the history keeps the ids
 * that model gave, and the next provider must still be able to read it.
 *
 * Only the wire request changes: the provider-neutral messages, which the
 * journal keeps and request keys are computed from, do not. The mapping is a
 * pure function of the messages, so the same history is sent as the same
 * bytes each time; an id the provider takes is sent as it is, so a history
 * that was always accepted is sent exactly as before.
 */
import type { Message, ToolCall } from "../lm/types.js";

/** What a provider takes, and how a refused id is made into one it takes. */
export interface IdRule {
  /** Whether the provider takes this call id as it is. */
  accepts(id: string): boolean;
  /**
   * Where a call's id must be its own: in the whole request (Anthropic refuses one it has seen), or among its reply's
   * calls (OpenAI refuses two results naming one id after one message: "Duplicate value for 'tool_call_id'").
   */
  unique: "request" | "reply";
  /** The `n`th (from 1) id to try for a refused `id`; each must be one `accepts` takes. */
  made(id: string, n: number): string;
  /** The name sent for a call's name the provider would refuse (undefined: names are sent as they are). */
  name?(name: string): string;
}

const needsWork = (messages: readonly Message[], rule: IdRule): boolean => {
  const seen = new Set<string>();
  for (const m of messages) {
    if (m.role === "tool" && !rule.accepts(m.toolCallId)) return true;
    if (m.role !== "assistant") continue;
    if (rule.unique === "reply") seen.clear();
    for (const call of m.toolCalls ?? []) {
      if (!rule.accepts(call.id) || seen.has(call.id)) return true;
      if (rule.name !== undefined && rule.name(call.name) !== call.name) return true;
      seen.add(call.id);
    }
  }
  return false;
};

/**
 * The messages with every call id the provider would refuse replaced (an id
 * that is refused, or one an earlier call of the request has, where ids must
 * be unique in it, or of its reply).
 * A call keeps its id the first time it comes and the provider takes it. A
 * made id is none of the request's own ids, nor one made before. A tool
 * result gets the id its call was sent with: that of the first call of the
 * assistant message before it with its id and no result yet (calls of one
 * reply may share an id), else of the last such call.
 */
export function withWireIds(messages: readonly Message[], rule: IdRule): readonly Message[] {
  if (!needsWork(messages, rule)) return messages; // (a history the provider takes: sent exactly as before)
  const own = new Set<string>();
  for (const m of messages) if (m.role === "assistant") for (const call of m.toolCalls ?? []) own.add(call.id);
  const sent = new Set<string>();
  // the ids sent for the calls of the reply being written
  const reply = new Set<string>();
  let open: { id: string; wire: string; answered: boolean }[] = [];
  const wireId = (id: string): string => {
    if (rule.accepts(id) && !(rule.unique === "request" ? sent : reply).has(id)) return id;
    let n = 1;
    let made = rule.made(id, n);
    while (own.has(made) || sent.has(made)) made = rule.made(id, ++n);
    return made;
  };
  return messages.map((m): Message => {
    if (m.role === "assistant" && m.toolCalls !== undefined && m.toolCalls.length > 0) {
      reply.clear();
      open = m.toolCalls.map((call) => {
        const wire = wireId(call.id);
        sent.add(wire);
        reply.add(wire);
        return { id: call.id, wire, answered: false };
      });
      const toolCalls = m.toolCalls.map((call, i): ToolCall => {
        const id = open[i]!.wire;
        const name = rule.name?.(call.name) ?? call.name;
        return id === call.id && name === call.name ? call : { ...call, id, name };
      });
      return toolCalls.every((call, i) => call === m.toolCalls![i]) ? m : { ...m, toolCalls };
    }
    if (m.role === "tool") {
      const calls = open.filter((c) => c.id === m.toolCallId);
      const call = calls.find((c) => !c.answered) ?? calls.at(-1);
      if (call !== undefined) call.answered = true;
      // a result answering no call the provider refuses anyway; its id is at least one it can read
      const wire = call?.wire ?? (rule.accepts(m.toolCallId) ? m.toolCallId : rule.made(m.toolCallId, 1));
      return wire === m.toolCallId ? m : { ...m, toolCallId: wire };
    }
    return m;
  });
}

/** The characters both APIs allow in a name, and Anthropic in an id. */
const WIRE_SAFE = /^[a-zA-Z0-9_-]+$/;
const safe = (text: string, empty: string): string => text.replace(/[^a-zA-Z0-9_-]/g, "_") || empty;

/** What both APIs take as a tool's name (`tool()` names are so): a call's name that is so is sent as it is. */
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const MAX_NAME = 64;

/**
 * A call's name as a tool's may be: the model's own when it is one, else its
 * refused characters made `_`, cut to 64 ("unnamed" for none). Such a name is
 * no tool's (every tool's is one already): the call's result told the model
 * so, and another name on the wire loses nothing. (One that is no string, a
 * call kept without its name, is "unnamed": both APIs refuse a call without one.)
 */
const toolName = (name: string): string =>
  typeof name !== "string" ? "unnamed" : TOOL_NAME.test(name) ? name : safe(name, "unnamed").slice(0, MAX_NAME);

/**
 * Anthropic's: an id matching ^[a-zA-Z0-9_-]+$ ("messages.1.content.1.tool_use.id: String
 * should match pattern"), none used twice in a request ("`tool_use` ids must be unique"); a
 * call's name not empty and not long ("messages.1.content.0.tool_use.name: String should have
 * at most 200 characters", "… at least 1 character"): sent as a tool's name may be.
 */
export const ANTHROPIC_IDS: IdRule = {
  accepts: (id) => WIRE_SAFE.test(id),
  unique: "request",
  made: (id, n) => `${safe(id, "call")}${n > 1 ? `_${n}` : ""}`,
  name: toolName,
};

const OPENAI_MAX_ID = 40;

/**
 * OpenAI's: an id at most 40 long ("string too long. Expected a string with maximum length
 * 40"); a call's name matching ^[a-zA-Z0-9_-]+$ (`messages[9].tool_calls[0].function.name`:
 * "string does not match pattern"), and not empty. A name the model gave that is not a tool's
 * is told to the model in the call's result, so another name for it on the wire loses nothing;
 * it is cut to the 64 characters a tool's name may have, too. No two calls of one assistant
 * message share an id (two tool messages answering one id: "Invalid parameter: Duplicate value
 * for 'tool_call_id'"); calls of different messages may (each result follows its own).
 */
export const OPENAI_IDS: IdRule = {
  accepts: (id) => id.length <= OPENAI_MAX_ID,
  unique: "reply",
  made: (id, n) => {
    const suffix = n > 1 ? `_${n}` : "";
    return id.slice(0, OPENAI_MAX_ID - suffix.length) + suffix;
  },
  name: toolName,
};

/**
 * The ids of one reply's calls, as the server gave them (`given`; "" or undefined: none, as some
 * OpenAI-compatible local servers send): a call without one gets `call_<its index>`, or, where another
 * call of the reply has that id, `call_<index>_2` (then `_3`, …), so no two calls of a reply share an
 * id the server did not give them both.
 *
 * @example
 * replyIds([undefined, "call_0"]); // ["call_0_2", "call_0"]
 */
export function replyIds(given: readonly (string | undefined)[]): string[] {
  const taken = new Set(given.filter((id) => id !== undefined && id !== ""));
  return given.map((id, i) => {
    if (id !== undefined && id !== "") return id;
    let made = `call_${i}`;
    for (let n = 2; taken.has(made); n++) made = `call_${i}_${n}`;
    taken.add(made);
    return made;
  });
}
