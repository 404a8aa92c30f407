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
 * closed. Undefined when the text does not begin with one.
 */
export function leadingThought(text: string): { end: number; closed: boolean } | undefined {
  const open = THOUGHT_OPEN.exec(text);
  if (!open) return undefined;
  const close = thoughtClose(text, open[1]!, open[0].length);
  return close.at < 0 ? { end: text.length, closed: false } : { end: close.at + close.length, closed: true };
}
