/**
 * The reasoning some models write at the start of their reply's text
 * (DeepSeek-R1, QwQ, Qwen3 on servers that leave it in the content):
 * a `<think>…</think>` block (`<thinking>` too, in any case). It is not the
 * reply: it often restates the reply form it was told to use, or drafts a
 * tool call, so the answer, its streamed text and the calls are read after
 * it (prompt.ts, reply-text.ts, text-tools.ts).
 */

/** A reply's opening reasoning tag, after any white space; the tag's name is the first group. */
export const THOUGHT_OPEN = /^\s*<(think|thinking)>/i;

/** The closing tags, found in any case, white space before their `>` allowed (`</think >`, as models write it too). */
const THOUGHT_CLOSE: Record<string, RegExp> = { think: /<\/think\s*>/gi, thinking: /<\/thinking\s*>/gi };

/** Where the closing tag of the reasoning block named `name` begins in `text`, from `from` on, and its length; -1 when it is not there. */
export function thoughtClose(text: string, name: string, from: number): { at: number; length: number } {
  const close = THOUGHT_CLOSE[name.toLowerCase()]!;
  close.lastIndex = from;
  const match = close.exec(text);
  return match ? { at: match.index, length: match[0].length } : { at: -1, length: 0 };
}

/**
 * The reasoning block a reply's text begins with: where it ends (just after
 * its closing tag; the text's end when it never closes) and whether it
 * closed. Undefined when the text does not begin with one. A reply whose
 * opening tag is missing but whose reasoning closes (see loneThought) begins
 * with one too, closed.
 */
export function leadingThought(text: string): { end: number; closed: boolean } | undefined {
  const open = THOUGHT_OPEN.exec(text);
  if (!open) return loneThought(text);
  const close = thoughtClose(text, open[1]!, open[0].length);
  return close.at < 0 ? { end: text.length, closed: false } : { end: close.at + close.length, closed: true };
}

/**
 * The first closing reasoning tag (`</think>`, `</thinking>`, in any case, white space before its `>` allowed) that
 * stands alone: at the text's start or after white space, and before white space or the end, as a reasoning model
 * writes it (`…reasoning.\n</think>\n\n`). One quoted or in code (`` `</think>` ``, `"</think>"`) is text.
 */
const ANY_THOUGHT_CLOSE = /(?<=^|\s)<\/(think|thinking)\s*>(?=\s|$)/i;
/** The blocks a reply is read by, and their closing tags (white space before `>` allowed, as they are read). */
const BLOCKS: [string, RegExp][] = [
  ["result", /<\/result\s*>/],
  ["tool_call", /<\/tool_call\s*>/],
];
/** An opening reasoning tag anywhere. */
const ANY_THOUGHT_OPEN = /<(think|thinking)>/i;

/**
 * Reasoning whose opening tag is not in the reply: DeepSeek-R1 distills (and
 * QwQ) on llama.cpp or vLLM, whose chat template puts `<think>\n` in the
 * prompt, reply `…reasoning…\n</think>\n\nanswer`. Everything before the
 * first closing tag is the thought, unless a tag opened the block it closes
 * (`<result>\n<think>x</think> y`) or it is written inside the answer's or a
 * call's own block (`<result>\nWrite </think> to close it.`): there it is text.
 */
function loneThought(text: string): { end: number; closed: boolean } | undefined {
  const close = ANY_THOUGHT_CLOSE.exec(text);
  if (!close) return undefined;
  const before = text.slice(0, close.index);
  if (ANY_THOUGHT_OPEN.test(before)) return undefined;
  const lower = before.toLowerCase();
  // inside a block still open there (its last opening tag not closed after it): the tag is that block's text
  for (const [tag, closing] of BLOCKS) {
    const opened = lower.lastIndexOf(`<${tag}>`);
    if (opened >= 0 && !closing.test(lower.slice(opened))) return undefined;
  }
  return { end: close.index + close[0].length, closed: true };
}
