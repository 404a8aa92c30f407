/**
 * The answer's text out of a model's streamed reply: `text` events carry
 * what the reader will get as the answer, never the reply form's tags,
 * however the model's chunks split them (`<res` + `ult>\nHi`).
 *
 * The tags are found in any case (`<RESULT>`), as readOutput finds them.
 *
 * What is emitted, chunk by chunk, for one reply:
 * - A reasoning block the reply opens with (`<think>…</think>`, see
 *   thinking.ts): nothing. The reply is read after it, as below; one never
 *   closed shows nothing at all (it holds no answer).
 * - Inside the first `<result>` block: its body, without the whitespace
 *   right after `<result>` and right before `</result>` (the answer is read
 *   trimmed). Whitespace inside the body is held only until the next
 *   visible character, and a possible start of `</result>` only until the
 *   next chunk shows whether it is the tag. Everything after `</result>` is
 *   dropped (the answer is the first block). A block the reply never
 *   closes ends with the reply, a piece of `</result>` at its very end
 *   dropped (a reply cut off by its length limit there is then refused as
 *   unreadable and asked again: see readOutput). Tools offered as text: a
 *   call block in the body is no part of it, and the words after a closed
 *   one go on (`Let me check.` + call + `I'll tell you once I know.`), as
 *   the whole reply reads them; from a block's opening tag (or a fence that
 *   may hold calls) nothing is shown until it closes or the reply ends (a
 *   call never closed runs to the reply's end).
 * - Before any `<result>`: held, because it may be the model's preamble
 *   ("Here it is:") or a plain answer. If a `<result>` opens, it was
 *   preamble and is dropped; if the reply ends with none, it was the answer
 *   (models often answer plainly) and is emitted in one piece, trimmed and
 *   without any `<tool_call>` blocks or calls in a model's own tags (tools
 *   offered as text; one never closed runs to the reply's end: see
 *   tool-call-blocks.ts), and up to a
 *   `</result>` the model wrote without opening the block; nothing when it
 *   is only calls in a model's own form, a pythonic list or a call's JSON
 *   (tools as text: read as those calls, see pythonic-calls.ts and
 *   json-calls.ts), and only the words around them when it writes calls in
 *   a model's call tokens (Kimi K2's, DeepSeek's, Mistral's `[TOOL_CALLS]`:
 *   see marked-calls.ts; a `<result>` after such tokens is held as a call's
 *   input may hold it, as below). So a plain
 *   reply's text arrives when its reply ends, and a tool-calling reply's own
 *   words ("Let me look that up.") are still shown.
 * - A `<result>` that opens after words, in a reply that opened no
 *   reasoning block: those words may be reasoning whose opening `<think>`
 *   the reply left out (DeepSeek-R1 distills on llama.cpp or vLLM: see
 *   loneThought in thinking.ts), the block a draft in it. All of it is held
 *   until a lone `</think>` ends such reasoning (the rest is then read as
 *   after a reasoning block, streaming as above) or the reply ends (it is
 *   then read whole, as above). So a reply with a preamble ("Here it is:")
 *   shows its answer when it ends; one that opens with `<result>` streams.
 * - Tools offered as text, a `<result>` after text that begins as a call in
 *   a model's own form written as the whole reply does (a list, an object,
 *   fenced or after `<|python_tag|>` or `<|python_start|>`: `[save_note(text="<result>…")]`): the
 *   tag may be in the call's input, so all of it is held until the reply
 *   ends; then it shows nothing if the reply is only such calls (see
 *   pythonic-calls.ts and json-calls.ts), else it is read as above.
 * - Non-string outputs: the same rule. Their `<result>` body is the JSON the
 *   model writes, so it streams as that JSON text; a UI that wants the
 *   value takes `done`'s `result`. An AI function has one output, so
 *   "several fields" is an object output and follows this rule too.
 *
 * Concatenated, the emitted deltas equal the answer text as `readOutput`
 * reads it from the whole reply.
 */

import { leadingThought, THOUGHT_OPEN, thoughtClose } from "./thinking.js";
import { jsonCalls } from "./json-calls.js";
import { markedCalls, markedOpen } from "./marked-calls.js";
import { pythonicCalls } from "./pythonic-calls.js";
import { CALL_OPEN, callStart, fenceOpenAfter, heldTag, unclosedCall, withoutCalls } from "./tool-call-blocks.js";

const OPEN = "<result>";
const CLOSE = "</result>";

/**
 * Text that begins as a call in a model's own form written as the whole reply may (see ownFormCalls): a list or an
 * object, perhaps fenced or after Llama 3.1's `<|python_tag|>` or Llama 4's `<|python_start|>`.
 */
const OWN_FORM_START = /^\s*(?:<\|python_(?:tag|start)\|>\s*|\x60{3}[\w-]*\s*)?[[{]/;

/**
 * The words of `text` (a reply after its reasoning) when it is calls in a model's own form, read as those calls (see
 * fromTextResponse in text-tools.ts): none beside a pythonic list or a call's JSON (the whole reply), those around a
 * section of call tokens (see marked-calls.ts, where no call block is read); undefined where it is no such calls.
 */
function ownFormWords(text: string): string | undefined {
  if (text.includes(CALL_OPEN)) return undefined;
  const marked = unclosedCall(text) < 0 && withoutCalls(text) === text ? markedCalls(text) : undefined;
  if (marked !== undefined) return marked.words;
  return (pythonicCalls(text) ?? jsonCalls(text)) !== undefined ? "" : undefined;
}

/**
 * Takes a reply's text deltas as they come; `end` when the reply is
 * complete. `shown` and `restart` are what a provider asks of a caller that
 * holds text back (`GenerateOptions.heldText`): whether any delta was
 * emitted yet, and to start over (a retried reply) while none was.
 */
export interface ReplyText {
  push(delta: string): void;
  end(): void;
  /** Whether any delta was emitted (from then on, what was shown cannot be taken back). */
  shown(): boolean;
  /** Forgets what was pushed: the next push starts a new reply (a failed stream asked again). */
  restart(): void;
}

/**
 * `text` with A–Z made a–z, and nothing else changed (its length neither: an
 * index found in it is one in `text`). Models sometimes write the reply
 * form's tags in another case (`<RESULT>`), so tags are looked for in this.
 */
export const asciiLower = (text: string): string =>
  /[A-Z]/.test(text) ? text.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32)) : text;

/** How much of a closing reasoning tag's start (`</think`, then white space) is kept between chunks. */
const THOUGHT_TAIL = 64;

/** Whether `text` is white space, then perhaps a start of `<think>` or `<thinking>` (in any case): a reasoning block may yet open. */
function mightOpenThought(text: string): boolean {
  const tag = asciiLower(text.trimStart());
  return tag === "" || (tag.length < "<thinking>".length && "<thinking>".startsWith(tag));
}

/** The length of the longest end of `text` that is a start of `tag` (lowercase; in any case in `text`): a tag a chunk may have split, or a reply cut off. */
export function partialTag(text: string, tag: string): number {
  for (let n = Math.min(tag.length - 1, text.length); n > 0; n--) if (asciiLower(text.slice(-n)) === tag.slice(0, n)) return n;
  return 0;
}

/** `</result>` in any case, white space before its `>` allowed (`</result >`), as readOutput reads it. */
const CLOSE_TAG = /<\/result\s*>/i;
/** A closing tag's start at the text's end, its `>` not come yet (`</result`, perhaps with white space after). */
const CLOSE_START = /<\/result\s*$/i;

/** Where `</result>` (see CLOSE_TAG) is in `text`, and its length; -1 when it is not there. */
function closeTag(text: string): { at: number; length: number } {
  const match = CLOSE_TAG.exec(text);
  return match ? { at: match.index, length: match[0].length } : { at: -1, length: 0 };
}

/** The length of the end of `text` that may be the start of a closing tag (see CLOSE_TAG), split by chunks or cut off. */
function partialClose(text: string): number {
  const open = CLOSE_START.exec(text);
  return open ? text.length - open.index : partialTag(text, CLOSE);
}

/** How long an end `a` and `b` share is. */
function sameEnd(a: string, b: string): number {
  let n = 0;
  while (n < a.length && n < b.length && a[a.length - 1 - n] === b[b.length - 1 - n]) n++;
  return n;
}

/** A fence (perhaps with its language) at the text's end, with only white space and backticks (its closing fence's start) after it. */
const FENCE_END = /\x60+[\w-]*[\s\x60]*$/;

/**
 * The words of `text` (a `<result>` block's text, after `before`, what was shown before it) as the whole reply reads
 * them (see withoutCalls, tools as text: closed call blocks gone), and what of them is settled: `at`, where the
 * words may yet change (a call block still open, whatever its body: one that closes is gone, one that never does is
 * text unless its body begins as a call's; a tag's start; a fence that may hold calls; a piece of `</result>`), and
 * `close`, where `</result>` is before that (-1 when it is not); `open`: what is held there is a call block's
 * opening tag, so nothing changes until a tag closes (a `>` comes). `ended`: the reply is whole (a block never
 * closed runs to its end, a call's only when its body begins as a call's: see unclosedCall). `fenceOpen`: what was
 * shown before left a code fence open (so the next fence closes it, and holds no call: see withoutCalls).
 */
function settledWords(
  text: string,
  before: string,
  textTools: boolean,
  ended: boolean,
  fenceOpen = false,
): { words: string; at: number; close: number; open?: boolean } {
  if (!textTools) {
    const close = closeTag(text).at;
    return { words: text, at: text.length - partialClose(text), close };
  }
  const lead = before.slice(-1);
  const seen = withoutCalls(lead + text, undefined, { fenceOpen, more: !ended });
  const words = seen.slice(lead.length);
  let at = words.length;
  if (ended) {
    const open = unclosedCall(seen);
    if (open >= 0) at = open - lead.length;
  } else {
    const tag = heldTag(words);
    if (tag >= 0) at = tag;
    const call = callStart(words, lead).at;
    if (call >= 0 && call < at) at = call;
    const open = unclosedCall(seen) - lead.length;
    if (open >= 0 && open < at) at = open;
    const fence = FENCE_END.exec(words.slice(0, at));
    if (fence) at = fence.index;
    else if (at === tag || at === open) {
      const close = closeTag(words.slice(0, at)).at;
      return { words, at: close >= 0 ? at : at - partialClose(words.slice(0, at)), close, open: close < 0 };
    }
  }
  const close = closeTag(words.slice(0, at)).at;
  if (ended) return { words: close >= 0 ? words : words.slice(0, at), at, close };
  return { words, at: close >= 0 ? at : at - partialClose(words.slice(0, at)), close };
}

/**
 * Filters one reply's streamed text down to the answer's text; `emit` gets
 * only non-empty deltas.
 *
 * @example
 * const text = replyText((delta) => process.stdout.write(delta));
 * text.push("<res"); text.push("ult>\nHel"); text.push("lo\n</re"); text.push("sult>");
 * text.end(); // wrote "Hello"
 */
export function replyText(show: (delta: string) => void, options: { textTools?: boolean } = {}): ReplyText {
  // tools offered as text: a call block inside the `<result>` block is read as a call (see text-tools.ts), never part
  // of any answer; the words around it are (see settledWords)
  const textTools = options.textTools === true;
  let shown = false;
  const emit = (delta: string): void => {
    shown = true;
    show(delta);
  };
  // start: what opens the reply may yet be a reasoning block (`<think>`); thinking: inside one, shown to nobody
  // doubt: a `<result>` opened after words, with no `<think>` before them: the words may be reasoning whose opening
  // tag the reply left out (see loneThought in thinking.ts), the block a draft in it; held until that is known
  // whole: tools as text, a `<result>` came after text that begins as a call in a model's own form written as the whole
  // reply does (Llama's `[get_weather(city="Paris")]`, a call's JSON): the tag may be in its input, so it is all held
  // and read whole when the reply ends (see ownFormCalls)
  let mode: "start" | "thinking" | "before" | "doubt" | "whole" | "inside" | "after" = "start";
  // start: the text so far; thinking: the last characters seen (a closing tag split by chunks) and the tag's name
  let lead = "";
  let thought = "";
  // whether the reply opened with a reasoning block (a later lone `</think>` is then the answer's text)
  let thoughtSeen = false;
  // inside: the block's text from where its words may still change (white space, a possible start of `</result>`, a
  // call block, a fence that may hold calls: see settledWords), the character before it (a model's own call tag
  // right after a quote or a backtick is named, not written: see callStart), and how much of its words was shown
  let held = "";
  let heldLead = "";
  // inside: whether the reply's words before what is held (the preamble too) left a code fence open (see withoutCalls)
  let fenced = false;
  let through = 0;
  // inside: a call block is open in what is held (nothing is read again until a tag may have closed: a `>` came)
  let quiet = false;
  // inside: whether the body's first visible character was emitted (leading whitespace is dropped)
  let started = false;
  // before: the chunks so far, kept apart (one string grown and searched per chunk would cost O(n²) over a long reply),
  // and the last OPEN.length - 1 characters, where a tag split by chunks may have begun
  let before: string[] = [];
  let tail = "";
  // doubt: the reply's chunks so far, and its last characters (where a closing reasoning tag split by chunks begins)
  let doubted: string[] = [];
  let doubtTail = "";
  // whole: the reply's chunks since its reasoning (if any); rereading: such a reply, no calls, is read again at its end
  let whole: string[] = [];
  let rereading = false;

  /** The reply so far is known to hold no reasoning whose opening tag it left out (or, when `from` > 0, that it ends at `from`): read it afresh. */
  const settle = (text: string, from: number): void => {
    mode = "before";
    thoughtSeen = true; // (nothing before `from` is read again; a later lone `</think>` is the answer's text)
    doubted = [];
    doubtTail = "";
    before = [];
    tail = "";
    if (text.length > from) push(text.slice(from));
  };

  /**
   * Inside the `<result>` block: shows what of `held` (the block's text after what was shown) is settled, as the
   * whole reply reads it. Tools as text: a closed call block is no part of the words (they go on after it); from an
   * open one (or a tag's start, or a fence that may hold calls) on, nothing is known until it closes or the reply
   * ends, so it is held (see settledWords).
   */
  const inside = (): void => {
    const { words, at, close, open } = settledWords(held, heldLead, textTools, false, fenced);
    quiet = open === true;
    const from = started ? through : words.length - words.trimStart().length;
    if (close >= 0) {
      const rest = words.slice(from, close).trimEnd();
      if (rest !== "") emit(rest);
      held = "";
      mode = "after";
      return;
    }
    const visible = words.slice(from, at).trimEnd();
    if (visible !== "") {
      started = true;
      emit(visible);
    }
    through = from + visible.length;
    // what is left to read lies past the last call removed (its words are its text): only that is kept
    const rest = words.length - through;
    if (rest <= sameEnd(words, held)) {
      heldLead = words[through - 1] ?? heldLead;
      fenced = fenceOpenAfter(words.slice(0, through), fenced);
      held = held.slice(held.length - rest);
      through = 0;
    }
  };

  function push(delta: string): void {
    if (mode === "after" || delta === "") return;
    if (mode === "whole") {
      whole.push(delta);
      return;
    }
    if (mode === "doubt") {
      doubted.push(delta);
      const window = asciiLower(doubtTail + delta);
      doubtTail = window.slice(-THOUGHT_TAIL);
      // a closing reasoning tag seen: if it ends a reasoning the reply began with, the answer is after it
      if (!window.includes("</think")) return;
      const all = doubted.join("");
      const thought = leadingThought(all);
      // (one at the very end is not known to stand alone yet: `</think>x` is text)
      if (thought !== undefined && thought.end < all.length) settle(all, thought.end);
      return;
    }
    if (mode === "start") {
      lead += delta;
      const open = THOUGHT_OPEN.exec(lead);
      if (open) {
        mode = "thinking";
        thoughtSeen = true;
        thought = open[1]!;
        delta = lead.slice(open[0].length);
        lead = "";
      } else {
        // white space, or a start of `<think>` / `<thinking>` (split by chunks): not known yet
        if (mightOpenThought(lead)) return;
        mode = "before";
        delta = lead;
        lead = "";
      }
    }
    if (mode === "thinking") {
      const seen = lead + delta;
      const close = thoughtClose(seen, thought, 0);
      if (close.at < 0) {
        // (a closing tag's start: `</think` without its `>`, perhaps with white space after it, kept within a bound)
        const start = seen.lastIndexOf("</");
        lead =
          start >= 0 && seen.length - start <= THOUGHT_TAIL && !seen.includes(">", start) ? seen.slice(start) : seen.slice(-(thought.length + 2));
        return;
      }
      mode = "before";
      lead = "";
      delta = seen.slice(close.at + close.length);
      if (delta === "") return;
    }
    if (mode === "before") {
      const window = tail + delta;
      const lower = asciiLower(window);
      let open = lower.indexOf(OPEN);
      if (open >= 0 && textTools) {
        // a `<result>` inside a call block (its input holds the tag) opens no answer (the whole text only when a tag is seen)
        const past = before.join("");
        const inCall = (at: number): boolean => unclosedCall(withoutCalls(past.slice(0, past.length - tail.length) + window.slice(0, at))) >= 0;
        while (open >= 0 && inCall(open)) open = lower.indexOf(OPEN, open + 1);
      }
      if (open < 0) {
        before.push(delta);
        tail = window.slice(-(OPEN.length - 1));
        return;
      }
      if (textTools && !rereading) {
        const all = before.join("") + delta;
        const lead = all.slice(0, all.length - window.length + open);
        if (OWN_FORM_START.test(lead) || markedOpen(lead)) {
          whole = [all];
          before = [];
          tail = "";
          mode = "whole";
          return;
        }
      }
      if (!thoughtSeen) {
        const all = before.join("") + delta;
        if (all.slice(0, all.length - window.length + open).trim() !== "") {
          // words before it, no reasoning block opened: they may be reasoning without its `<think>` (see "doubt")
          doubted = [all];
          doubtTail = asciiLower(all.slice(-THOUGHT_TAIL));
          before = [];
          tail = "";
          mode = "doubt";
          const thought = leadingThought(all);
          if (thought !== undefined && thought.end < all.length) settle(all, thought.end);
          return;
        }
      }
      held = window.slice(open + OPEN.length); // the preamble before it is dropped
      heldLead = "";
      // (its fences are not: one it left open is closed by the next)
      const all = before.join("") + delta;
      fenced = textTools && fenceOpenAfter(withoutCalls(all.slice(0, all.length - window.length + open)));
      through = 0;
      quiet = false;
      before = [];
      mode = "inside";
    } else {
      held += delta;
      if (quiet && !delta.includes(">")) return;
    }
    inside();
  }

  return {
    push,
    end(): void {
      if (mode === "whole") {
        const all = whole.join("");
        whole = [];
        const own = ownFormWords(all.slice(thoughtSeen ? 0 : (leadingThought(all)?.end ?? 0)));
        if (own !== undefined) {
          if (own !== "") emit(own);
          mode = "after";
        } else {
          // (no call: read again as it came, its `<result>` now an answer's)
          rereading = true;
          mode = "before";
          push(all);
        }
      }
      if (mode === "doubt") {
        // the reply ended: what it holds before a lone closing reasoning tag (if any) was the thought
        const all = doubted.join("");
        settle(all, leadingThought(all)?.end ?? 0);
      }
      // a reply that was only white space or the start of a tag: read as any text is
      if (mode === "start") {
        mode = "before";
        before = [lead];
        lead = "";
      }
      // (a reasoning block never closed holds no answer: nothing is shown)
      if (mode === "before") {
        let all = before.join("");
        // reasoning whose opening tag the reply left out (`…</think>\n\nParis`, see thinking.ts): the answer is after it
        if (!thoughtSeen) all = all.slice(leadingThought(all)?.end ?? 0);
        // tools as text: a reply of calls in a model's own form is read as those calls, and its words (see text-tools.ts)
        const own = textTools ? ownFormWords(all) : undefined;
        const words = own ?? withoutCalls(all);
        const open = own === undefined ? unclosedCall(words) : -1;
        let plain = open >= 0 ? words.slice(0, open) : words;
        // the closing tag without the opening one (the model left it out): the answer is what comes before it
        const close = closeTag(plain).at;
        if (close >= 0) plain = plain.slice(0, close);
        plain = plain.trim();
        if (plain !== "") emit(plain);
      } else if (mode === "inside") {
        // the reply ended: what was held as a possible call, tag or fence is read as the whole reply is
        const { words, close } = settledWords(held, heldLead, textTools, true, fenced);
        let rest = words.slice(through, close >= 0 ? close : words.length - partialClose(words)).trimEnd();
        if (!started) rest = rest.trimStart();
        if (rest !== "") emit(rest);
      }
      before = [];
      held = "";
      mode = "after";
    },
    shown: () => shown,
    restart(): void {
      mode = "start";
      heldLead = "";
      fenced = false;
      through = 0;
      quiet = false;
      lead = "";
      thought = "";
      thoughtSeen = false;
      held = "";
      started = false;
      before = [];
      tail = "";
      doubted = [];
      doubtTail = "";
      whole = [];
      rereading = false;
    },
  };
}
