/**
 * The provider contract: one narrow, versioned type. OpenAI, Anthropic and
 * the scripted model implement only this. Messages are provider-neutral;
 * each provider maps them to its own wire format (and its pairing rules for
 * tool calls and results).
 */

/**
 * The version of the `LanguageModel` contract: a model says it implements this one.
 *
 * @example
 * const model: LanguageModel = { specificationVersion: LM_SPEC, provider: "mine", model: "m1", nativeTools: false, generate };
 */
export const LM_SPEC = "functai.lm.v1" as const;

/**
 * Tokens a model call used.
 *
 * @example
 * const { usage } = await answer.predict("Where is A-1042?");
 * console.log(usage.inputTokens + usage.outputTokens);
 */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
}

/**
 * A tool call the model asked for. `input` is the parsed arguments.
 *
 * @example
 * const reply = await lm.generate({ messages, tools: [toolSpec(lookupOrder)] });
 * const calls: ToolCall[] = reply.toolCalls;
 * for (const call of calls) console.log(call.name, call.input, call.inputError ?? "");
 */
export interface ToolCall {
  /** The provider's id (they repeat across replies: never used as a key). */
  id: string;
  name: string;
  input: unknown;
  /** Set when the model's arguments were not valid JSON; `input` is then the raw text. */
  inputError?: string;
  /**
   * The reasoning text the reply gave beside its calls, kept on its first
   * call only: OpenAI-compatible thinking models (DeepSeek's reasoner and
   * thinking mode, Kimi's) send it as `reasoning_content` and refuse the next
   * request whose assistant message holds the calls without it. Kept on a
   * call because the call is what the next request's message is made of.
   */
  reasoning?: string;
  /**
   * What the provider gave with this call to be given back with it, as it
   * came: Gemini's OpenAI-compatible API sends `extra_content` (its thought
   * signature) and, for Gemini 3, refuses a next request whose call lacks it
   * ("Function call is missing a thought_signature").
   */
  extraContent?: unknown;
}

/**
 * One message of a model request: system, user, assistant (with tool calls), or a tool's result.
 *
 * @example
 * const messages: Message[] = [
 *   { role: "system", content: "You answer customers." },
 *   { role: "user", content: "Where is A-1042?" },
 *   { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "lookupOrder", input: { id: "A-1042" } }] },
 *   { role: "tool", toolCallId: "c1", name: "lookupOrder", content: '{"status":"shipped"}' },
 * ];
 */
export type Message =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | { role: "assistant"; content: string; toolCalls?: ToolCall[] }
  | { role: "tool"; toolCallId: string; name: string; content: string; isError?: boolean };

/**
 * A tool as offered to the model: JSON Schema for its input.
 *
 * @example
 * const spec: ToolSpec = { name: "lookupOrder", description: "Find an order.", parameters: { type: "object", properties: { id: { type: "string" } }, required: ["id"] } };
 */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/**
 * What a language model is asked: the messages, the tools it may call, and limits.
 *
 * @example
 * const request: LMRequest = { messages: [{ role: "user", content: "Hi" }], tools: [], temperature: 0, maxTokens: 200 };
 * const reply = await openai({ model: "gpt-4.1-mini" }).generate(request);
 */
export interface LMRequest {
  messages: Message[];
  tools: ToolSpec[];
  temperature?: number;
  maxTokens?: number;
}

/**
 * Why a model stopped replying. `content_filter`: a filter or classifier
 * stopped the reply before its end (OpenAI's `content_filter`, Claude's
 * `refusal` stop), so what is there may be only its start; `refusal`: the
 * model declined in words of its own, whole (OpenAI's `refusal` field).
 *
 * @example
 * const reply = await lm.generate(request);
 * if (reply.finishReason === "length") console.warn("cut off: raise maxTokens");
 */
export type FinishReason = "stop" | "tool_calls" | "length" | "content_filter" | "refusal" | "other";

/** Every `FinishReason`, for what checks one (a custom model's reply, a script). */
export const FINISH_REASONS: readonly FinishReason[] = ["stop", "tool_calls", "length", "content_filter", "refusal", "other"];

/**
 * A model's reply: its text, its tool calls, why it stopped and the tokens it used.
 *
 * @example
 * const reply: LMResponse = await lm.generate({ messages: [{ role: "user", content: "Hi" }], tools: [] });
 * console.log(reply.text, reply.toolCalls.length, reply.finishReason, reply.usage.outputTokens);
 */
export interface LMResponse {
  text: string;
  toolCalls: ToolCall[];
  finishReason: FinishReason;
  usage: Usage;
  /** The model that answered, when the provider says. */
  model?: string;
}

/**
 * Per call: an `AbortSignal`, and `onText` to receive text deltas as they stream.
 *
 * @example
 * const options: GenerateOptions = { signal: AbortSignal.timeout(30_000), onText: (delta) => process.stdout.write(delta) };
 * await lm.generate(request, options);
 * @example
 * // an onText that shows nothing until the reply is whole: a stream that fails midway may then be retried
 * let text = "";
 * await lm.generate(request, {
 *   onText: (delta) => void (text += delta),
 *   heldText: { shown: () => false, restart: () => void (text = "") },
 * });
 * console.log(text);
 */
export interface GenerateOptions {
  signal?: AbortSignal | undefined;
  /** Called with each text delta as it streams (providers that stream call it). */
  onText?: ((delta: string) => void) | undefined;
  /**
   * For an `onText` that does not show every delta as it comes (the engine
   * holds back the reply form's tags and a possible preamble). Text shown
   * cannot be taken back, so a provider retries a streamed reply that failed
   * midway only while `shown()` is false, calling `restart()` before the new
   * attempt: the deltas given so far belong to a reply that will not come,
   * and the next one starts a new reply. Without `heldText`, every delta
   * given to `onText` counts as shown.
   */
  heldText?: { shown(): boolean; restart(): void } | undefined;
}

/**
 * The one narrow, versioned contract every model implements (`openai`, `anthropic`, `scripted`, your own).
 *
 * @example
 * const echo: LanguageModel = {
 *   specificationVersion: LM_SPEC, provider: "echo", model: "echo", nativeTools: true,
 *   async generate(request) {
 *     return { text: `<result>\n${request.messages.at(-1)?.content}\n</result>`, toolCalls: [], finishReason: "stop", usage: { inputTokens: 0, outputTokens: 0 } };
 *   },
 * };
 */
export interface LanguageModel {
  readonly specificationVersion: typeof LM_SPEC;
  /** `openai`, `anthropic`, `scripted`, … */
  readonly provider: string;
  readonly model: string;
  /** Whether tools go to the model natively (JSON Schema) or as text in the prompt. */
  readonly nativeTools: boolean;
  /** Asks the model for one reply. */
  generate(request: LMRequest, options?: GenerateOptions): Promise<LMResponse>;
}

/**
 * Whether a value implements this version of the `LanguageModel` contract.
 *
 * @example
 * isLanguageModel(scripted(["Hi"])); // true
 */
export const isLanguageModel = (x: unknown): x is LanguageModel =>
  typeof x === "object" && x !== null && (x as LanguageModel).specificationVersion === LM_SPEC;
