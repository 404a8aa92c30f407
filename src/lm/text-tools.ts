import { cutShort, cutShortArguments, stoppedEarly } from "./cut-short.js";
import { jsonCalls, valueEnd } from "./json-calls.js";
import { markedCalls } from "./marked-calls.js";
import { inBlock, unfenced } from "./prompt.js";
import { looseJson, looseObject, pythonicCalls } from "./pythonic-calls.js";
import { leadingThought } from "./thinking.js";
import { CALL_OPEN, type CallBlock, openCall, withoutCalls } from "./tool-call-blocks.js";
import type { LMRequest, LMResponse, Message, ToolCall, ToolSpec } from "./types.js";
import { isRecord } from "../runtime/values.js";

/**
 * Tools as text, for models without native tool calling: the same tools in
 * the same layout, offered in the system message; calls are read back from
 * `<tool_call>` blocks and results sent as `<tool_result>` blocks.
 */

export function toolsText(tools: readonly ToolSpec[]): string {
  const lines = tools.map((t) => `- ${t.name}: ${t.description}\n  input (JSON Schema): ${JSON.stringify(t.parameters)}`);
  return (
    "Tools:\n" +
    "To call a tool, reply with one block per call, and nothing else:\n" +
    '<tool_call>\n{"name": "<tool name>", "input": { ... }}\n</tool_call>\n' +
    "Each result comes back in a <tool_result> block. Answer in the reply form once you have what you need.\n\n" +
    lines.join("\n")
  );
}

// an input or a result that holds the block's own closing tag cannot end it early (see inBlock)
const callText = (call: ToolCall): string =>
  `<tool_call>\n${inBlock("tool_call", JSON.stringify({ name: call.name, input: call.input }))}\n</tool_call>`;

/** What an attribute's value cannot hold as it is, each with the character reference that stands for it (XML's). */
const ATTRIBUTE_REFS: Record<string, string> = { "&": "&amp;", '"': "&quot;", "<": "&lt;", ">": "&gt;", "\n": "&#10;", "\r": "&#13;" };

/**
 * A `<tool_result>` tag's attribute value, escaped as XML escapes one: a name the model made up (a call of no tool:
 * its result names it) or an id another provider gave, holding `"`, `>` or a line break, ended the tag early, and
 * what followed it read as the model's own tags (`id="call_2">` and a block that was never a result). A name or an
 * id of letters, digits, `_`, `-` and `.` (every tool's, every id functai makes) is written as it is.
 */
const attribute = (value: string): string => value.replace(/[&"<>\n\r]/g, (c) => ATTRIBUTE_REFS[c]!);

/** Renders a neutral request for a model that reads tools as text. */
export function toTextRequest(request: LMRequest): LMRequest {
  const messages: Message[] = [];
  for (const message of request.messages) {
    if (message.role === "system" && request.tools.length > 0) {
      messages.push({ role: "system", content: `${message.content}\n\n${toolsText(request.tools)}` });
    } else if (message.role === "assistant" && message.toolCalls?.length) {
      const parts = [message.content, ...message.toolCalls.map(callText)].filter((p) => p !== "");
      messages.push({ role: "assistant", content: parts.join("\n") });
    } else if (message.role === "tool") {
      const text = `<tool_result name="${attribute(message.name)}" id="${attribute(message.toolCallId)}">\n${inBlock("tool_result", message.content)}\n</tool_result>`;
      const last = messages.at(-1);
      // consecutive results go in one user message
      if (last?.role === "user" && last.content.startsWith("<tool_result")) last.content += `\n${text}`;
      else messages.push({ role: "user", content: text });
    } else {
      messages.push({ ...message });
    }
  }
  const out: LMRequest = { ...request, messages, tools: [] };
  return out;
}

/** The keys of a call block read (`id` and `type` as OpenAI's wire form has them, which carry no input). */
const CALL_KEYS = new Set(["name", "input", "arguments", "parameters", "id", "type"]);

/**
 * The calls in one block's body. Most bodies are one call's JSON. Some
 * models write two calls in one block, one JSON object after the other, or
 * as a list (JSON's, or Llama's pythonic one), or words after the call's
 * JSON, or after the list ("I will wait for the result."): each whole
 * object is a call, as is each of a whole list's, and the words after them
 * are not part of any input. A body that does not begin with whole JSON
 * objects, or such a list, is one call with `inputError` (see callOf).
 */
function callsOf(body: string): ToolCall[] {
  // a model's own tags inside the block (Llama's `<function=get_weather>{…}</function>`), and nothing else: their calls
  const own: CallBlock[] = [];
  if (body.startsWith("<") && withoutCalls(body, (block) => own.push(block)).trim() === "" && own.length > 0) return own.flatMap(blockCallsOf);
  const json = unfenced(body);
  const whole = listCalls(json);
  if (whole !== undefined) return whole;
  try {
    JSON.parse(json);
    return [callOf("", body)];
  } catch {
    // a list of calls with words after it (Llama writes them after its pythonic list: vllm-project/vllm#56840, whose
    // streamed reading runs the calls and whose whole reading took all for text): its calls, as after a call's object;
    // the list cut short or mistyped is still one call with inputError, the model told
    const end = json.startsWith("[") ? valueEnd(json, 0) : -1;
    const list = end < 0 ? undefined : listCalls(json.slice(0, end));
    const { objects, rest } = list === undefined ? leadingObjects(json) : { objects: [], rest: json.slice(end).trim() };
    const calls = list ?? objects.map((o) => callOf("", o));
    if (calls.length === 0) return [callOf("", body)];
    // a call after them that is not whole JSON (cut off, or mistyped) is still a call: the model is told
    if (rest.startsWith("{")) return [...calls, callOf("", rest)];
    // a block opened after them, this one never closed (`{…}\n<tool_call>\n{…}\n</tool_call>`): its calls are the model's too
    const next = openCall(rest);
    return [...calls, ...(next === undefined ? [] : blockCallsOf(next.block))];
  }
}

/**
 * The calls of a list of them, the whole of `text`: a JSON list of call objects (as `<tool_calls>` holds them, see
 * blockCallsOf), or Llama's pythonic one (`[get_weather(city="Paris")]`, see pythonic-calls.ts); undefined where it is
 * no such list.
 */
function listCalls(text: string): ToolCall[] | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return pythonicCalls(text)?.map(({ name, input }) => ({ id: "", name, input }));
  }
  return Array.isArray(value) && value.length > 0 && value.every(isRecord) ? value.map((call) => callOf("", JSON.stringify(call))) : undefined;
}

/** The whole JSON objects `text` begins with, one after another (whitespace or commas between), and the text after them, trimmed. */
function leadingObjects(text: string): { objects: string[]; rest: string } {
  const objects: string[] = [];
  let at = 0;
  for (;;) {
    while (at < text.length && /[\s,]/.test(text[at]!)) at++; // (some models put commas between them)
    const end = text[at] === "{" ? valueEnd(text, at) : -1;
    const object = end < 0 ? undefined : text.slice(at, end);
    try {
      if (object === undefined) throw new Error("no object");
      JSON.parse(object);
    } catch {
      return { objects, rest: text.slice(at).trim() };
    }
    objects.push(object);
    at = end;
  }
}

/** The calls in one block (see tool-call-blocks.ts): a `<tool_call>` block's (see callsOf), `<tool_calls>`' list's, or the one `<function=…>` names. */
function blockCallsOf(block: CallBlock): ToolCall[] {
  if (block.name !== undefined) return [inputCall(block.name, block.body)];
  if (!block.list) return callsOf(block.body);
  const list = parsed(block.body);
  return Array.isArray(list) ? list.map((call) => callOf("", JSON.stringify(call))) : callsOf(block.body);
}

/** A block's body as JSON, or written loosely (see looseJson); undefined when it is neither. */
function parsed(body: string): unknown {
  try {
    return JSON.parse(unfenced(body));
  } catch {
    return looseJson(unfenced(body));
  }
}

/** The call of the tool `<function=name>` names, its body the input's JSON object; one that is not becomes a call with `inputError`. */
function inputCall(name: string, body: string): ToolCall {
  const input = parsed(body);
  if (typeof input === "object" && input !== null && !Array.isArray(input)) return { id: "", name, input };
  return { id: "", name, input: body, inputError: "its input is not valid JSON: write a JSON object" };
}

/** A call in Qwen3-Coder's form (see callOf); the tool's name is the first group. */
const XML_CALL = /^<function=([^>\s]+)>/;

/** One block's call; a body that is not a call's JSON object becomes a call with `inputError`. */
function callOf(id: string, body: string): ToolCall {
  // (the name in either quote: a model told only that a tool named "" does not exist wrote the same call again)
  const named = (): string => /(["'])name\1\s*:\s*(["'])([^"']+)\2/.exec(body)?.[3] ?? "";
  // Qwen3-Coder's own form, `<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>`: its values are
  // bare text whose types only the tool's schema tells, so it is not read; the model is told the tool and the form to use
  const xml = XML_CALL.exec(body);
  if (xml)
    return {
      id,
      name: xml[1]!,
      input: body,
      inputError: `written as <function=…> and <parameter=…> tags, not JSON: write {"name": …, "input": {…}}`,
    };
  let parsed: unknown;
  try {
    parsed = JSON.parse(unfenced(body));
  } catch (e) {
    // written loosely (a Python dict, trailing commas): read as the object it plainly is (see looseObject)
    parsed = looseObject(unfenced(body));
    if (parsed === undefined) return { id, name: named(), input: body, inputError: `not valid JSON: ${(e as Error).message}` };
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    return { id, name: named(), input: body, inputError: 'not a JSON object {"name": …, "input": …}' };
  }
  const call = parsed as { name?: unknown; input?: unknown; arguments?: unknown; parameters?: unknown };
  const name = typeof call.name === "string" ? call.name : "";
  // Llama 3.x models write their own form, `{"name": …, "parameters": {…}}`
  if (call.input === undefined && call.arguments === undefined && call.parameters !== undefined) return { id, name, input: call.parameters };
  // an input under a key nobody reads is never run as an empty input: the model is told where it goes
  const unread = Object.keys(call).filter((key) => !CALL_KEYS.has(key));
  if (call.input === undefined && call.arguments === undefined && unread.length > 0)
    return {
      id,
      name,
      input: body,
      inputError: `no "input" key (it has ${unread.map((k) => JSON.stringify(k)).join(", ")}): write {"name": …, "input": {…}}`,
    };
  // OpenAI's wire form, which models that learnt it write here too: `arguments` as a JSON string of the object
  if (call.input === undefined && typeof call.arguments === "string") {
    try {
      return { id, name, input: JSON.parse(call.arguments) as unknown };
    } catch (e) {
      return { id, name, input: call.arguments, inputError: `its arguments are not valid JSON: ${(e as Error).message}` };
    }
  }
  return { id, name, input: call.input ?? call.arguments ?? {} };
}

/**
 * Whether a call that could not be read is JSON that never ends (its object
 * or list opens, after a fence or not, and never closes): in the block a
 * reply's cut ran into, the cut ended it. Told "not valid JSON", the model
 * wrote the same long call again, to be cut again; it is told it was cut off
 * (see cutShortArguments). A call read as JSON, or in another form, keeps
 * its own why.
 */
function cutInside(call: ToolCall): boolean {
  if (call.inputError === undefined || typeof call.input !== "string") return false;
  const at = call.input.search(/[{[]/);
  return at >= 0 && /^\s*(?:```\w*\s*)?$/.test(call.input.slice(0, at)) && valueEnd(call.input, at) < 0;
}

/**
 * The calls `text` writes in `<tool_call>` blocks, or in a model's own tags
 * without one (Llama's `<function=get_weather>{…}</function>`, Hunyuan's
 * `<tool_calls>[…]</tool_calls>`; the tags only named in prose or in code
 * are text: see tool-call-blocks.ts), read as a reply to tools offered as
 * text is (see fromTextResponse), without ids: each closed block's, then
 * those of one never closed (it runs to the text's end), and the text
 * without the blocks. `unclosed`: the
 * last call is in a block never closed. What the check of a reply to
 * natively offered tools reads too (providers/common.ts), so a call read
 * here is never taken there for an answer.
 */
export function blockCalls(text: string): { calls: ToolCall[]; words: string; unclosed: boolean } {
  const calls: ToolCall[] = [];
  const add = (block: CallBlock): void => {
    calls.push(...blockCallsOf(block));
  };
  const words = withoutCalls(text, add);
  const open = openCall(words);
  if (open === undefined) return { calls, words, unclosed: false };
  add(open.block);
  return { calls, words: words.slice(0, open.at), unclosed: true };
}

/**
 * Reads tool calls back from a text reply (see blockCalls); a block that is
 * not valid JSON becomes a call with `inputError`. JSON the model fenced inside the block is
 * read as a fenced `<result>` is (models fence JSON out of habit). A block
 * never closed runs to the reply's end and is a call too, never part of the
 * answer: cut off by the length limit it is one that does not run (see
 * cut-short.ts), else the model just left the closing tag out.
 */
export function fromTextResponse(response: LMResponse): LMResponse {
  // a call the model's reasoning drafted (`<think>…</think>`) is not one it made: only the text after it is read
  const thought = leadingThought(response.text);
  const reasoning = thought === undefined ? "" : response.text.slice(0, thought.end);
  const reply = response.text.slice(reasoning.length);
  const read = blockCalls(reply);
  // `call_1`, `call_2`, …, none an id of the reply's own calls (a server that read some calls itself, a model of your
  // own): two calls of one id had their results told apart by none (`<tool_result id="call_1">` twice)
  const taken = new Set(response.toolCalls.map((c) => c.id));
  let n = 0;
  const nextId = (): string => {
    while (taken.has(`call_${++n}`));
    return `call_${n}`;
  };
  const calls: ToolCall[] = read.calls.map((c) => ({ ...c, id: nextId() }));
  // (only the last call can have been cut short; its JSON that never ends is so because of the cut: see cutInside)
  if (read.unclosed && stoppedEarly(response.finishReason)) {
    const last = calls.at(-1)!;
    calls[calls.length - 1] = cutInside(last) ? cutShortArguments(last) : cutShort(last);
  }
  let text = read.words;
  // a model's own form as the reply's whole text: Llama 3.2's and Llama 4's `[get_weather(city="Paris")]` (see
  // pythonic-calls.ts), Llama 3.1's `{"name": "get_weather", "parameters": {…}}` (see json-calls.ts); a `<tool_call>` tag
  // only the reasoning named is no block of the reply's (as its streamed text reads it: reply-text.ts)
  if (calls.length === 0 && !reply.includes(CALL_OPEN)) {
    // Kimi K2's, DeepSeek's or Mistral's call tokens, which a server showed and did not read (see marked-calls.ts): the
    // words around them are the reply's; a reply that stopped early may have cut the last call short
    const marked = markedCalls(text);
    const pythonic = marked === undefined ? pythonicCalls(text) : undefined;
    const json = marked === undefined && pythonic === undefined ? jsonCalls(text) : undefined;
    if (marked === undefined && pythonic === undefined && json === undefined) return response;
    for (const call of marked?.calls ?? []) calls.push({ id: nextId(), ...call });
    if (marked !== undefined && stoppedEarly(response.finishReason)) {
      // (its input cut off is no JSON object: the model is told it was cut off, not that it wrote it wrong)
      calls[calls.length - 1] = cutShortArguments(calls.at(-1)!);
    }
    for (const { name, input } of pythonic ?? []) calls.push({ id: nextId(), name, input });
    for (const call of json ?? []) calls.push(callOf(nextId(), JSON.stringify(call)));
    text = marked?.words ?? "";
  }
  if (calls.length === 0) return response;
  return { ...response, text: (reasoning + text).trim(), toolCalls: [...response.toolCalls, ...calls], finishReason: "tool_calls" };
}
