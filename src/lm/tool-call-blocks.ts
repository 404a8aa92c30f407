/**
 * `<tool_call>` blocks in a reply's text (tools offered as text): the closed
 * ones, and one the reply never closed. Read by text-tools.ts (the calls)
 * and reply-text.ts (the words around them), so both agree.
 *
 * Calls in a model's own tags, with no `<tool_call>` block around them, are
 * blocks too: Llama's `<function=get_weather>{"city": "Paris"}</function>`
 * (Llama 3.1's custom tool form, which Llama 4 writes too; llama.cpp reads
 * it anywhere in a reply) and Hunyuan-A13B's `<tool_calls>[{"name": …,
 * "arguments": {…}}, …]</tool_calls>` (a JSON list). Such a tag is a call
 * only where a model writes one: its body begins as a JSON object (or list)
 * does, and it does not follow a quote or a backtick, so the tag named in
 * prose or in code (`<function=name>{args}</function>`) is text.
 */

/** A closed block; its body (trimmed) is the first group. Its closing tag may have white space before its `>` (`</tool_call >`). */
export const CALL_BLOCK = /<tool_call>\s*([\s\S]*?)\s*<\/tool_call\s*>/g;

export const CALL_OPEN = "<tool_call>";

/** A block read (see withoutCalls): its body, and for a model's own tags the tool `<function=…>` names or that it is `<tool_calls>`' list. */
export interface CallBlock {
  body: string;
  name?: string;
  list?: boolean;
}

/** A JSON object's start (`{"`, `{'`, `{}`) or a list of them: what a body in a model's own tags begins with. */
const OBJECT_START = String.raw`\{\s*["'}]`;
const LIST_START = String.raw`\[\s*(?:${OBJECT_START}|\])`;
/** Where a model's own tag may open: not right after a quote or a backtick (the tag named in code or prose), or a backslash (in a string). */
const OWN_LEAD = String.raw`(?<![\x60'"\\])`;
/** A model's own opening tag, its body beginning as a call's does; the tool `<function=…>` names is the first group (none for `<tool_calls>`). */
const OWN_OPEN = new RegExp(
  String.raw`${OWN_LEAD}(?:<tool_calls>\s*(?=${LIST_START}|${OBJECT_START})|<function=([\w.-]+)>\s*(?=${OBJECT_START}))`,
  "g",
);
/** A closed block in a model's own tags: `<tool_calls>`' body (trimmed) is the first group; `<function=…>`'s name and body the second and third. */
const OWN_BLOCK = new RegExp(
  String.raw`${OWN_LEAD}(?:<tool_calls>\s*(?=${LIST_START}|${OBJECT_START})([\s\S]*?)\s*<\/tool_calls\s*>|<function=([\w.-]+)>\s*(?=${OBJECT_START})([\s\S]*?)\s*<\/function\s*>)`,
  "g",
);

/** A model's own opening tag, whole with no visible body yet or split by chunks (see ownPartial). */
const OWN_PARTIAL = /^(?:<tool_calls>\s*(?:\[\s*(?:\{\s*)?|\{\s*)?|<function=[\w.-]*(?:>\s*(?:\{\s*)?)?)$/;
const OWN_LEAD_AT = new RegExp(`${OWN_LEAD}<`, "y");

/** Where the text's end may yet turn out to be a model's own opening tag (see OWN_OPEN), split by chunks; -1 when it may not. */
function ownPartial(text: string): number {
  const at = text.lastIndexOf("<");
  if (at < 0) return -1;
  OWN_LEAD_AT.lastIndex = at;
  const tag = text.slice(at);
  const may = OWN_PARTIAL.test(tag) || "<tool_calls>".startsWith(tag) || "<function=".startsWith(tag);
  return may && OWN_LEAD_AT.test(text) ? at : -1;
}

/** A call's body begins as its JSON does, `{` or a fence around it, or as Qwen3-Coder's own form does (`<function=`, see text-tools.ts). */
const CALL_BODY = /\s*(?:\{|\x60{3}|<function=)/y; // (\x60: a backtick, the fence's)

/** What may yet turn out to begin a call's body (see CALL_BODY), split by chunks: white space, then a start of a fence or of `<function=`. */
const BODY_START = /^\s*(?:\x60{0,2}|<(?:f(?:u(?:n(?:c(?:t(?:i(?:on?)?)?)?)?)?)?)?)$/;

/** Where a `<tool_call>` block the reply never closed begins (see openCall), its body beginning as a call's does; -1 when none does. */
function tagOpen(text: string): number {
  for (let at = text.indexOf(CALL_OPEN); at >= 0; at = text.indexOf(CALL_OPEN, at + 1)) {
    CALL_BODY.lastIndex = at + CALL_OPEN.length;
    if (CALL_BODY.test(text)) return at;
  }
  return -1;
}

/**
 * The call block the reply never closed, in a text whose closed blocks are
 * gone: where it begins and what it holds; undefined when there is none.
 * Such a block runs to the reply's end (the reply hit its length limit
 * inside it, or the model left the closing tag out). Its body must begin as
 * a call's JSON does, so that the tag only named in prose is not taken for
 * one (a model's own tags: see above).
 */
export function openCall(text: string): { at: number; block: CallBlock } | undefined {
  const tagged = tagOpen(text);
  OWN_OPEN.lastIndex = 0;
  const own = OWN_OPEN.exec(text);
  if (own !== null && (tagged < 0 || own.index < tagged)) {
    const body = text.slice(own.index + own[0].length).trim();
    return { at: own.index, block: own[1] === undefined ? { body, list: true } : { body, name: own[1] } };
  }
  return tagged < 0 ? undefined : { at: tagged, block: { body: text.slice(tagged + CALL_OPEN.length).trim() } };
}

/** Where the call block the reply never closed begins (see openCall); -1 when there is none. */
export const unclosedCall = (text: string): number => openCall(text)?.at ?? -1;

/**
 * `text` without its closed call blocks, each given to `onCall` in order
 * (the `<tool_call>` blocks first, then those in a model's own tags), and
 * without a code fence the blocks leave holding nothing (models sometimes
 * fence their calls, as they fence JSON: the fence is no more the model's
 * words than the call is, so it is not shown or kept as text).
 */
export function withoutCalls(text: string, onCall?: (block: CallBlock) => void): string {
  const words = !text.includes(CALL_OPEN)
    ? text
    : text.replace(FENCED_CALLS, "$1").replace(CALL_BLOCK, (_whole, body: string) => {
        onCall?.({ body });
        return "";
      });
  if (!words.includes("<tool_calls>") && !words.includes("<function=")) return words;
  // (a model's own tags inside a `<tool_call>` block never closed are that block's body)
  const cut = tagOpen(words);
  const head = cut < 0 ? words : words.slice(0, cut);
  const read = head.replace(FENCED_OWN, unfence).replace(OWN_BLOCK, (_whole, list?: string, name?: string, body?: string) => {
    onCall?.(list !== undefined ? { body: list, list: true } : { body: body!, name: name! });
    return "";
  });
  return cut < 0 ? read : read + words.slice(cut);
}

/**
 * A code fence holding closed call blocks and whitespace only; the blocks are the first group. Its closing fence
 * names no language: one that does (````json`) opens the next code block, so the calls before it are not fenced.
 */
const FENCED_CALLS = /\x60{3}[\w-]*\s*((?:<tool_call>(?:(?!<\/tool_call\s*>)[\s\S])*<\/tool_call\s*>\s*)+)\x60{3}(?![\w-])/g;
/** A block in a model's own tags whose body holds no closing tag (OWN_BLOCK's, which a fence after it could stretch). */
const OWN_BLOCK_ONE = OWN_BLOCK.source.replace(/\(\[\\s\\S\]\*\?\)/g, String.raw`((?:(?!<\/tool_calls?\s*>|<\/function\s*>)[\s\S])*?)`);
/** A code fence holding closed blocks in a model's own tags and whitespace only (see OWN_BLOCK_ONE; its closing fence as FENCED_CALLS'). */
const FENCED_OWN = new RegExp(String.raw`\x60{3}[\w-]*\s*(?:(?:${OWN_BLOCK_ONE})\s*)+\x60{3}(?![\w-])`, "g");
const unfence = (fenced: string): string => fenced.replace(/^\x60{3}[\w-]*/, "").slice(0, -3);

/**
 * Where a call block begins in a streamed text seen so far: `sure` when its
 * body begins as a call's JSON does (see openCall), else the earliest
 * point from which the rest may yet turn out to be one (the tag, perhaps
 * split by chunks, with nothing visible after it yet); -1 when neither.
 * `before`: what was shown before `text` (a model's own tag after a quote or
 * a backtick is named, not written: see above).
 */
export function callStart(text: string, before = ""): { at: number; sure: boolean } {
  const lead = before.slice(-1);
  const seen = lead + text;
  let found = { at: -1, sure: false };
  const take = (at: number, sure: boolean): void => {
    if (at >= lead.length && (found.at < 0 || at < found.at || (at === found.at && sure))) found = { at, sure };
  };
  for (let at = seen.indexOf(CALL_OPEN); at >= 0; at = seen.indexOf(CALL_OPEN, at + 1)) {
    CALL_BODY.lastIndex = at + CALL_OPEN.length;
    if (CALL_BODY.test(seen)) take(at, true);
    else if (BODY_START.test(seen.slice(at + CALL_OPEN.length))) take(at, false);
    else continue;
    break;
  }
  OWN_OPEN.lastIndex = 0;
  const own = OWN_OPEN.exec(seen);
  if (own !== null) take(own.index, true);
  const partial = ownPartial(seen);
  if (partial >= 0) take(partial, false);
  for (let n = Math.min(CALL_OPEN.length - 1, seen.length); n > 0; n--)
    if (seen.endsWith(CALL_OPEN.slice(0, n))) {
      take(seen.length - n, false);
      break;
    }
  return found.at < 0 ? found : { at: found.at - lead.length, sure: found.sure };
}
