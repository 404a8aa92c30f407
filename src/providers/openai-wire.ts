/**
 * functai's provider-neutral messages ⇄ OpenAI Chat Completions wire shapes.
 * Pure functions, no SDK at run time (types only), so they test without a server.
 */
import type { ChatCompletion, ChatCompletionChunk, ChatCompletionFunctionTool, ChatCompletionMessageParam } from "openai/resources/chat/completions";
import type { FinishReason, LMResponse, Message, ToolCall, ToolSpec } from "../lm/types.js";
import { cutShortArguments, stoppedEarly } from "../lm/cut-short.js";
import { nameOf, refuseReasonedCall, refuseUnfinished, tokenCount, toolCallFromText } from "./common.js";
import { describeValue } from "../errors.js";
import { isRecord } from "../runtime/values.js";
import { malformedEvent, notAReply, notShaped, notText } from "./errors.js";
import { OPENAI_IDS, replyIds, withWireIds } from "./tool-ids.js";

/**
 * The reasoning a thinking model gave beside its reply (`reasoning_content`,
 * whole or as a delta: DeepSeek, Kimi, vLLM's reasoning parsers); undefined
 * where the server gave none.
 */
const reasoningOf = (part: unknown): string | undefined => {
  const reasoning = (part as { reasoning_content?: unknown } | null | undefined)?.reasoning_content;
  return typeof reasoning === "string" ? reasoning : undefined;
};

/**
 * The reasoning a thinking model gave, under `reasoning_content` or, where
 * there is none, `reasoning` (vLLM's name since vllm-project/vllm#27752,
 * OpenRouter's and Groq's): read only to find a call the server left in it
 * (see refuseReasonedCall). Only `reasoning_content` is given back with the
 * calls (see reasoningOf): a server that names it `reasoning` is not known to
 * take it back under the other name.
 */
const thoughtOf = (part: unknown): string | undefined => {
  const reasoning = (part as { reasoning?: unknown } | null | undefined)?.reasoning;
  return reasoningOf(part) ?? (typeof reasoning === "string" ? reasoning : undefined);
};

/** The calls with the reply's reasoning kept on the first (see `ToolCall.reasoning`). */
const withReasoning = (calls: ToolCall[], reasoning: string | undefined): ToolCall[] =>
  reasoning === undefined || calls.length === 0 ? calls : [{ ...calls[0]!, reasoning }, ...calls.slice(1)];

/** A tool call's `extra_content` (Gemini's thought signature), whole or in a delta; undefined where there is none. */
const extraOf = (part: unknown): object | undefined => {
  const extra = (part as { extra_content?: unknown } | null | undefined)?.extra_content;
  return typeof extra === "object" && extra !== null ? extra : undefined;
};

/** A call with what the provider gave to be given back with it (see `ToolCall.extraContent`). */
const withExtra = (call: ToolCall, extra: object | undefined): ToolCall => (extra === undefined ? call : { ...call, extraContent: extra });

/**
 * A call's `extraContent` as it goes out as `extra_content`: without what
 * the Anthropic reader keeps there (`anthropic`: its thinking blocks, for
 * Anthropic alone); undefined where nothing else is left.
 */
function ownExtra(extra: unknown): object | undefined {
  if (typeof extra !== "object" || extra === null) return undefined;
  if (!Object.hasOwn(extra, "anthropic")) return extra;
  const { anthropic: _anthropic, ...rest } = extra as Record<string, unknown>;
  return Object.keys(rest).length > 0 ? rest : undefined;
}

/** The arguments as OpenAI wants them back: the model's own text when it was not valid JSON. */
const argumentsText = (call: ToolCall): string =>
  call.inputError !== undefined && typeof call.input === "string" ? call.input : JSON.stringify(call.input ?? {});

/**
 * Messages in order; each tool result is its own `role: "tool"` message answering a `tool_call_id`.
 * Call ids and names OpenAI refuses (another provider's) are sent as ones it takes (see tool-ids.ts).
 */
export function toOpenAIMessages(messages: readonly Message[]): ChatCompletionMessageParam[] {
  return withWireIds(messages, OPENAI_IDS).map((m): ChatCompletionMessageParam => {
    switch (m.role) {
      case "system":
      case "user":
        return { role: m.role, content: m.content };
      case "assistant": {
        const calls = m.toolCalls ?? [];
        if (calls.length === 0) return { role: "assistant", content: m.content };
        const message: ChatCompletionMessageParam = {
          role: "assistant",
          // OpenAI wants null, not "", beside tool calls.
          content: m.content === "" ? null : m.content,
          tool_calls: calls.map((c) => {
            const wire = { id: c.id, type: "function" as const, function: { name: c.name, arguments: argumentsText(c) } };
            // given back as it came (Gemini's thought signature); only a server that gave one gets one
            const extra = ownExtra(c.extraContent);
            return extra === undefined ? wire : { ...wire, extra_content: extra };
          }),
        };
        // a thinking model's reasoning goes back beside the calls it gave it with, as it came (only such a model gave one)
        const reasoning = calls[0]?.reasoning;
        return reasoning === undefined ? message : ({ ...message, reasoning_content: reasoning } as ChatCompletionMessageParam);
      }
      case "tool":
        // No error flag on the wire: the content says what went wrong.
        return { role: "tool", tool_call_id: m.toolCallId, content: m.content };
    }
  });
}

export const toOpenAITools = (tools: readonly ToolSpec[]): ChatCompletionFunctionTool[] =>
  tools.map((t) => ({ type: "function", function: { name: t.name, description: t.description, parameters: t.parameters } }));

export function finishReason(reason: string | null | undefined, hasToolCalls: boolean): FinishReason {
  switch (reason) {
    case "tool_calls":
    case "function_call":
      return "tool_calls";
    case "length":
    // cut off at the model's context length: Mistral's, Zhipu GLM's (their token limit is "length")
    case "model_length":
    case "model_context_window_exceeded":
      return "length";
    case "content_filter":
    // stopped by GLM's safety review
    case "sensitive":
      return "content_filter";
    case "stop":
      // Some OpenAI-compatible servers say "stop" beside tool calls; the calls are what matter.
      return hasToolCalls ? "tool_calls" : "stop";
    default:
      return "other";
  }
}

/** The calls of a reply that stopped early, its last (the one the cut hit: calls come after the text) cut short. */
const cutLast = (toolCalls: ToolCall[], reason: FinishReason): ToolCall[] =>
  stoppedEarly(reason) && toolCalls.length > 0 ? [...toolCalls.slice(0, -1), cutShortArguments(toolCalls.at(-1)!)] : toolCalls;

/**
 * The text of a message's `content`: a string, or (as Mistral's reasoning
 * models send it, whole and streamed) a list of parts whose `text` parts are
 * the text (a `thinking` part is not the reply).
 */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part: unknown) => {
      const p = part as { type?: unknown; text?: unknown } | null;
      return typeof p === "object" && p !== null && p.type === "text" && typeof p.text === "string" ? p.text : "";
    })
    .join("");
}

/**
 * Whether a message's or a delta's `content` is none of what it may be (see
 * contentText): read as none, its words were lost unseen.
 */
const notContent = (content: unknown): boolean => notText(content) && !Array.isArray(content);

/**
 * A call's `arguments` as text. OpenAI sends the JSON's text; some compatible
 * servers send the object itself, which is that JSON (never "[object Object]",
 * nor a TypeError from reading it as text).
 */
const argumentsOf = (args: unknown): string =>
  typeof args === "string" ? args : args === undefined || args === null ? "" : (JSON.stringify(args) ?? "");

/** A reply's `usage` as functai counts it (see tokenCount): none given is nothing counted. */
const usageOf = (usage: { prompt_tokens?: unknown; completion_tokens?: unknown } | null | undefined): LMResponse["usage"] => ({
  inputTokens: tokenCount("openai", "prompt_tokens", usage?.prompt_tokens),
  outputTokens: tokenCount("openai", "completion_tokens", usage?.completion_tokens),
});

/**
 * Whether a body is a whole chat completion, one `fromCompletion` reads: a
 * choice with a message (a stream's chunks carry a `delta` instead).
 */
export function isCompletion(body: unknown): boolean {
  const choices = (body as { choices?: unknown } | null)?.choices;
  if (!Array.isArray(choices)) return false;
  const message = (choices[0] as { message?: unknown } | null | undefined)?.message;
  return typeof message === "object" && message !== null;
}

/**
 * A whole (non-streamed) completion as an `LMResponse`.
 * @param offered the names of the tools the request offered (see refuseReasonedCall).
 */
export function fromCompletion(completion: ChatCompletion, offered: readonly string[] = []): LMResponse {
  // (a 204, or a body of JSON's null, comes from the SDK as null; a choice's message may be null)
  if (!isCompletion(completion)) throw notAReply("openai", completion, "a completion with a choice");
  const choice = completion.choices[0]!;
  const calls: unknown = choice.message.tool_calls;
  // (before, a bare TypeError)
  if (calls != null && (!Array.isArray(calls) || !calls.every(isRecord)))
    throw notAReply("openai", completion, "a completion whose tool_calls are a list of calls");
  const misshapen = misshapenMessage(choice.message);
  if (misshapen !== undefined) throw notAReply("openai", completion, misshapen);
  refuseUnfinished("openai", choice.finish_reason);
  // vLLM and Ollama may leave `type` out or send null: a call with a function is one (we offer no other kind; each has one: see misshapenMessage).
  const given = choice.message.tool_calls ?? [];
  const ids = replyIds(given.map((c) => c.id));
  const toolCalls = given.map((c, i) => {
    const fn = (c as { function: { name?: unknown; arguments?: unknown } }).function;
    return withExtra(toolCallFromText(ids[i]!, nameOf(fn.name), argumentsOf(fn.arguments)), extraOf(c));
  });
  const refusal = choice.message.refusal ?? "";
  const reason = refusal !== "" ? "refusal" : finishReason(choice.finish_reason, toolCalls.length > 0);
  const reasoning = reasoningOf(choice.message);
  const reply: LMResponse = {
    // a refusal comes instead of content (null): it is what the model said
    text: contentText(choice.message.content) || refusal,
    toolCalls: withReasoning(cutLast(toolCalls, reason), reasoning),
    finishReason: reason,
    usage: usageOf(completion.usage),
    ...(completion.model ? { model: completion.model } : {}),
  };
  refuseReasonedCall("openai", thoughtOf(choice.message), reply, offered);
  return reply;
}

interface PendingCall {
  id: string;
  name: string;
  args: string;
  extra?: object;
  /** Its name came again once its arguments were whole: arguments after that are another call of the same tool. */
  again?: boolean;
  /** Its last arguments delta, and whether each began with the one before it (see argumentsOfCall). */
  latest?: string;
  grown?: boolean;
}

/** Whether a call's argument text is whole: a JSON object (the cheap test first: it ends as one does). */
const wholeArguments = (args: string): boolean => {
  if (!args.trimEnd().endsWith("}")) return false;
  try {
    const parsed: unknown = JSON.parse(args);
    return typeof parsed === "object" && parsed !== null;
  } catch {
    return false;
  }
};

/**
 * A call's arguments, its deltas joined; or its last delta, where the joined
 * text is no JSON object and each delta began with the one before, the last
 * one whole: a server that sends all the arguments so far in every delta
 * rather than the next piece (DeepSeek's and Baidu Qianfan's compatible
 * endpoints: NousResearch/hermes-agent#35718), whose deltas joined were
 * `{"a"{"a":1{"a":1}`. Pieces of a JSON object joined are that object, so
 * arguments streamed in pieces are read as before, however they are cut.
 */
const argumentsOfCall = (call: PendingCall): string =>
  call.grown === true && !wholeArguments(call.args) && wholeArguments(call.latest ?? "") ? call.latest! : call.args;

/**
 * Whether a delta's arguments are the open call's whole arguments given
 * again (the same JSON), as a server that flushes a call's arguments whole
 * once they were streamed sends them (vLLM's tool parsers at the stream's
 * end: vllm-project/vllm#51697): joined, they were no JSON, and the call
 * never ran as the model asked.
 */
const repeats = (args: string, more: string): boolean =>
  wholeArguments(args) && wholeArguments(more) && JSON.stringify(JSON.parse(args)) === JSON.stringify(JSON.parse(more));

/**
 * How a delta's name (`name`, no other id than the open call's) reads on the
 * open call: the next piece of its name, its name given again (whole, or all
 * of it so far), or the name of another call. A name may come in pieces
 * (`"get_"` then `"weather"`: OpenAI's deltas allow it,
 * openai/openai-agents-python#326; Mistral's SDK joins such pieces; Gemini
 * has sent them, continuedev/continue#5849), while some servers repeat the
 * whole name in every delta (MiniMax through NVIDIA NIM,
 * NousResearch/hermes-agent#11984: joined, `read_fileread_file`), or all of
 * it so far, as they send cumulative arguments (`get`, `get_weather`,
 * `get_weather`: joined, `getget_weatherget_weather`). Once the call's
 * arguments began, a name is never a piece. Until they begin, the offered
 * tools' names tell: where the two joined begin a tool's name, a piece (the
 * name in pieces of an offered tool always reads so, however it is cut);
 * else where the delta's name begins with the name so far, that name again
 * (the same, or grown: all of it so far); else, where the name so far is a
 * tool's, another call (servers that give calls no ids and put them all at
 * index 0, a tool without arguments before it); else a piece (a name the
 * model made up). A call of `get` with no arguments at all, then one of
 * `get_weather` at its index with no id of its own, reads as the one call of
 * `get_weather`: a server that puts every call at index 0 without ids sends
 * each whole, arguments too (Ollama: `{}` for none), and read as two, a tool
 * the model never called would run.
 */
function nameRead(call: PendingCall, name: string, offered: readonly string[]): "piece" | "again" | "another" {
  if (call.name === "") return "piece";
  if (offered.some((tool) => tool.startsWith(call.name + name))) return "piece";
  if (name.startsWith(call.name)) return "again";
  return offered.includes(call.name) ? "another" : "piece";
}

/**
 * Whether a delta that gives no other id than the open call's starts another
 * call (servers that give calls no ids and put them all at index 0): it names
 * a function, and the open call already has its name and whole arguments,
 * while the delta names another function or brings arguments of its own (a
 * name alone, the same, may be a server repeating it: the call is marked,
 * and arguments after it start the next call). A call still without
 * arguments is followed by another only when another function is named
 * that is neither a piece of its name nor its name again (see nameRead).
 */
function startsAnother(call: PendingCall, name: string | undefined, args: string, offered: readonly string[]): boolean {
  if (call.name === "") return false;
  if (!name) return call.again === true && args.trim() !== "" && wholeArguments(call.args);
  if (call.args.trim() === "") return nameRead(call, name, offered) === "another";
  // (whole as a server that sends all the arguments so far in each delta has them, too: see argumentsOfCall)
  if (name !== call.name) return wholeArguments(argumentsOfCall(call));
  if (!wholeArguments(call.args)) return false;
  if (args.trim() !== "") return true;
  call.again = true;
  return false;
}

/**
 * Refuses a chunk a part of which is not of its shape where the reply is
 * read from it (before, a bare TypeError, or the part's content lost
 * unseen): the chunk itself, its `choices`, its choice, the delta, its
 * `tool_calls` and each of them. Null where nothing came is let be, as
 * compatible servers send it: `delta: null` beside the finish, `choices:
 * null` or none in a chunk of usage alone, `tool_calls: null`.
 */
function checkChunk(chunk: unknown): void {
  if (!isRecord(chunk)) throw malformedEvent("openai", notShaped("a chunk that is", chunk, "an object"));
  // old vLLM's error mid-stream, unwrapped (no `error` key, which the SDK throws for): the server's error, not an empty chunk
  if (chunk.object === "error") throw notAReply("openai", chunk, "a chunk");
  const choices = chunk.choices;
  if (choices === undefined || choices === null) return;
  if (!Array.isArray(choices)) throw malformedEvent("openai", notShaped("a chunk whose choices are", choices, "a list"));
  const choice: unknown = choices[0];
  if (choice === undefined) return;
  if (!isRecord(choice)) throw malformedEvent("openai", notShaped("a chunk whose choice is", choice, "an object"));
  const delta = choice.delta;
  if (delta === undefined || delta === null) return;
  if (!isRecord(delta)) throw malformedEvent("openai", notShaped("a chunk whose delta is", delta, "an object"));
  if (notContent(delta.content)) throw malformedEvent("openai", notShaped("a delta whose content is", delta.content, "a string or a list of parts"));
  if (notText(delta.refusal)) throw malformedEvent("openai", notShaped("a delta whose refusal is", delta.refusal, "a string"));
  const calls = delta.tool_calls;
  if (calls === undefined || calls === null) return;
  if (!Array.isArray(calls)) throw malformedEvent("openai", notShaped("a delta whose tool_calls are", calls, "a list"));
  for (const call of calls as unknown[]) checkCallDelta(call);
}

/**
 * Refuses a tool call delta not of its shape: no object, its `id` no string
 * (kept, the next request was refused `input-invalid`), its `function` no
 * object, its `function.name` no string (read as it was, a call named 42 or
 * "[object Object]"). Null or left out is let be, as compatible servers send it.
 */
function checkCallDelta(call: unknown): void {
  if (!isRecord(call)) throw malformedEvent("openai", notShaped("a tool call delta that is", call, "an object"));
  if (notText(call.id)) throw malformedEvent("openai", notShaped("a tool call delta whose id is", call.id, "a string"));
  const fn = call.function;
  if (fn === undefined || fn === null) return;
  if (!isRecord(fn)) throw malformedEvent("openai", notShaped("a tool call delta whose function is", fn, "an object"));
  if (notText(fn.name)) throw malformedEvent("openai", notShaped("a tool call delta whose function.name is", fn.name, "a string"));
}

/**
 * What of a whole completion's message is not of its shape where the reply
 * is read from it (a refusal, a call's id or name, that is no string: read
 * as it was, the text or a tool's name was "[object Object]", and a call's
 * id refused in the next request; a call without a function); undefined
 * where all is.
 */
function misshapenMessage(message: { content?: unknown; refusal?: unknown; tool_calls?: unknown }): string | undefined {
  if (notContent(message.content)) return `a completion whose content is a string or a list of parts (it is ${describeValue(message.content, 40)})`;
  if (notText(message.refusal)) return `a completion whose refusal is a string (it is ${describeValue(message.refusal, 40)})`;
  const calls = (message.tool_calls ?? []) as { id?: unknown; function?: { name?: unknown } | null }[];
  const id = calls.find((c) => notText(c.id))?.id;
  if (id !== undefined) return `a completion whose tool calls' ids are strings (one's id is ${describeValue(id, 40)})`;
  // (dropped, the other calls of the reply ran as though the model had asked for them alone)
  const fn = calls.find((c) => !isRecord(c.function));
  if (fn !== undefined) return `a completion whose tool calls each have a function (one's is ${describeValue(fn.function, 40)})`;
  const name = calls.find((c) => notText(c.function?.name))?.function?.name;
  return name === undefined ? undefined : `a completion whose tool calls' names are strings (one's function.name is ${describeValue(name, 40)})`;
}

/**
 * Builds an `LMResponse` from stream chunks. Tool calls arrive as deltas keyed
 * by `index`: the id and name in the first, argument fragments after.
 * Compatible servers bend this: Ollama labels every call of a reply index 0,
 * and some servers send no index at all. So a delta that starts a call (a
 * name with an id other than the open call's) opens a new one even where its
 * index already has one; any other delta continues the call its index (or
 * the missing index) last opened; a delta with no index continues the call
 * last opened, whatever its index. (A new id alone does not: some servers
 * change the id between the pieces of one call.) Where no id tells calls
 * apart, a function name on a call whose arguments are already whole starts
 * the next one (see startsAnother).
 */
export class ChunkAccumulator {
  /** @param offered the names of the tools the request offered (see nameRead). */
  constructor(private readonly offered: readonly string[] = []) {}

  private text = "";
  /** In the order they opened (which is index order where the server numbers them). */
  private readonly calls: PendingCall[] = [];
  /** The call each index is on now. */
  private readonly open = new Map<number | undefined, PendingCall>();
  private reason: string | null = null;
  /** Whether the model refused (its refusal is the text): the reply then finished by `refusal`. */
  private refused = false;
  /** A thinking model's reasoning deltas, joined; undefined while none came. */
  private reasoning: string | undefined;
  /** Its reasoning under either name (see thoughtOf), joined; undefined while none came. */
  private thought: string | undefined;
  private inputTokens = 0;
  private outputTokens = 0;
  private model: string | undefined;

  /** Whether usage came with the finish or after it: the reply's last chunk (see `ended`). */
  private counted = false;

  /** Whether a finish reason came: a stream cut short must not pass for a whole reply. */
  get complete(): boolean {
    return this.reason !== null;
  }

  /**
   * Whether the reply's last chunk came: its finish, and usage with it or
   * after it (the chunk `stream_options.include_usage` asks for, sent last).
   * Nothing is read after it: the `openai` SDK reads on until the body ends,
   * even past `[DONE]`, and a server that leaves the body open after it held
   * the reply until the idle bound (ten minutes).
   */
  get ended(): boolean {
    return this.counted;
  }

  /** Adds one chunk; returns its text delta ("" when none). */
  add(chunk: ChatCompletionChunk): string {
    checkChunk(chunk);
    if (chunk.model) this.model = chunk.model;
    const choice = chunk.choices?.[0];
    if (choice?.finish_reason) this.reason = choice.finish_reason;
    // (Moonshot's Kimi gives it inside the last chunk's choice, beside the finish)
    const usage = chunk.usage ?? (choice as { usage?: ChatCompletionChunk["usage"] } | undefined)?.usage;
    if (usage) {
      ({ inputTokens: this.inputTokens, outputTokens: this.outputTokens } = usageOf(usage));
      if (this.reason !== null) this.counted = true;
    }
    if (choice === undefined) return "";
    for (const d of choice.delta?.tool_calls ?? []) {
      const index: number | undefined = d.index; // (typed as always there; not so on every server)
      const extra = extraOf(d);
      // a delta of only that (Gemini sends its thought signature so) belongs to the call it follows: it opens none
      if (extra !== undefined && !d.id && !d.function?.name && !d.function?.arguments && this.open.get(index) === undefined) {
        const last = this.calls.at(-1);
        if (last !== undefined) last.extra = extra;
        continue;
      }
      // a delta with no index after calls opened at one (a proxy that copies only the arguments onto later deltas)
      // continues the call last opened: opening one of its own, the call ran with {} and a nameless one came too
      // (where no delta has an index, that is the one the missing index opened)
      let call = index === undefined ? this.calls.at(-1) : this.open.get(index);
      const args = argumentsOf(d.function?.arguments);
      const newId = d.id && call !== undefined && call.id !== "" && d.id !== call.id;
      if (call === undefined || (newId && d.function?.name) || (!newId && startsAnother(call, d.function?.name || undefined, args, this.offered))) {
        // (a call of the same tool again, its name given before its arguments: see startsAnother)
        call = { id: "", name: call?.again === true && !d.function?.name ? call.name : "", args: "" };
        this.calls.push(call);
        this.open.set(index, call);
      }
      if (d.id) call.id = d.id;
      const name = d.function?.name;
      // the first name, or its next piece; a name given again (whole, or all of it so far, as some compatible servers
      // send it) is the name once (see nameRead)
      const read = name && call.args.trim() === "" ? nameRead(call, name, this.offered) : undefined;
      if (read === "piece") call.name += name;
      else if (read === "again") call.name = name!;
      // another name once the call's arguments began, with no id or whole arguments to start a call of its own: no
      // piece (see nameRead), and dropped, the call ran under the name so far (`refund`, its `_all` lost: another tool)
      else if (name && name !== call.name && call.args.trim() !== "")
        throw malformedEvent(
          "openai",
          `a tool call delta naming ${describeValue(name, 40)} after the arguments of the call named ${describeValue(call.name, 40)} began (neither that name again nor a new call: which tool was called is not known)`,
        );
      if (args !== "" && !repeats(call.args, args)) {
        call.grown = call.latest === undefined || (call.grown === true && args.startsWith(call.latest));
        call.latest = args;
        call.args += args;
      }
      if (extra !== undefined) call.extra = extra;
    }
    const reasoning = reasoningOf(choice.delta);
    if (reasoning !== undefined) this.reasoning = (this.reasoning ?? "") + reasoning;
    const thought = thoughtOf(choice.delta);
    if (thought !== undefined) this.thought = (this.thought ?? "") + thought;
    // a refusal streams instead of content, as its own deltas: it is what the model said
    const refusal = choice.delta?.refusal ?? "";
    if (refusal !== "") this.refused = true;
    const delta = contentText(choice.delta?.content) + refusal;
    this.text += delta;
    return delta;
  }

  response(): LMResponse {
    refuseUnfinished("openai", this.reason);
    const ids = replyIds(this.calls.map((c) => c.id));
    const toolCalls = this.calls.map((c, i) => withExtra(toolCallFromText(ids[i]!, c.name, argumentsOfCall(c)), c.extra));
    const reason = this.refused ? "refusal" : finishReason(this.reason, toolCalls.length > 0);
    const reply: LMResponse = {
      text: this.text,
      toolCalls: withReasoning(cutLast(toolCalls, reason), this.reasoning),
      finishReason: reason,
      usage: { inputTokens: this.inputTokens, outputTokens: this.outputTokens },
      ...(this.model !== undefined ? { model: this.model } : {}),
    };
    refuseReasonedCall("openai", this.thought, reply, this.offered);
    return reply;
  }
}
