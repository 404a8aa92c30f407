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

import { FunctaiError } from "../errors.js";

export const CALL_OPEN = "<tool_call>";

/**
 * A call's body begins as its JSON does, `{` or a fence around it, as a list of calls does (a JSON list of objects,
 * or Llama's pythonic one, `[get_weather(`: read as those calls, see text-tools.ts), or as Qwen3-Coder's own form
 * does (`<function=`).
 */
const CALL_BODY = /\s*(?:\{|\x60{3}|<function=|\[\s*(?:\{|[A-Za-z_][\w.]*\s*\())/y; // (\x60: a backtick, the fence's)

/** What follows a `<tool_call>` tag named in prose or in code on its line, its body no call's (see CALL_BLOCK). */
const NAMED = String.raw`(?!${CALL_BODY.source})(?:[ \t]+\S|[ \t]*<\/tool_call|[\x60'"])`;

/**
 * A closed block; its body (trimmed) is the first group. Its closing tag may have white space before its `>`
 * (`</tool_call >`). A tag named in prose or in code opens none: its body does not begin as a call's, and another
 * `<tool_call>` comes before the closing tag (`I will answer with a <tool_call> block.\n<tool_call>{…}`), or words, a
 * quote or a backtick, or the closing tag follow it on its line (`Wrap each call in <tool_call> and </tool_call>
 * tags.`, `` `<tool_call>` ``, `between <tool_call></tool_call> tags`), where a block the model writes begins with the
 * call's JSON or a line break (the form it was shown).
 */
const CALL_BLOCK = new RegExp(
  String.raw`<tool_call>(?!(?!${CALL_BODY.source})(?:(?!<\/tool_call\s*>)[\s\S])*?<tool_call>|${NAMED})\s*([\s\S]*?)\s*<\/tool_call\s*>`,
  "g",
);
const NAMED_AFTER = new RegExp(NAMED, "y");

/** Where the first `<tool_call>` tag that may yet open a block is (one named in prose or in code never does: see CALL_BLOCK); -1 when none is. */
export function heldTag(text: string): number {
  for (let at = text.indexOf(CALL_OPEN); at >= 0; at = text.indexOf(CALL_OPEN, at + 1)) {
    NAMED_AFTER.lastIndex = at + CALL_OPEN.length;
    if (!NAMED_AFTER.test(text)) return at;
  }
  return -1;
}

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

/** What may yet turn out to begin a call's body (see CALL_BODY), split by chunks: white space, then a start of a fence, of `<function=` or of a list of calls. */
const BODY_START = /^\s*(?:\x60{0,2}|<(?:f(?:u(?:n(?:c(?:t(?:i(?:on?)?)?)?)?)?)?)?|\[\s*(?:[A-Za-z_][\w.]*\s*)?)$/;

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
 * words than the call is, so it is not shown or kept as text). Only a fence
 * that opens a code block is such a fence (see unfencedCalls). `context`: the
 * text before `text` left a fence open (`fenceOpen`), or more may follow it
 * (`more`, a streamed text: a fence at its end may yet name a language).
 */
export function withoutCalls(text: string, onCall?: (block: CallBlock) => void, context: { fenceOpen?: boolean; more?: boolean } = {}): string {
  const mark = callMark(text);
  let marked = !text.includes(CALL_OPEN)
    ? text
    : text.replace(CALL_BLOCK, (_whole, body: string) => {
        onCall?.({ body });
        return mark;
      });
  if (marked.includes("<tool_calls>") || marked.includes("<function=")) {
    // (a model's own tags inside a `<tool_call>` block never closed are that block's body)
    const cut = tagOpen(marked);
    const head = cut < 0 ? marked : marked.slice(0, cut);
    const read = head.replace(OWN_BLOCK, (_whole, list?: string, name?: string, body?: string) => {
      onCall?.(list !== undefined ? { body: list, list: true } : { body: body!, name: name! });
      return mark;
    });
    marked = cut < 0 ? read : read + marked.slice(cut);
  }
  return marked === text ? text : unfencedCalls(marked, mark, context.fenceOpen === true, context.more === true).replaceAll(mark, "");
}

/**
 * Where a closed call block was (see withoutCalls): a Unicode noncharacter the text does not hold (U+FDD0 to U+FDEF,
 * then U+nFFFE and U+nFFFF), so that taking the marks out takes nothing the model wrote.
 */
function callMark(text: string): string {
  for (const mark of CALL_MARKS) if (!text.includes(mark)) return mark;
  throw new FunctaiError("provider-response", "the reply holds every one of Unicode's 66 noncharacters: it was not read as a reply.");
}

/** The 66 Unicode noncharacters, as strings (see callMark). */
const CALL_MARKS: readonly string[] = [
  ...Array.from({ length: 32 }, (_, i) => String.fromCharCode(0xfdd0 + i)),
  ...Array.from({ length: 17 }, (_, plane) => [plane * 0x10000 + 0xfffe, plane * 0x10000 + 0xffff].map((c) => String.fromCodePoint(c))).flat(),
];
/** A code fence: three backticks or more. */
const FENCE_RUN = /\x60{3,}/g;
/**
 * A code fence holding closed call blocks (CALL_MARK) and white space only; the blocks, and the white space after
 * them, are the first group. Its closing fence names no language: one that does (````json`) opens the next code block.
 * FENCED_CALLS_SO_FAR: in a text more may follow, where a fence at its end may yet name one.
 */
const fencedCalls = (mark: string, more: boolean): RegExp => {
  const key = `${mark}${more ? "+" : ""}`;
  let found = FENCED_CALLS.get(key);
  if (found === undefined) {
    const whole = String.raw`\x60{3}[\w-]*\s*((?:${mark}\s*)+)\x60{3}(?![\w-])`;
    found = more ? new RegExp(`${whole}(?=.)`, "sy") : new RegExp(whole, "y");
    FENCED_CALLS.set(key, found);
  }
  return found;
};
const FENCED_CALLS = new Map<string, RegExp>();

/** Whether a code fence is open after `text` (see FENCE_RUN), `open`: one was before it. */
export function fenceOpenAfter(text: string, open = false): boolean {
  return text.includes("\x60\x60\x60") ? (text.match(FENCE_RUN)!.length % 2 === 1) !== open : open;
}

/**
 * `text` (its calls marked) without the fences around its calls. Fences are paired as they come, an opening one
 * then its closing one, so the closing fence of a code block, then a call, then the opening fence of the next code
 * block are no fence around the call: only a fence that opens (`open`: one was open before `text`) is. `more`: more
 * may follow `text` (see withoutCalls).
 */
function unfencedCalls(text: string, mark: string, open: boolean, more: boolean): string {
  if (!text.includes("\x60\x60\x60")) return text;
  const calls = fencedCalls(mark, more);
  let out = "";
  let from = 0;
  FENCE_RUN.lastIndex = 0;
  for (let fence = FENCE_RUN.exec(text); fence !== null; fence = FENCE_RUN.exec(text)) {
    calls.lastIndex = fence.index;
    const fenced = open ? null : calls.exec(text);
    if (fenced === null) open = !open;
    else {
      out += text.slice(from, fence.index) + fenced[1];
      from = FENCE_RUN.lastIndex = calls.lastIndex;
    }
  }
  return out + text.slice(from);
}

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
