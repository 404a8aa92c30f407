import { FunctaiError } from "../errors.js";
import { cutShort, stoppedEarly } from "../lm/cut-short.js";
import { inBlock } from "../lm/prompt.js";
import { asciiLower } from "../lm/reply-text.js";
import { FINISH_REASONS, LM_SPEC, type FinishReason, type LanguageModel, type LMRequest, type LMResponse, type Usage } from "../lm/types.js";
import { namedKeys, unknownKeys } from "../runtime/values.js";

/**
 * One scripted reply, as an object: the model's text, tool calls, usage.
 * `chunks` gives the text exactly as it streams, in these pieces (their
 * concatenation is the reply's text; give `text` or `chunks`, not both):
 * `{ chunks: ["<res", "ult>\nHi", "\n</result>"] }`.
 *
 * `finishReason` says why the reply ended, as a provider's does (default:
 * `"tool_calls"` with calls, else `"stop"`): `"length"` for a reply cut off
 * at its token limit, `"content_filter"` for one a filter stopped,
 * `"refusal"`, `"other"`. A reply that stopped early (`length`,
 * `content_filter`) with tool calls has its last call cut short, as a
 * provider's is: it does not run and the model is told (with
 * `nativeTools: false` its block is written without its closing tag).
 *
 * @example
 * const call: ScriptedAnswer = { toolCalls: [{ name: "lookupOrder", input: { id: "A-1042" } }], usage: { inputTokens: 50 } };
 * const streamed: ScriptedAnswer = { chunks: ["<res", "ult>\nIt is at ", "the carrier.\n</result>"] };
 * const cutOff: ScriptedAnswer = { text: "<result>\nIt is at the", finishReason: "length" };
 * const lm = scripted([call, streamed]);
 */
export interface ScriptedAnswer {
  text?: string;
  chunks?: readonly string[];
  toolCalls?: { name: string; input: unknown; id?: string }[];
  usage?: Partial<Usage>;
  /** Why the reply ended (see above); default `"tool_calls"` with calls, else `"stop"`. */
  finishReason?: FinishReason;
}

/**
 * A scripted reply: the model's text, or tool calls (and text), or a function of the request returning one.
 *
 * @example
 * const replies: ScriptedReply[] = [
 *   "Plain text.",
 *   { toolCalls: [{ name: "refund", input: { id: "A-1042" } }] },
 *   (request, index) => `Reply ${index} to ${request.messages.length} messages.`,
 * ];
 * const lm = scripted(replies);
 */
export type ScriptedReply = string | ScriptedAnswer | ((request: LMRequest, index: number) => string | ScriptedAnswer);

/**
 * How a scripted model writes and streams its replies.
 *
 * @example
 * const options: ScriptedOptions = { form: "reply", nativeTools: false, model: "scripted-text" };
 * const lm = scripted(["It is at the carrier."], options); // sent as <result>\nIt is at the carrier.\n</result>
 */
export interface ScriptedOptions {
  /** Tools offered natively (default) or as text, with calls written as `<tool_call>` blocks. */
  nativeTools?: boolean;
  model?: string;
  /**
   * `"reply"`: a text answer (text, no tool calls) is written in the reply
   * form a model is told to use, `<result>\n…\n</result>`, so tests see
   * what a real model sends. `"plain"` (default): the text as given. A
   * reply given as `chunks`, or whose text already holds `<result>` (in any
   * case, as replies are read), is sent as given. A reply that stopped early
   * (`finishReason: "length"` or `"content_filter"`) is written without its
   * `</result>`, as a cut reply is; a refusal (`finishReason: "refusal"`)
   * is sent as given, a model's own words.
   */
  form?: "plain" | "reply";
  /** How a reply's text streams: word by word (default) or in pieces of this many characters. */
  chunks?: "words" | number;
}

/**
 * The scripted model: a `LanguageModel` that also shows what it was sent.
 *
 * @example
 * const lm: ScriptedLM = scripted(["Hi."]);
 * await answer("Hello?", { lm });
 * lm.requests.length; // 1
 */
export interface ScriptedLM extends LanguageModel {
  /**
   * Every request it was sent, in order (to check nothing was paid for twice).
   * Kept as given, not copied: an AI function's requests never change once
   * sent, but a request of your own that you change after sending it shows
   * the change here.
   */
  readonly requests: LMRequest[];
  /** Replies not used yet. */
  readonly remaining: number;
}

const DEFAULT_USAGE: Usage = { inputTokens: 10, outputTokens: 5 };

function pieces(text: string, chunks: ScriptedOptions["chunks"]): string[] {
  if (typeof chunks !== "number") return text.split(/(?<= )/);
  // (a whole number, 1 or more: checked when the model is made, see checkOptions)
  // n characters are n code points: a character outside the BMP (an emoji) is two UTF-16 units, and a piece
  // ending between them would stream half a character (a lone surrogate, "�" once written out), as no provider does
  const out: string[] = [];
  let start = 0;
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) i++;
    if (++count === chunks) {
      out.push(text.slice(start, i + 1));
      start = i + 1;
      count = 0;
    }
  }
  if (start < text.length) out.push(text.slice(start));
  return out;
}

const OPTION_KEYS = ["nativeTools", "model", "form", "chunks"];

/**
 * Refuses options that are not one of the documented values, or not options
 * at all: a mistyped one (`form: "replies"`, `nativeTools: "false"`, or the
 * key itself, `nativetools: false`) read as its default would run the test
 * against another model than the one asked for, with nothing to say so.
 */
function checkOptions(options: ScriptedOptions): void {
  const wrong = (key: string, value: unknown, want: string): FunctaiError =>
    new FunctaiError(
      "settings-invalid",
      `scripted model: ${key} is ${typeof value === "string" ? JSON.stringify(value) : String(value)}; give ${want}.`,
    );
  const odd = unknownKeys(Object.keys(options), OPTION_KEYS);
  if (odd.length > 0)
    throw new FunctaiError(
      "settings-invalid",
      `scripted model: ${namedKeys(odd, "is not an option", "are not options")}; its options are nativeTools, model, form and chunks.`,
    );
  const { nativeTools, model, form, chunks } = options;
  if (nativeTools !== undefined && typeof nativeTools !== "boolean") throw wrong("nativeTools", nativeTools, "true or false");
  if (model !== undefined && (typeof model !== "string" || model === "")) throw wrong("model", model, "a name");
  if (form !== undefined && form !== "plain" && form !== "reply") throw wrong("form", form, '"plain" or "reply"');
  if (chunks !== undefined && chunks !== "words" && !(typeof chunks === "number" && Number.isInteger(chunks) && chunks >= 1))
    throw wrong("chunks", chunks, '"words" or a whole number of characters, 1 or more');
}

const REPLY_KEYS = ["text", "chunks", "toolCalls", "usage", "finishReason"];

/** The finish reasons a reply may give (LMResponse's). */

/**
 * Refuses a reply object that would be read as something else: a promise
 * (an async reply function) or any other non-plain object, a key a reply
 * does not have (`txt`, `toolcalls`), chunks that are not strings. Each of
 * them read as given is an empty reply, and the test fails far from why.
 */
function refuseOdd(r: object, index: number): void {
  const proto = Object.getPrototypeOf(r) as unknown;
  if (proto !== Object.prototype && proto !== null) {
    const thenable = typeof (r as { then?: unknown }).then === "function";
    // the promise is refused, so nobody else will wait for it: its rejection (an async reply function that threw)
    // is handled here, where it would otherwise be an unhandled rejection that ends a Node process
    if (thenable) Promise.resolve(r).catch(() => {});
    const what = thenable
      ? "a promise (a reply function returns its reply, it is not async)"
      : `a ${(r as { constructor?: { name?: string } }).constructor?.name ?? "non-plain"} object`;
    throw new FunctaiError("provider-response", `scripted model: reply ${index + 1} is ${what}, not a string or { text?, toolCalls? }`);
  }
  const odd = unknownKeys(Object.keys(r), REPLY_KEYS);
  if (odd.length > 0)
    throw new FunctaiError(
      "provider-response",
      `scripted model: reply ${index + 1} has ${namedKeys(odd)}; a reply has text, chunks, toolCalls, usage and finishReason`,
    );
  const { chunks, toolCalls, finishReason } = r as ScriptedAnswer;
  // a mistyped reason ("content-filter", "max_tokens") read as the default would test a whole reply, not a cut one
  if (finishReason !== undefined && !FINISH_REASONS.includes(finishReason))
    throw new FunctaiError(
      "provider-response",
      `scripted model: reply ${index + 1} has finishReason ${typeof finishReason === "string" ? JSON.stringify(finishReason) : String(finishReason)}; give one of ${FINISH_REASONS.map((f) => JSON.stringify(f)).join(", ")}`,
    );
  if (chunks !== undefined && (!Array.isArray(chunks) || !chunks.every((c) => typeof c === "string")))
    throw new FunctaiError("provider-response", `scripted model: reply ${index + 1} has chunks that are not a list of strings`);
  if (Array.isArray(toolCalls)) toolCalls.forEach((call: unknown, i) => refuseOddCall(call, index, i));
  if ("usage" in r && r.usage !== undefined) refuseOddUsage(r.usage, index);
}

const USAGE_KEYS = ["inputTokens", "outputTokens"];

/**
 * Refuses a usage that is not `{ inputTokens?, outputTokens? }` of token
 * counts (whole numbers, 0 or more): merged over the default as given, a
 * misspelt key (`input: 50`) cost the default tokens and was kept with the
 * reply, and a test of a turn's usage failed far from why.
 */
function refuseOddUsage(usage: unknown, index: number): void {
  const where = `scripted model: reply ${index + 1} has a usage`;
  const proto = typeof usage === "object" && usage !== null ? (Object.getPrototypeOf(usage) as unknown) : undefined;
  if (proto !== Object.prototype && proto !== null)
    throw new FunctaiError(
      "provider-response",
      `${where} that is ${usage === null ? "null" : Array.isArray(usage) ? "an array" : typeof usage}, not { inputTokens?, outputTokens? }`,
    );
  const odd = unknownKeys(Object.keys(usage as object), USAGE_KEYS);
  if (odd.length > 0)
    throw new FunctaiError("provider-response", `${where} with ${namedKeys(odd)}; a usage has inputTokens and outputTokens`);
  for (const key of USAGE_KEYS) {
    const n = (usage as Record<string, unknown>)[key];
    if (n !== undefined && !(typeof n === "number" && Number.isInteger(n) && n >= 0))
      throw new FunctaiError(
        "provider-response",
        `${where} whose ${key} is ${typeof n === "string" ? JSON.stringify(n) : String(n)}; give a whole number of tokens, 0 or more`,
      );
  }
}

const CALL_KEYS = new Set(["name", "input", "id"]);

/**
 * Refuses a scripted tool call that is not `{ name, input, id? }`: `null` or
 * a text would crash the model with a TypeError, a name that is not a text
 * makes a reply no engine can read, and a key a call does not have
 * (`inputs`, `nme`) would run the tool with no input, or none at all, the
 * test failing far from why.
 */
function refuseOddCall(call: unknown, index: number, i: number): void {
  const where = `scripted model: reply ${index + 1}, tool call ${i + 1}`;
  const proto = typeof call === "object" && call !== null ? (Object.getPrototypeOf(call) as unknown) : undefined;
  if (proto !== Object.prototype && proto !== null)
    throw new FunctaiError(
      "provider-response",
      `${where} is ${call === null ? "null" : Array.isArray(call) ? "an array" : typeof call}, not { name, input, id? }`,
    );
  const odd = Object.keys(call as object).filter((k) => !CALL_KEYS.has(k));
  if (odd.length > 0)
    throw new FunctaiError("provider-response", `${where} has ${odd.map((k) => JSON.stringify(k)).join(", ")}; a tool call has name, input and id`);
  const { name, id } = call as { name?: unknown; id?: unknown };
  if (typeof name !== "string" || (id !== undefined && typeof id !== "string"))
    throw new FunctaiError("provider-response", `${where} needs a name that is a string (and an id, when given, that is one): { name, input, id? }`);
  const input = (call as { input?: unknown }).input;
  const notData = input === undefined ? undefined : notJson(input, "input", new Set());
  if (notData !== undefined)
    throw new FunctaiError(
      "provider-response",
      `${where} has an input a model cannot send: ${notData}. A model's input is JSON (give the string a model would write, e.g. a date's toISOString())`,
    );
}

/**
 * Where `value` holds what is not JSON data, and what it is; undefined when
 * it is all JSON (a key left undefined is left out, as JSON leaves it). A
 * Date, a Map, NaN given to the tool as it is would pass a test on an input
 * no model sends, the journal keeping (and a resumed turn giving) its JSON.
 */
function notJson(value: unknown, at: string, open: Set<object>): string | undefined {
  switch (typeof value) {
    case "string":
    case "boolean":
      return undefined;
    case "number":
      return Number.isFinite(value) ? undefined : `${String(value)} at ${at}`;
    case "object": {
      if (value === null) return undefined;
      if (open.has(value)) return `a cycle at ${at}`;
      const proto = Object.getPrototypeOf(value) as unknown;
      const array = Array.isArray(value) && proto === Array.prototype;
      if (!array && proto !== Object.prototype && proto !== null)
        return `${Array.isArray(value) ? "an array of another kind" : `a ${(value as { constructor?: { name?: string } }).constructor?.name ?? "non-plain"} object`} at ${at}`;
      open.add(value);
      try {
        if (array) {
          for (let i = 0; i < (value as unknown[]).length; i++) {
            const item = (value as unknown[])[i];
            const odd = item === undefined ? `undefined at ${at}[${i}]` : notJson(item, `${at}[${i}]`, open);
            if (odd !== undefined) return odd;
          }
          return undefined;
        }
        for (const [key, item] of Object.entries(value)) {
          const odd = item === undefined ? undefined : notJson(item, `${at}.${key}`, open);
          if (odd !== undefined) return odd;
        }
        return undefined;
      } finally {
        open.delete(value);
      }
    }
    default:
      return `a ${typeof value} at ${at}`;
  }
}

/** How much of the last message an ended script's error quotes. */
const QUOTED = 300;

/**
 * What the request the script could not answer ends with, after a reply of
 * the script: why the engine asked again (a tool not offered, an input the
 * tool refused, an answer it could not read), which is the script's mistake
 * a test writer has to see. Nothing for a first request (it ends with the inputs).
 */
function lastSent(request: LMRequest, index: number): string {
  if (index === 0) return "";
  const last = (request as { messages?: unknown }).messages;
  const message = Array.isArray(last) ? (last.at(-1) as Partial<Record<"role" | "content" | "name", unknown>> | undefined) : undefined;
  if (typeof message?.content !== "string") return "";
  const who = message.role === "tool" && typeof message.name === "string" ? `the result of ${message.name}` : String(message.role);
  const text = message.content.length > QUOTED ? `${message.content.slice(0, QUOTED)}…` : message.content;
  return ` Its last message (${who}) was:\n${text}`;
}

/** The reply's text and the pieces it streams in. */
function written(r: ScriptedAnswer, hasCalls: boolean, options: ScriptedOptions, finishReason: FinishReason): { text: string; stream: readonly string[] } {
  if (r.chunks !== undefined) {
    const text = r.chunks.join("");
    if (r.text !== undefined && r.text !== text)
      throw new FunctaiError("settings-invalid", "scripted model: a reply gives both text and chunks, and they differ; give one of them.");
    return { text, stream: r.chunks };
  }
  let text = r.text ?? "";
  // its tags in any case, as the reply is read (lm/prompt.ts): a `<RESULT>` block wrapped again would be a block in a block
  // (a reply stopped early, at its token limit or by a filter, never wrote its closing tag; a model's refusal is
  // its own words, not in the reply form)
  if (options.form === "reply" && !hasCalls && text !== "" && finishReason !== "refusal" && !asciiLower(text).includes("<result>"))
    text = stoppedEarly(finishReason) ? `<result>\n${text}` : `<result>\n${text}\n</result>`;
  return { text, stream: pieces(text, options.chunks) };
}

/**
 * A model that answers from a list, in order, streaming each reply's text
 * when asked to. With `nativeTools: false` the tools are offered as text and
 * its tool calls are written as text blocks, read back as a real model's
 * would be. With `form: "reply"` it answers in the reply form and `chunks`
 * sets how finely it streams, so a test sees what a user sees. Asked once
 * more than it has replies, it fails with `lm-script-ended`. A signal
 * aborted before the call, or while its text streams, fails the call with
 * the signal's reason, as a provider's does.
 *
 * @example
 * const lm = scripted([{ toolCalls: [{ name: "lookup_order", input: { order_id: "A-1042" } }] }, "It is stuck at the carrier."]);
 * await answer("Where is A-1042?", { lm });
 * lm.requests.length; // 2
 *
 * // replies as a model does: "<result>\nIt is stuck at the carrier.\n</result>", three characters a chunk
 * const real = scripted(["It is stuck at the carrier."], { form: "reply", chunks: 3 });
 */
export function scripted(replies: readonly ScriptedReply[], options: ScriptedOptions = {}): ScriptedLM {
  // a string would be read a character a reply ("Hi." as three replies): refused
  if (!Array.isArray(replies as unknown))
    throw new FunctaiError(
      "settings-invalid",
      `scripted model: its replies are ${replies === null ? "null" : typeof replies}; give a list, e.g. scripted(["Hi."]).`,
    );
  if (typeof options !== "object" || options === null)
    throw new FunctaiError("settings-invalid", 'scripted model: its options are not an object; give e.g. { form: "reply" }.');
  checkOptions(options);
  const nativeTools = options.nativeTools ?? true;
  const requests: LMRequest[] = [];
  let next = 0;
  const lm: ScriptedLM = {
    specificationVersion: LM_SPEC,
    provider: "scripted",
    model: options.model ?? "scripted",
    nativeTools,
    requests,
    get remaining() {
      return Math.max(0, replies.length - next); // (a script asked past its end has none left, not fewer)
    },
    async generate(request, generateOptions): Promise<LMResponse> {
      if (generateOptions?.signal?.aborted) throw generateOptions.signal.reason;
      requests.push(request);
      const index = next++;
      if (index >= replies.length)
        throw new FunctaiError(
          "lm-script-ended",
          `scripted model: its script ended. It was asked for reply ${index + 1} and has ${replies.length}; add a reply, or find why the model was asked again.${lastSent(request, index)}`,
        );
      // (an entry of the script left undefined, or a hole, is refused below as a reply of no shape: the script has not ended)
      let reply = replies[index];
      if (typeof reply === "function") reply = reply(request, index);
      if (typeof reply !== "string" && (typeof reply !== "object" || reply === null || Array.isArray(reply)))
        throw new FunctaiError(
          "provider-response",
          `scripted model: reply ${index + 1} is ${reply === null ? "null" : Array.isArray(reply) ? "an array" : typeof reply}, not a string or { text?, toolCalls? }`,
        );
      const r = typeof reply === "string" ? { text: reply } : reply;
      refuseOdd(r, index);
      // a real model's null text or tool calls is a broken reply, not an empty one: the same here
      if ((r.text !== undefined && typeof r.text !== "string") || (r.toolCalls !== undefined && !Array.isArray(r.toolCalls)))
        throw new FunctaiError(
          "provider-response",
          `scripted model: reply ${index + 1} has text ${r.text === null ? "null" : typeof r.text} and toolCalls ${r.toolCalls === null ? "null" : typeof r.toolCalls}; give a string and an array (or leave them out)`,
        );
      const calls = (r.toolCalls ?? []).map((c, i) => ({ id: c.id ?? `call_${index + 1}_${i + 1}`, name: c.name, input: c.input }));
      const usage = { ...DEFAULT_USAGE, ...r.usage };
      const finishReason: FinishReason = r.finishReason ?? (calls.length > 0 ? "tool_calls" : "stop");
      // a reply that stopped early cut its last part: its last call (calls come after the text), as a provider's is
      const cut = stoppedEarly(finishReason) && calls.length > 0;
      let { text, stream } = written(r, calls.length > 0, options, finishReason);
      if (!nativeTools && calls.length > 0) {
        // a model reading tools as text writes its calls into its text, and streams them like any text
        // (an input holding `</tool_call>` is written `<\/tool_call>`, the same JSON, as a request writes it: see inBlock);
        // cut off, its last block never closed
        const blocks = calls
          .map(
            (c, i) =>
              `<tool_call>\n${inBlock("tool_call", JSON.stringify({ name: c.name, input: c.input }))}${cut && i === calls.length - 1 ? "" : "\n</tool_call>"}`,
          )
          .join("\n");
        const after = text === "" ? blocks : `\n${blocks}`;
        text += after;
        // a reply's own chunks stream as given, then its calls
        stream = r.chunks !== undefined ? [...stream, ...pieces(after, options.chunks)] : pieces(text, options.chunks);
      }
      const { signal, onText } = generateOptions ?? {};
      if (onText)
        for (const piece of stream) {
          if (piece !== "") onText(piece);
          // stopped while it streams: no more text, and the call fails with the signal's reason, as a provider's does
          if (signal?.aborted) throw signal.reason;
        }
      if (!nativeTools && calls.length > 0)
        return { text, toolCalls: [], finishReason: r.finishReason ?? "stop", usage, model: lm.model };
      const toolCalls = cut ? [...calls.slice(0, -1), cutShort(calls.at(-1)!)] : calls;
      return { text, toolCalls, finishReason, usage, model: lm.model };
    },
  };
  return lm;
}
