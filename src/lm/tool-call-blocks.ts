/**
 * `<tool_call>` blocks in a reply's text (tools offered as text): the closed
 * ones, and one the reply never closed. Read by text-tools.ts (the calls)
 * and reply-text.ts (the words around them), so both agree.
 */

/** A closed block; its body (trimmed) is the first group. */
export const CALL_BLOCK = /<tool_call>\s*([\s\S]*?)\s*<\/tool_call>/g;

export const CALL_OPEN = "<tool_call>";

/** A call's body begins as its JSON does: `{`, or a fence around it. */
const CALL_BODY = /\s*(?:\{|\x60{3})/y; // (\x60: a backtick, the fence's)

/**
 * Where a `<tool_call>` block the reply never closed begins, in a text whose
 * closed blocks are gone; -1 when there is none. Such a block runs to the
 * reply's end (the reply hit its length limit inside it, or the model left
 * the closing tag out). Its body must begin as a call's JSON does, so that
 * the tag only named in prose is not taken for one.
 */
export function unclosedCall(text: string): number {
  for (let at = text.indexOf(CALL_OPEN); at >= 0; at = text.indexOf(CALL_OPEN, at + 1)) {
    CALL_BODY.lastIndex = at + CALL_OPEN.length;
    if (CALL_BODY.test(text)) return at;
  }
  return -1;
}
