/**
 * `<tool_call>` blocks in a reply's text (tools offered as text): the closed
 * ones, and one the reply never closed. Read by text-tools.ts (the calls)
 * and reply-text.ts (the words around them), so both agree.
 */

/** A closed block; its body (trimmed) is the first group. Its closing tag may have white space before its `>` (`</tool_call >`). */
export const CALL_BLOCK = /<tool_call>\s*([\s\S]*?)\s*<\/tool_call\s*>/g;

export const CALL_OPEN = "<tool_call>";

/** A call's body begins as its JSON does, `{` or a fence around it, or as Qwen3-Coder's own form does (`<function=`, see text-tools.ts). */
const CALL_BODY = /\s*(?:\{|\x60{3}|<function=)/y; // (\x60: a backtick, the fence's)

/** What may yet turn out to begin a call's body (see CALL_BODY), split by chunks: white space, then a start of a fence or of `<function=`. */
const BODY_START = /^\s*(?:\x60{0,2}|<(?:f(?:u(?:n(?:c(?:t(?:i(?:on?)?)?)?)?)?)?)?)$/;

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

/**
 * `text` without its closed call blocks, each body given to `onCall` in
 * order, and without a code fence the blocks leave holding nothing (models
 * sometimes fence their calls, as they fence JSON: the fence is no more the
 * model's words than the call is, so it is not shown or kept as text).
 */
export function withoutCalls(text: string, onCall?: (body: string) => void): string {
  if (!text.includes(CALL_OPEN)) return text;
  return text.replace(FENCED_CALLS, "$1").replace(CALL_BLOCK, (_whole, body: string) => {
    onCall?.(body);
    return "";
  });
}

/** A code fence holding closed call blocks and whitespace only; the blocks are the first group. */
const FENCED_CALLS = /\x60{3}[\w-]*\s*((?:<tool_call>(?:(?!<\/tool_call\s*>)[\s\S])*<\/tool_call\s*>\s*)+)\x60{3}/g;

/**
 * Where a call block begins in a streamed text seen so far: `sure` when its
 * body begins as a call's JSON does (see unclosedCall), else the earliest
 * point from which the rest may yet turn out to be one (the tag, perhaps
 * split by chunks, with nothing visible after it yet); -1 when neither.
 */
export function callStart(text: string): { at: number; sure: boolean } {
  for (let at = text.indexOf(CALL_OPEN); at >= 0; at = text.indexOf(CALL_OPEN, at + 1)) {
    CALL_BODY.lastIndex = at + CALL_OPEN.length;
    if (CALL_BODY.test(text)) return { at, sure: true };
    if (BODY_START.test(text.slice(at + CALL_OPEN.length))) return { at, sure: false };
  }
  for (let n = Math.min(CALL_OPEN.length - 1, text.length); n > 0; n--)
    if (text.endsWith(CALL_OPEN.slice(0, n))) return { at: text.length - n, sure: false };
  return { at: -1, sure: false };
}
