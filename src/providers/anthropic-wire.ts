/**
 * functai's provider-neutral messages ⇄ Anthropic Messages wire shapes.
 * Pure functions, no SDK at run time (types only).
 */
import type { ContentBlockParam, Message as AnthropicMessage, MessageParam, RawMessageStreamEvent, Tool } from "@anthropic-ai/sdk/resources/messages";
import type { FinishReason, LMResponse, Message, ToolCall, ToolSpec } from "../lm/types.js";
import { cutShortArguments, stoppedEarly } from "../lm/cut-short.js";
import { nameOf, refuseUnfinished, tokenCount, toolCallFromText } from "./common.js";
import { describeValue } from "../errors.js";
import { isRecord } from "../runtime/values.js";
import { malformedEvent, notAReply, notShaped, notText } from "./errors.js";
import { ANTHROPIC_IDS, withWireIds } from "./tool-ids.js";

/** `tool_use.input` must be an object: a call whose arguments were not valid JSON is sent back as `{}`. */
const inputObject = (call: ToolCall): Record<string, unknown> =>
  typeof call.input === "object" && call.input !== null && !Array.isArray(call.input) ? (call.input as Record<string, unknown>) : {};

/**
 * What an empty user message says: a function with no inputs (or with every
 * optional one left out) has one, and the API refuses a conversation without
 * a user message first, or with an empty one.
 */
export const NO_INPUT = "(no input)";

/** A thinking block as the reply gave it: its text and signature, or (redacted) its data. */
type Thinking = { type: "thinking"; thinking: string; signature: string } | { type: "redacted_thinking"; data: string };

/**
 * The thinking blocks a reply gave with its tool calls, kept on its first
 * call's `extraContent` (`{ anthropic: { thinking } }`, journaled with the
 * reply, so a resumed turn has them too): with thinking on (turned on by a
 * gateway, or by default on a compatible server), the API refuses the next
 * request unless the assistant message holding the calls starts with them,
 * as they came. Read back only in that shape.
 */
function thinkingOf(call: ToolCall | undefined): Thinking[] {
  const kept = (call?.extraContent as { anthropic?: { thinking?: unknown } } | null | undefined)?.anthropic?.thinking;
  if (!Array.isArray(kept)) return [];
  return kept.flatMap((b: unknown) => {
    const block = typeof b === "object" && b !== null ? thinkingBlock(b as { type: string }) : undefined;
    return block === undefined ? [] : [block];
  });
}

/** The calls with the reply's thinking kept on the first (see thinkingOf); none kept where there was none. */
function withThinking(calls: ToolCall[], thinking: Thinking[]): ToolCall[] {
  if (thinking.length === 0 || calls.length === 0) return calls;
  const [first, ...rest] = calls;
  return [{ ...first!, extraContent: { anthropic: { thinking } } }, ...rest];
}

/** A thinking block of a reply, as it is to be given back (unchanged); undefined for any other block. */
function thinkingBlock(block: { type: string }): Thinking | undefined {
  const b = block as { type: string; thinking?: unknown; signature?: unknown; data?: unknown };
  if (b.type === "thinking" && typeof b.thinking === "string")
    return { type: "thinking", thinking: b.thinking, signature: typeof b.signature === "string" ? b.signature : "" };
  if (b.type === "redacted_thinking" && typeof b.data === "string") return { type: "redacted_thinking", data: b.data };
  return undefined;
}

function blocksOf(m: Exclude<Message, { role: "system" }>): ContentBlockParam[] {
  if (m.role === "user" && m.content.trim() === "") return [{ type: "text", text: NO_INPUT }];
  // Anthropic refuses text blocks that are empty or only whitespace (a model's reply may be just "\n\n").
  const text: ContentBlockParam[] = m.content.trim() === "" || m.role === "tool" ? [] : [{ type: "text", text: m.content }];
  if (m.role === "assistant") {
    const calls = m.toolCalls ?? [];
    const toolUses = calls.map((c): ContentBlockParam => ({ type: "tool_use", id: c.id, name: c.name, input: inputObject(c) }));
    // the thinking the calls were given with goes back first, as it came (see thinkingOf)
    return [...thinkingOf(calls[0]), ...text, ...toolUses];
  }
  if (m.role === "tool") {
    return [{ type: "tool_result", tool_use_id: m.toolCallId, content: m.content, ...(m.isError === true ? { is_error: true } : {}) }];
  }
  return text;
}

/**
 * System messages go to the `system` parameter; the rest become alternating
 * user / assistant messages. Tool results travel in a user message, and
 * consecutive messages of one role are merged, so every result of an
 * assistant's tool calls lands in the very next user message, as Anthropic's
 * pairing rule requires. Call ids Anthropic refuses (another provider's, or
 * one used twice) are sent as ids it takes (see tool-ids.ts).
 */
export function toAnthropicMessages(messages: readonly Message[]): { system: string | undefined; messages: MessageParam[] } {
  const system: string[] = [];
  const turns: { role: "user" | "assistant"; content: ContentBlockParam[] }[] = [];
  for (const m of withWireIds(messages, ANTHROPIC_IDS)) {
    if (m.role === "system") {
      system.push(m.content);
      continue;
    }
    const role = m.role === "assistant" ? "assistant" : "user";
    const blocks = blocksOf(m);
    if (blocks.length === 0) continue;
    const last = turns.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else turns.push({ role, content: blocks });
  }
  return {
    system: system.length > 0 ? system.join("\n\n") : undefined,
    // A lone text block reads better (and is sent) as a plain string.
    messages: turns.map(({ role, content }) => {
      const only = content.length === 1 ? content[0] : undefined;
      return { role, content: only?.type === "text" ? only.text : content };
    }),
  };
}

export const toAnthropicTools = (tools: readonly ToolSpec[]): Tool[] =>
  tools.map((t) => ({ name: t.name, description: t.description, input_schema: { type: "object", ...t.parameters } }));

export function finishReason(reason: string | null | undefined): FinishReason {
  switch (reason) {
    case "end_turn":
    case "stop_sequence":
      return "stop";
    case "tool_use":
      return "tool_calls";
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length";
    case "refusal":
      return "content_filter";
    default:
      return "other";
  }
}

interface UsageLike {
  input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  output_tokens?: number | null;
}

/** The counters a stream's usage is made of, as its events last gave each. */
type UsageCounts = Required<{ [K in keyof UsageLike]: number }>;

const COUNTERS = ["input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens"] as const;

/**
 * `usage` with each counter an event gave overwriting the one before, the
 * others kept. A stream's usage comes in two parts: `message_start` has the
 * prompt's counts, `message_delta` the final ones, where each counter is a
 * whole-message total that is left out (or null) where it does not apply
 * (the SDK merges them so). A `message_delta` with `input_tokens` but no
 * cache counts (as gateways and newer streams send it) must not drop the
 * cached prompt tokens `message_start` gave.
 */
function merged(usage: UsageCounts, given: UsageLike | null | undefined): UsageCounts {
  const next = { ...usage };
  for (const key of COUNTERS) {
    const value: unknown = given?.[key];
    if (value !== undefined && value !== null) next[key] = tokenCount("anthropic", key, value);
  }
  return next;
}

/**
 * Anthropic counts cached prompt tokens apart; functai's `inputTokens` is the whole prompt, as OpenAI's is.
 * (`usage` may be missing altogether from a compatible server or a proxy: nothing counted then.)
 */
const promptTokens = (u: UsageLike | null | undefined): number =>
  (u?.input_tokens ?? 0) + (u?.cache_creation_input_tokens ?? 0) + (u?.cache_read_input_tokens ?? 0);

/** A whole message's `usage` as functai counts it; each count checked (see tokenCount). */
function usageOf(u: UsageLike | null | undefined): LMResponse["usage"] {
  const counts = merged({ input_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 0 }, u);
  return { inputTokens: promptTokens(counts), outputTokens: counts.output_tokens };
}

/**
 * A text block's or delta's text: none where a compatible server gave none
 * (`text: null`, left out), never the words "null" or "undefined".
 */
const textOf = (text: unknown): string => (typeof text === "string" ? text : "");

/** Whether a body is a whole message, one `fromMessage` reads: its content a list of blocks. */
export function isMessage(body: unknown): boolean {
  const b = body as { type?: unknown; content?: unknown } | null;
  return typeof b === "object" && b !== null && b.type !== "error" && Array.isArray(b.content);
}

/** A whole (non-streamed) message as an `LMResponse`. */
export function fromMessage(message: AnthropicMessage): LMResponse {
  if (!Array.isArray(message?.content)) throw notAReply("anthropic", message, "a message");
  // (before, a bare TypeError)
  if (!message.content.every(isRecord)) throw notAReply("anthropic", message, "a message whose content is a list of blocks");
  const wrong = message.content.map((b) => misshapenToolUse(b as unknown as Record<string, unknown>)).find((w) => w !== undefined);
  if (wrong !== undefined) throw notAReply("anthropic", message, `a message whose tool_use ids and names are strings (it has ${wrong})`);
  const words = message.content.map((b) => misshapenText(b as unknown as Record<string, unknown>)).find((w) => w !== undefined);
  if (words !== undefined) throw notAReply("anthropic", message, `a message whose text blocks hold text (it has ${words})`);
  let text = "";
  let toolCalls: ToolCall[] = [];
  const thinking: Thinking[] = [];
  for (const block of message.content) {
    const thought = thinkingBlock(block);
    if (thought !== undefined) thinking.push(thought);
    else if (block.type === "text") text += textOf(block.text);
    // (a compatible server may give a call of a tool that takes nothing `input: null`: no arguments, as an empty input is)
    else if (block.type === "tool_use") toolCalls.push({ id: block.id, name: nameOf(block.name), input: block.input ?? {} });
  }
  const reason = finishReason(message.stop_reason);
  // the cut is in the last block: a tool_use there may hold only part of its input
  if (stoppedEarly(reason) && message.content.at(-1)?.type === "tool_use") toolCalls.push(cutShortArguments(toolCalls.pop()!));
  toolCalls = withThinking(toolCalls, thinking);
  return finished(message.stop_reason, {
    text,
    toolCalls,
    finishReason: reason,
    usage: usageOf(message.usage),
    model: message.model,
  });
}

/**
 * The reply, unless its stop reason says it ended unfinished (see
 * refuseUnfinished). A paused turn (`pause_turn`) holding neither text nor a
 * tool call is let through: nothing of it can be misread as an answer, and
 * it is read as the empty reply it is (asked again).
 */
function finished(stopReason: string | null | undefined, reply: LMResponse): LMResponse {
  if (stopReason !== "pause_turn" || reply.text.trim() !== "" || reply.toolCalls.length > 0) refuseUnfinished("anthropic", stopReason);
  return reply;
}

/**
 * A streamed `tool_use`: its `input_json_delta` fragments are its input (as
 * the SDK's own stream reader reads them, whatever its start gave); where
 * none came (only empty ones), the input its `content_block_start` gave,
 * whatever it is (as the SDK keeps it, and as a whole message's is read: one
 * that is no object, a string, is told to the model as the tool's invalid
 * input), never an empty `{}` in its place.
 */
function toolCallOf(b: { id: string; name: string; start: unknown; json: string }): ToolCall {
  if (b.json.trim() === "" && b.start !== undefined && b.start !== null) return { id: b.id, name: b.name, input: b.start };
  return toolCallFromText(b.id, b.name, b.json);
}

/**
 * The part an event of its kind is read from (`message_start`'s message,
 * a block's start, a delta), where it is not an object; undefined where the
 * event is of its shape or of a kind not read.
 */
function misshapen(event: Record<string, unknown>): string | undefined {
  const part = { message_start: "message", content_block_start: "content_block", content_block_delta: "delta", message_delta: "delta" }[
    String(event.type)
  ];
  if (part === undefined || isRecord(event[part])) return undefined;
  return notShaped(`a ${String(event.type)} whose ${part} is`, event[part], "an object");
}

/** Where a delta of each kind holds its text: read as text where it is none, `null` was "null" in a call's input or a thinking given back. */
const DELTA_TEXT: Record<string, string> = { input_json_delta: "partial_json", thinking_delta: "thinking", signature_delta: "signature" };

/** What of a `content_block_delta`'s delta is not a string where its kind holds its text (see DELTA_TEXT); undefined where it is. */
function misshapenDelta(delta: Record<string, unknown>): string | undefined {
  const field = typeof delta.type === "string" && Object.hasOwn(DELTA_TEXT, delta.type) ? DELTA_TEXT[delta.type]! : undefined;
  if (field === undefined || typeof delta[field] === "string") return undefined;
  return notShaped(`${delta.type === "input_json_delta" ? "an" : "a"} ${delta.type} whose ${field} is`, delta[field], "a string");
}

/**
 * What of a `tool_use` block is no string where it must be one (its name
 * may be none: a call named "", as OpenAI's, see nameOf); undefined where
 * all is. Kept, a call's id that is no string was refused in the next
 * request (`input-invalid`) or, through the engine, the reply was refused
 * naming no part of it; a name of 42 was told to the model as a tool's.
 */
function misshapenToolUse(block: Record<string, unknown>): string | undefined {
  if (block.type !== "tool_use") return undefined;
  const part = typeof block.id !== "string" ? "id" : notText(block.name) ? "name" : undefined;
  return part === undefined ? undefined : notShaped(`a tool_use whose ${part} is`, block[part], "a string");
}

/**
 * What of a text block (or a `text_delta`) is no text where it holds its
 * text: read as none, its words were lost unseen (null or left out is none,
 * as compatible servers send it); undefined where it is text.
 */
function misshapenText(part: Record<string, unknown>): string | undefined {
  if ((part.type !== "text" && part.type !== "text_delta") || !notText(part.text)) return undefined;
  return notShaped(`a ${part.type === "text" ? "text block" : "text_delta"} whose text is`, part.text, "a string");
}

/** Builds an `LMResponse` from stream events; `tool_use` input arrives as `input_json_delta` fragments. */
export class EventAccumulator {
  private text = "";
  /** A tool's `start` is the input its `content_block_start` gave: `{}` from api.anthropic.com, the whole input from some servers. */
  private readonly blocks = new Map<
    number,
    { kind: "text" } | { kind: "tool"; id: string; name: string; start: unknown; json: string } | { kind: "thinking"; block: Thinking }
  >();
  private reason: string | null = null;
  private usage: UsageCounts = { input_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 0 };
  private model: string | undefined;
  /**
   * Whether the reply is whole: its stop reason came (in `message_delta`,
   * with the final usage; only `message_stop` follows). A stream cut short
   * must not pass for a whole reply, and a whole one is not asked for again.
   */
  complete = false;
  /** Whether `message_stop` came: the stream's last event, after which nothing is read. */
  ended = false;

  /** Adds one event; returns its text delta ("" when none). */
  add(event: RawMessageStreamEvent): string {
    this.check(event);
    switch (event.type) {
      case "message_stop":
        this.complete = true;
        this.ended = true;
        return "";
      case "message_start":
        this.model = event.message.model;
        this.usage = merged(this.usage, event.message.usage);
        return "";
      case "content_block_start": {
        const b = event.content_block;
        const thought = thinkingBlock(b);
        if (thought !== undefined) this.blocks.set(event.index, { kind: "thinking", block: thought });
        else if (b.type === "text") this.blocks.set(event.index, { kind: "text" });
        else if (b.type === "tool_use") this.blocks.set(event.index, { kind: "tool", id: b.id, name: nameOf(b.name), start: b.input, json: "" });
        return b.type === "text" ? this.addText(b.text) : "";
      }
      case "content_block_delta": {
        const block = this.blocks.get(event.index);
        if (event.delta.type === "text_delta") return this.addText(event.delta.text);
        if (event.delta.type === "input_json_delta" && block?.kind === "tool") block.json += event.delta.partial_json;
        // a thinking block's text and signature come in deltas (`thinking_delta`, `signature_delta`)
        if (block?.kind === "thinking" && block.block.type === "thinking") {
          if (event.delta.type === "thinking_delta") block.block.thinking += event.delta.thinking;
          if (event.delta.type === "signature_delta") block.block.signature += event.delta.signature;
        }
        return "";
      }
      case "message_delta":
        this.reason = event.delta.stop_reason ?? this.reason;
        if (this.reason !== null) this.complete = true;
        // Counts are cumulative; input and cache counts appear here only in newer streams, each only where it applies.
        this.usage = merged(this.usage, event.usage);
        return "";
      default:
        return "";
    }
  }

  /**
   * Refuses an event the reply cannot be read from (before, a bare
   * TypeError, or a delta's content dropped unseen): one that is no object,
   * a part of it no object (see misshapen), a delta for a block no
   * `content_block_start` began (a tool call's input lost with it), a
   * delta's text that is none (see misshapenDelta), a start for a block
   * begun already (read, it overwrote the block: a started call lost), a
   * `tool_use` whose id or name is no string (see misshapenToolUse).
   */
  private check(event: unknown): void {
    if (!isRecord(event)) throw malformedEvent("anthropic", notShaped("an event that is", event, "an object"));
    const wrong = misshapen(event);
    if (wrong !== undefined) throw malformedEvent("anthropic", wrong);
    if (event.type === "content_block_delta") this.checkDelta(event.index, event.delta as Record<string, unknown>);
    if (event.type === "content_block_start") this.checkStart(event.index, event.content_block as Record<string, unknown>);
  }

  private checkDelta(index: unknown, delta: Record<string, unknown>): void {
    if (!this.blocks.has(index as number))
      throw malformedEvent("anthropic", `a content_block_delta for block ${describeValue(index, 40)}, which no content_block_start began`);
    const wrong = misshapenDelta(delta) ?? misshapenText(delta);
    if (wrong !== undefined) throw malformedEvent("anthropic", wrong);
  }

  private checkStart(index: unknown, block: Record<string, unknown>): void {
    if (this.blocks.has(index as number))
      throw malformedEvent("anthropic", `a content_block_start for block ${describeValue(index, 40)}, which an earlier one began`);
    const wrong = misshapenToolUse(block) ?? misshapenText(block);
    if (wrong !== undefined) throw malformedEvent("anthropic", wrong);
  }

  private addText(given: unknown): string {
    const delta = textOf(given);
    this.text += delta;
    return delta;
  }

  response(): LMResponse {
    const blocks = [...this.blocks.entries()].sort(([a], [b]) => a - b).map(([, b]) => b);
    const toolCalls = blocks.flatMap((b) => (b.kind === "tool" ? [toolCallOf(b)] : []));
    const reason = finishReason(this.reason);
    // the cut is in the last block: a tool_use there may hold only part of its input
    if (stoppedEarly(reason) && blocks.at(-1)?.kind === "tool") toolCalls.push(cutShortArguments(toolCalls.pop()!));
    const thinking = blocks.flatMap((b) => (b.kind === "thinking" ? [b.block] : []));
    return finished(this.reason, {
      text: this.text,
      toolCalls: withThinking(toolCalls, thinking),
      finishReason: reason,
      usage: { inputTokens: promptTokens(this.usage), outputTokens: this.usage.output_tokens },
      ...(this.model !== undefined ? { model: this.model } : {}),
    });
  }
}
