/**
 * Small helpers both providers share: reading the environment without
 * assuming Node, and reading a model's tool-call arguments without throwing.
 */
import { FunctaiError, ProviderError, describeValue } from "../errors.js";
import { jsonCalls } from "../lm/json-calls.js";
import { type MarkedForm, markedCalls } from "../lm/marked-calls.js";
import { leadingThought } from "../lm/thinking.js";
import { stoppedEarly } from "../lm/cut-short.js";
import { pythonicCalls, withoutCallMarkers } from "../lm/pythonic-calls.js";
import { blockCalls } from "../lm/text-tools.js";
import type { LMRequest, LMResponse, ToolCall } from "../lm/types.js";

/** An environment variable, or undefined where there is no `process` (browsers). */
export function readEnv(name: string): string | undefined {
  // Guarded so this file loads in a browser bundle with no `process` shim.
  if (typeof process === "undefined" || typeof process.env !== "object") return undefined;
  const value = process.env[name];
  return value === undefined || value === "" ? undefined : value;
}

/**
 * A tool call from the model's raw argument text. Invalid JSON never throws:
 * the call keeps the raw text as `input` and says why in `inputError`, so the
 * loop can tell the model and let it try again.
 */
export function toolCallFromText(id: string, name: string, raw: string): ToolCall {
  // A tool without parameters is often called with no argument text at all, or with JSON's null: no arguments.
  if (raw.trim() === "") return { id, name, input: {} };
  try {
    return { id, name, input: (JSON.parse(raw) as unknown) ?? {} };
  } catch (e) {
    const detail = e instanceof Error ? e.message : String(e);
    return { id, name, input: raw, inputError: `The arguments are not valid JSON (${detail}).` };
  }
}

/**
 * A reply's token count (`usage.prompt_tokens`, `usage.input_tokens`, …) as
 * `usage` holds it: none given (left out, null) is 0. One that counts no
 * tokens (a string "53", -5, 1.5, JSON's 1e400 read as Infinity) is the
 * server's fault (no compatible server is known to send counts as strings):
 * `provider-response` naming the field, where kept it was refused later by
 * the engine naming no part of it, or added to the run's totals.
 */
export function tokenCount(provider: string, field: string, value: unknown): number {
  if (value === undefined || value === null) return 0;
  if (Number.isSafeInteger(value) && (value as number) >= 0) return value as number;
  throw new ProviderError(
    "provider-response",
    `${provider}: the reply's usage.${field} is ${describeValue(value, 40)}, not a whole number ≥ 0 (a count of tokens); it was not read as a reply.`,
    { provider },
  );
}

/** A call's function name; "" (no tool's: the model is told) where a compatible server gave none (null, or left out). */
export const nameOf = (name: unknown): string => (typeof name === "string" ? name : "");

/**
 * Refuses, as the LM is made, options no request could use (`settings-invalid`,
 * as `configure` refuses the same values): a model that is no name, a reply
 * limit that is not a whole number ≥ 1 (the provider's 400, paid a round trip
 * for), a retry count that is not a whole number ≥ 0 (NaN or Infinity retried
 * a failing server without end).
 */
export function checkLMOptions(maker: string, options: unknown): void {
  const bad = (what: string): never => {
    throw new FunctaiError("settings-invalid", `${maker}(): ${what}`);
  };
  if (typeof options !== "object" || options === null) bad(`takes options as an object ({ model, … }), not ${describeValue(options, 40)}`);
  const { model, maxTokens, maxRetries, nativeTools } = options as Record<string, unknown>;
  if (typeof model !== "string" || model.trim() === "") bad(`model must name a model, not ${describeValue(model, 40)}`);
  if (maxTokens !== undefined && !(Number.isSafeInteger(maxTokens) && (maxTokens as number) >= 1))
    bad(`maxTokens must be a whole number ≥ 1, not ${describeValue(maxTokens, 40)}`);
  if (maxRetries !== undefined && !(Number.isSafeInteger(maxRetries) && (maxRetries as number) >= 0))
    bad(`maxRetries must be a whole number ≥ 0, not ${describeValue(maxRetries, 40)}`);
  if (nativeTools !== undefined && typeof nativeTools !== "boolean") bad(`nativeTools must be true or false, not ${describeValue(nativeTools, 40)}`);
}

/**
 * Refuses, before any model call, a request no provider could answer as
 * asked: one without messages or a tools list (`input-invalid`), a
 * temperature that is not a finite number ≥ 0 (NaN and Infinity would go
 * out as JSON's null: the provider's default, silently), a reply limit that
 * is not a whole number ≥ 1 (`settings-invalid`, as `configure` says it).
 * Each message must be one (see checkMessage). Tools sent natively must be
 * ones the provider takes (see checkToolSpecs).
 * The engine's requests always pass; this guards `lm.generate` called directly.
 */
export function checkRequest(provider: string, request: unknown, nativeTools: boolean): void {
  const r = request as { messages?: unknown; tools?: unknown; temperature?: unknown; maxTokens?: unknown } | null | undefined;
  if (typeof r !== "object" || r === null || !Array.isArray(r.messages) || r.messages.length === 0 || !Array.isArray(r.tools))
    throw new FunctaiError(
      "input-invalid",
      `${provider}: a request is { messages: [at least one], tools: [...] }, not ${describeValue(request, 80)}`,
    );
  r.messages.forEach((m: unknown, i) => checkMessage(provider, m, i));
  const { temperature, maxTokens } = r;
  if (temperature !== undefined && !(typeof temperature === "number" && Number.isFinite(temperature) && temperature >= 0))
    throw new FunctaiError("settings-invalid", `${provider}: temperature must be a finite number ≥ 0, not ${describeValue(temperature, 40)}`);
  if (maxTokens !== undefined && !(Number.isSafeInteger(maxTokens) && (maxTokens as number) >= 1))
    throw new FunctaiError("settings-invalid", `${provider}: maxTokens must be a whole number ≥ 1, not ${describeValue(maxTokens, 40)}`);
  if (nativeTools) checkToolSpecs(provider, r.tools);
}

const ROLES = new Set(["system", "user", "assistant", "tool"]);

/**
 * Refuses (`input-invalid`) a message that is not one (see `Message`): not
 * an object, a role neither API has, a content that is no string, a tool
 * result that names no call, tool calls that are not a list of `{ id, … }`.
 * Written out as they were, they threw a TypeError in the wire writers, or
 * went out and paid a round trip for the provider's 400.
 */
function checkMessage(provider: string, message: unknown, i: number): void {
  const bad = (what: string): never => {
    throw new FunctaiError("input-invalid", `${provider}: message ${i + 1} ${what}`);
  };
  if (typeof message !== "object" || message === null || Array.isArray(message))
    bad(`is ${describeValue(message, 40)}, not a message ({ role, content })`);
  const m = message as { role?: unknown; content?: unknown; toolCallId?: unknown; toolCalls?: unknown };
  if (typeof m.role !== "string" || !ROLES.has(m.role))
    bad(`has role ${describeValue(m.role, 40)}; a role is "system", "user", "assistant" or "tool"`);
  if (typeof m.content !== "string") bad(`has content ${describeValue(m.content, 40)}, not a string`);
  if (m.role === "tool" && typeof m.toolCallId !== "string")
    bad(`is a tool result whose toolCallId is ${describeValue(m.toolCallId, 40)}: it must name the call it answers`);
  if (m.role !== "assistant" || m.toolCalls === undefined) return;
  if (!Array.isArray(m.toolCalls)) bad(`has toolCalls ${describeValue(m.toolCalls, 40)}, not a list of calls`);
  // (a call's name that is no string, one a journal kept so, is sent as "unnamed": see tool-ids.ts)
  (m.toolCalls as unknown[]).forEach((call, j) => {
    const c = call as { id?: unknown } | null;
    if (typeof c !== "object" || c === null || Array.isArray(c) || typeof c.id !== "string")
      bad(`has tool call ${j + 1} ${describeValue(call, 60)}; a call is { id, name, input } with a string id`);
  });
}

/** What both APIs take as a tool's name ("string does not match pattern" else), as `tool()` names are. */
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** Tools sent natively: each named as both APIs take, no name twice (both refuse it), parameters a JSON Schema object. */
function checkToolSpecs(provider: string, tools: unknown[]): void {
  const names = new Set<string>();
  for (const t of tools) {
    const { name, parameters } = (t ?? {}) as { name?: unknown; parameters?: unknown };
    if (typeof name !== "string" || !TOOL_NAME.test(name))
      throw new FunctaiError("settings-invalid", `${provider}: a tool's name must be 1–64 letters, digits, _ or -, not ${describeValue(name, 80)}`);
    if (names.has(name))
      throw new FunctaiError("settings-invalid", `${provider}: two tools are named ${JSON.stringify(name)}; a name can be offered once`);
    names.add(name);
    if (typeof parameters !== "object" || parameters === null || Array.isArray(parameters))
      throw new FunctaiError(
        "settings-invalid",
        `${provider}: tool ${name}'s parameters must be a JSON Schema object, not ${describeValue(parameters, 40)}`,
      );
  }
}

/**
 * Finish reasons that say the server ended the reply before its end for a
 * reason the reply itself cannot show (its length limit and a filter are
 * read as `length` and `content_filter`): vLLM's "abort" (the request was
 * aborted on the server) and "error" (the engine failed mid-reply),
 * DeepSeek's "insufficient_system_resource" (its inference system ran out
 * mid-reply) and Zhipu GLM's "network_error" (its model failed mid-reply),
 * which are the server's failure, so tried again; vLLM's
 * "repetition" (stopped for repeating itself) and Anthropic's "pause_turn"
 * (a long turn paused, to be continued by a request functai does not
 * make), which are not. What came is never a whole answer, nor are its tool
 * calls whole.
 */
const UNFINISHED: Record<string, { code: "provider-server" | "provider-response"; why: string }> = {
  abort: { code: "provider-server", why: "the server aborted the request" },
  error: { code: "provider-server", why: "the server failed while replying" },
  insufficient_system_resource: { code: "provider-server", why: "the server ran out of resources while replying" },
  network_error: { code: "provider-server", why: "the server's model failed while replying" },
  repetition: { code: "provider-response", why: "the server stopped the model repeating itself" },
  pause_turn: { code: "provider-response", why: "the model paused its turn, to be continued by a request functai does not make" },
};

/**
 * Throws when a reply's finish (or stop) reason says the server ended it
 * unfinished (see UNFINISHED): such a reply is not read as one.
 */
export function refuseUnfinished(provider: string, reason: string | null | undefined): void {
  const unfinished = typeof reason === "string" && Object.hasOwn(UNFINISHED, reason) ? UNFINISHED[reason]! : undefined;
  if (unfinished === undefined) return;
  throw new ProviderError(
    unfinished.code,
    `${provider}: the reply ended unfinished (${JSON.stringify(reason)}: ${unfinished.why}); it was not read as an answer.`,
    {
      provider,
    },
  );
}

/** A reply that is one JSON value and nothing else, a code fence around it allowed; its JSON's text is the first group. */
const ONLY_JSON = /^\s*(?:\x60{3}[\w-]*\s*)?([[{][\s\S]*[\]}])\s*(?:\x60{3})?\s*$/;

/**
 * The name a reply that is nothing but a call's JSON calls: `{ name,
 * arguments }` or `{ name, parameters }`, or a list of them. Mistral's list
 * with its `[TOOL_CALLS]` marker dropped (vLLM leaves special tokens out of
 * the text by default), Llama 3.1's and 3.3's JSON calls (several with `;`
 * between; after the markers Llama writes where the server shows them: see
 * withoutCallMarkers). Undefined where the reply is anything else (words
 * around the JSON, an object that names no call).
 */
function bareCallName(text: string): unknown {
  const json = ONLY_JSON.exec(withoutCallMarkers(text))?.[1];
  let value: unknown;
  try {
    value = JSON.parse(json ?? "");
  } catch {
    // (Llama 3.x's calls with `;` between, which the reader with tools offered as text reads: see jsonCalls)
    return jsonCalls(text)?.[0]?.name;
  }
  const first: unknown = Array.isArray(value) ? value[0] : value;
  if (typeof first !== "object" || first === null || !("arguments" in first || "parameters" in first)) return undefined;
  return (first as { name?: unknown }).name;
}

/** How a model wrote a call the server left in the text. */
type TextCallForm = "hermes" | "tagged" | MarkedForm | "json" | "pythonic";

/**
 * Each name a reply's text calls as a model writes calls (Hermes' `<tool_call>` blocks, Llama's `<function=…>` and
 * Hunyuan's `<tool_calls>` tags, Mistral's `[TOOL_CALLS]`, Kimi K2's and DeepSeek's call tokens, DeepSeek V3.2's DSML, a bare
 * call's JSON), with the form.
 */
function* textCallNames(text: string): Generator<{ name: unknown; form: TextCallForm }> {
  // `<tool_call>` blocks read as they are with tools offered as text (lm/text-tools.ts): what that reader reads as a call is one here
  if (/<tool_call|<function=/.test(text)) {
    const form = text.includes("<tool_call>") ? "hermes" : "tagged";
    for (const { name } of blockCalls(text).calls) yield { name, form };
  }
  // Mistral's `[TOOL_CALLS]`, Kimi K2's and DeepSeek's call tokens, DeepSeek V3.2's DSML (lm/marked-calls.ts)
  const marked = markedCalls(text);
  for (const { name } of marked?.calls ?? []) yield { name, form: marked!.form };
  yield { name: bareCallName(text), form: "json" };
  // Llama 3.2's and Llama 4's `[get_weather(city="Paris")]`, as the whole reply (lm/pythonic-calls.ts)
  if (text.includes("(")) for (const { name } of pythonicCalls(text) ?? []) yield { name, form: "pythonic" };
}

/** The vLLM tool-call parser that reads a model's calls, by how the model writes them. */
const PARSER = {
  hermes: "the model's --tool-call-parser (hermes for Qwen and Hermes models, qwen3_coder for Qwen3-Coder)",
  tagged: "the tool-call parser made for the model (hunyuan_a13b for Hunyuan-A13B)",
  mistral: "--tool-call-parser mistral (and --tokenizer-mode mistral)",
  kimi: "--tool-call-parser kimi_k2",
  deepseek: "--tool-call-parser deepseek_v3 (deepseek_v31 for DeepSeek V3.1)",
  dsml: "--tool-call-parser deepseek_v32 (deepseek_v4 for DeepSeek V4)",
  json: "the model's --tool-call-parser (mistral for Mistral models, llama3_json for Llama 3.1 and 3.3)",
  pythonic: "--tool-call-parser pythonic (Llama 3.2's and Llama 4's form)",
} as const;

/** How the refusal names what the reply wrote. */
const FORM_WORDS = {
  hermes: "<tool_call>",
  tagged: "its own <function=…> or <tool_calls> tags",
  mistral: "[TOOL_CALLS]",
  kimi: "Kimi K2's <|tool_call_begin|> tokens",
  deepseek: "DeepSeek's <｜tool▁call▁begin｜> tokens",
  dsml: "DeepSeek's <｜DSML｜invoke> markup",
  json: "its JSON",
  pythonic: "a Python list of calls",
} as const;

/**
 * Refuses a reply to natively offered tools that has no tool call but writes
 * one as text: a `<tool_call>` block whose JSON names an offered tool,
 * Mistral's `[TOOL_CALLS]`, Kimi K2's or DeepSeek's call tokens naming one
 * (lm/marked-calls.ts), or a reply that is nothing but a
 * call's JSON naming one (see bareCallName) or a pythonic list of calls
 * naming one (`[get_weather(city="Paris")]`, lm/pythonic-calls.ts). The server did not read the model's
 * call (vLLM without a tool-call parser, an Ollama model whose template has
 * no tools): the text is no answer, and read as one it was given to the
 * caller as the result, the tool never run. Not parsed here either: a server
 * that leaves calls unread may leave others half read, so the user is told
 * what to set (or to offer tools as text, `nativeTools: false`, where the
 * model is asked for `<tool_call>` blocks, which are read). The marker named
 * in prose, or a call naming no offered tool, is text; so is a call drafted
 * in the reasoning a reply opens with (`<think>…</think>`: see thinking.ts).
 */
function refuseTextToolCalls(provider: string, request: LMRequest, reply: LMResponse): void {
  if (reply.toolCalls.length > 0 || request.tools.length === 0) return;
  const offered = new Set(request.tools.map((t) => t.name));
  // a call the model's reasoning drafted (`<think>…</think>`, one never closed to the reply's end) is not one it
  // made: only the text after it is looked at, as the prompt-mode readers read it (lm/thinking.ts)
  const thought = leadingThought(reply.text);
  for (const { name, form } of textCallNames(thought === undefined ? reply.text : reply.text.slice(thought.end))) {
    if (typeof name !== "string" || !offered.has(name)) continue;
    throw new ProviderError(
      "provider-response",
      `${provider}: the reply has no tool call but writes one as text (${FORM_WORDS[form]} calling ${JSON.stringify(name)}): the server did not read the model's tool calls. ` +
        `Start vLLM with --enable-auto-tool-choice and ${PARSER[form]}, use an Ollama model whose template has tools, ` +
        `or make the LM with nativeTools: false (tools offered as text, calls read from the text). It was not read as an answer.`,
      { provider },
    );
  }
}

/** A call block's closing tag (`</tool_call>`, Llama's `</function>`, Hunyuan's `</tool_calls>`) at the text's end, a fence closed after it or not. */
const BLOCK_AT_END = /<\/(?:tool_calls?|function)\s*>\s*(?:```\s*)?$/i;
/** A call's JSON ending the text, as a block never closed ends in its call (words after it: the model thought on). */
const JSON_AT_END = /[}\]]\s*(?:```\s*)?$/;

/**
 * The calls a reasoning text ends in, no words after them, and how they are
 * written: a section of a model's call tokens (lm/marked-calls.ts), or
 * `<tool_call>` blocks (or a model's own tags: lm/tool-call-blocks.ts), the
 * last closed at the text's end, or never closed and ending in its call's
 * JSON. Of blocks, only the last
 * call: one drafted earlier, the model thinking on after it, is thinking.
 * Undefined where the reasoning ends in anything else.
 */
function endingCalls(reasoning: string): { form: TextCallForm; calls: { name: string }[] } | undefined {
  const marked = markedCalls(reasoning);
  if (marked?.last === true) return marked;
  if (!/<tool_call|<function=/i.test(reasoning)) return undefined;
  const read = blockCalls(reasoning);
  if (read.calls.length === 0 || !(BLOCK_AT_END.test(reasoning) || (read.unclosed && JSON_AT_END.test(reasoning)))) return undefined;
  return { form: reasoning.includes("<tool_call>") ? "hermes" : "tagged", calls: read.calls.slice(-1) };
}

/**
 * Refuses a reply that has no tool call and no words while its reasoning
 * (`reasoning_content`) ends in a call written in a model's call tokens
 * (lm/marked-calls.ts) or in a `<tool_call>` block (Qwen3's and Hermes'
 * form, the one functai asks for with tools as text; see endingCalls)
 * naming an offered tool (any tool, where none was
 * offered natively: tools offered as text are not named to the provider):
 * the server's reasoning parser took the call for thinking, as Kimi K2
 * Thinking's calls are taken where it leaves `</think>` out before them
 * (vybestack/llxprt-code#749, vllm-project/vllm#32216), and the tool parser
 * never saw it. Read as it was, the reply was empty: asked again, then
 * refused output-invalid as "the reply is empty", the call never named. Not
 * read as a call here either (the server split the reply wrongly, and may
 * have split others so): the user is told what to set. Reasoning that names
 * the tokens, drafts a call and thinks on, or ends in a call beside words
 * the reply gave, is thinking.
 */
export function refuseReasonedCall(provider: string, reasoning: string | undefined, reply: LMResponse, offered: readonly string[]): void {
  // (a reply cut off by its length limit or a filter is read as one cut off is: its call may be its thinking's end)
  if (reasoning === undefined || reply.toolCalls.length > 0 || reply.text.trim() !== "" || stoppedEarly(reply.finishReason)) return;
  const ending = endingCalls(reasoning);
  const call = ending?.calls.find((c) => offered.length === 0 || offered.includes(c.name));
  if (call === undefined) return;
  throw new ProviderError(
    "provider-response",
    `${provider}: the reply has no tool call and no text, but its reasoning ends in one (${FORM_WORDS[ending!.form]} calling ${JSON.stringify(call.name)}): ` +
      `the model's tool call was left in its reasoning, unread by the server. Start vLLM with the model's own --reasoning-parser and ${PARSER[ending!.form]}, ` +
      "or use a server that hands such calls to its tool parser. It was not read as an answer.",
    { provider },
  );
}

/**
 * Refuses a reply no caller should read as one, after its retries: calls
 * written as text to natively offered tools (see refuseTextToolCalls), a
 * reply of reasoning alone that ends in a call (see refuseThoughtCall), or a
 * finish reason naming a tool call the reply does not hold (see
 * refuseCallless).
 */
export function refuseUnread(provider: string, request: LMRequest, reply: LMResponse, nativeTools: boolean): void {
  if (nativeTools) refuseTextToolCalls(provider, request, reply);
  refuseThoughtCall(provider, request, reply);
  refuseCallless(provider, reply);
}

/** A reasoning block's tags (see thinking.ts), opening or closing. */
const THOUGHT_TAGS = /<\/?(?:think|thinking)\s*>/gi;

/**
 * Refuses a reply that is nothing but its reasoning block (`<think>…`, left
 * in the text by a server without a reasoning parser) ending in a call in a
 * model's call tokens, as refuseReasonedCall refuses one the server put in
 * `reasoning_content`: read past the reasoning (thinking.ts), the reply was
 * empty and the call lost unseen.
 */
function refuseThoughtCall(provider: string, request: LMRequest, reply: LMResponse): void {
  const thought = leadingThought(reply.text);
  if (thought === undefined || reply.text.slice(thought.end).trim() !== "") return;
  const reasoning = reply.text.slice(0, thought.end).replace(THOUGHT_TAGS, "");
  refuseReasonedCall(
    provider,
    reasoning,
    { ...reply, text: "" },
    request.tools.map((t) => t.name),
  );
}

/**
 * Refuses a reply whose finish (stop) reason says the model stopped to call a
 * tool but that holds no call: a gateway that dropped the call's block, vLLM's
 * non-streamed reply under `tool_choice: "required"` with no tool-call parser.
 * Its words are what the model wrote before the call ("Let me look that order
 * up."): read as the answer, they were given to the caller as the result.
 */
function refuseCallless(provider: string, reply: LMResponse): void {
  if (reply.finishReason !== "tool_calls" || reply.toolCalls.length > 0) return;
  throw new ProviderError(
    "provider-response",
    `${provider}: the reply says the model stopped to call a tool, but it holds no tool call functai can read (the server or a gateway between may have lost it, or it is of a kind not offered). It was not read as an answer.`,
    { provider },
  );
}

/**
 * The URL an SDK client sends a request for `path` to, as the SDK joins them
 * (one slash between), for error messages; undefined for a client that does
 * not say its base URL.
 *
 * @example
 * endpointOf({ baseURL: "http://localhost:11434/v1/" }, "/chat/completions"); // "POST http://localhost:11434/v1/chat/completions"
 */
export function endpointOf(sdk: unknown, path: string): string | undefined {
  const base = (sdk as { baseURL?: unknown } | null)?.baseURL;
  if (typeof base !== "string") return undefined;
  return `POST ${base.endsWith("/") ? base.slice(0, -1) : base}${path}`;
}

/** Loads an SDK once per LM; a failed load is not cached, so a later call may try again. */
export function lazy<T>(load: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => {
    pending ??= load().catch((e: unknown) => {
      pending = undefined;
      throw e;
    });
    return pending;
  };
}

/**
 * An optional peer SDK, imported on first use. A missing package is a
 * `FunctaiError("lm-missing")` naming what to install; `load` stays a literal
 * `import("pkg")` at the call site so bundlers still see it.
 */
export async function loadSdk<T>(pkg: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (e) {
    const text = e instanceof Error ? e.message : String(e);
    const missing = (e as { code?: unknown } | null)?.code === "ERR_MODULE_NOT_FOUND" && text.includes(`'${pkg}'`);
    const why = missing ? "is not installed" : `could not be loaded (${text})`;
    throw new FunctaiError("lm-missing", `The "${pkg}" package ${why}. Install it next to functai: npm install ${pkg}`, { cause: e });
  }
}

/**
 * What a ready SDK client passed as `client` must have: both SDKs' clients
 * (`OpenAI`, `Anthropic`) do. By shape, so functai's published types never
 * import an optional SDK.
 */
export interface SdkClient {
  withOptions(options: { maxRetries: number }): unknown;
}
