import { FunctaiError, describeValue } from "./errors.js";
import type { FinishReason, Message, Usage } from "./lm/types.js";

/**
 * One AI function call, as `phistory()` prints it.
 *
 * @example
 * // what each block `phistory()` prints is made from:
 * const entry: HistoryEntry = {
 *   at: new Date(), name: "answer", model: "gpt-4.1-mini",
 *   messages: [{ role: "user", content: "Where is A-1042?" }], tools: ["lookupOrder"],
 *   response: "It shipped on Monday.", finishReason: "stop", usage: { inputTokens: 120, outputTokens: 9 },
 * };
 */
export interface HistoryEntry {
  at: Date;
  name: string;
  model: string;
  messages: readonly Message[];
  tools: readonly string[];
  response: string;
  finishReason: FinishReason;
  usage: Usage;
  /**
   * How the call failed, when it did (a provider error, `tool-failed`, `output-invalid`, `step-limit`, a stop):
   * its code (null for an error without one) and message, never its cause. `replied`: whether the model's reply
   * was read before it failed (then `response` and `finishReason` are that reply's; else `response` is empty).
   */
  error?: { code: string | null; message: string; replied: boolean };
}

const LIMIT = 50;
const entries: HistoryEntry[] = [];

/** One model reply of a call: `id` names it within its turn (the same when a resumed run replays it), `replayed` when this run read it from the journal. */
export interface ReplyMark {
  id: string;
  usage: Usage;
  replayed: boolean;
}

/** The replies each kept entry counted (an entry dropped past the limit is no longer shown, nor are its counts). */
const repliesOf = new WeakMap<HistoryEntry, ReadonlySet<string>>();

/**
 * Keeps a call for `phistory()`. With `replies`, its usage is theirs, less the replies it replayed that an entry
 * still kept already counted: an interrupted call is shown with what it paid, and its resumed run (here, in the same
 * process) replays those replies from the journal; counted again, they read as paid twice. (A replayed reply no
 * entry counted, one paid before the turn waited for a person or in another process, is counted: it was paid.)
 */
export function remember(entry: HistoryEntry, replies?: readonly ReplyMark[]): void {
  if (replies !== undefined) {
    const usage = { inputTokens: 0, outputTokens: 0 };
    for (const r of replies) {
      if (r.replayed && entries.some((e) => repliesOf.get(e)?.has(r.id) === true)) continue;
      usage.inputTokens += r.usage.inputTokens;
      usage.outputTokens += r.usage.outputTokens;
    }
    entry = { ...entry, usage };
    repliesOf.set(entry, new Set(replies.map((r) => r.id)));
  }
  entries.push(entry);
  if (entries.length > LIMIT) entries.splice(0, entries.length - LIMIT);
}

/**
 * Forgets what `phistory()` shows.
 *
 * @example
 * clearHistory();
 * phistory(); // ""
 */
export const clearHistory = (): void => void entries.splice(0);

const stamp = (d: Date): string => d.toISOString().slice(0, 19);

function renderMessage(m: Message): string {
  switch (m.role) {
    case "system":
      return `System message:\n\n${m.content}\n`;
    case "user":
      return `User message:\n\n${m.content}\n`;
    case "assistant": {
      const calls = (m.toolCalls ?? []).map((c) => `[tool call ${c.name}(${JSON.stringify(c.input)})]`);
      return `Assistant message:\n\n${[m.content, ...calls].filter((s) => s !== "").join("\n")}\n`;
    }
    case "tool":
      // a failed call (the model is told so: is_error) reads as failed, not as what the tool gave
      return `Tool message:\n\n[tool ${m.isError ? "error" : "result"} ${m.toolCallId}] ${m.content}\n`;
  }
}

/**
 * The last `n` AI function calls, printable: system message, user message,
 * the assistant's tool calls, tool results, the response, finish reason and
 * tokens. `n` is a count (0 prints nothing, `Infinity` all that are kept);
 * anything else is refused (`input-invalid`).
 *
 * @example
 * await answer("Where is my order A-1042?");
 * console.log(phistory());
 */
export function phistory(n = 1): string {
  // slice(-n) reads 0 as "from the start" and -2 as "all but the first two": a count is checked first.
  if (!((Number.isInteger(n) && n >= 0) || n === Number.POSITIVE_INFINITY)) {
    throw new FunctaiError("input-invalid", `phistory(n): n is how many calls to show (0 or more), not ${describeValue(n, 40)}.`);
  }
  if (n === 0) return "";
  return entries
    .slice(-n)
    .map((e) => {
      const parts = [`[${stamp(e.at)}] ${e.name} → ${e.model}\n`, ...e.messages.map(renderMessage)];
      if (e.tools.length > 0) parts.push(`Tools: ${e.tools.join(", ")}\n`);
      const tokens = `tokens in ${e.usage.inputTokens}, out ${e.usage.outputTokens}`;
      if (e.error === undefined) {
        parts.push(`Response:\n\n${e.response}\n`);
        parts.push(`(finish: ${e.finishReason}; ${tokens})`);
      } else {
        // a failed call: the last reply the model gave (if any), then why the call failed
        parts.push(e.error.replied ? `Response:\n\n${e.response}\n` : "Response: (none: the call failed before the model replied)\n");
        parts.push(`Failed: ${e.error.code ?? "(no code)"}: ${e.error.message}\n`);
        parts.push(`(${e.error.replied ? `finish: ${e.finishReason}; ` : ""}${tokens})`);
      }
      return parts.join("\n");
    })
    .join("\n\n");
}
