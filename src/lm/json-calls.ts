/**
 * Tool calls as a reply's whole text in JSON, a model's own form: Llama
 * 3.1's and 3.3's `{"name": "get_weather", "parameters": {"city": "Paris"}}`
 * (their JSON tool calling, perhaps after a `<|python_tag|>`, and Llama
 * 3.3's with `"type": "function"` too), or a list of calls (`[{"name": …,
 * "arguments": {…}}]`, Mistral's, its `[TOOL_CALLS]` marker left out of the
 * text by the server). Offered tools as text, such a model often writes its
 * own form rather than the `<tool_call>` block it was asked for. Read
 * strictly, as pythonicCalls reads Llama 3.2's form, so no answer is taken
 * for a call: the reply (a code fence around it allowed) must be nothing
 * but that JSON, each object's name a string and its input under
 * `arguments` or `parameters`, with no other key (but OpenAI's `id` and
 * `type`). Anything else is no call list.
 *
 * Read as calls with tools offered as text (text-tools.ts); refused with
 * tools offered natively, where the server should have read them
 * (providers/common.ts refuseTextToolCalls, "its JSON").
 *
 * @example
 * jsonCalls('{"name": "get_weather", "parameters": {"city": "Paris"}}'); // [{ name: "get_weather", parameters: { city: "Paris" } }]
 * jsonCalls('{"name": "Paris", "country": "France"}'); // undefined
 */
import { FENCED } from "./pythonic-calls.js";

/** Llama 3.1's marker before a call it writes. */
const PYTHON_TAG = /^<\|python_tag\|>\s*/;

/** The keys a call written so may have. */
const KEYS = new Set(["name", "arguments", "parameters", "id", "type"]);

/** The call objects `text` is made of, in order, or undefined when it is anything but such JSON (see above). */
export function jsonCalls(text: string): Record<string, unknown>[] | undefined {
  // (Llama 3.1 opens a call with `<|python_tag|>` where the server shows special tokens, as llama.cpp can)
  const body = (FENCED.exec(text)?.[1] ?? text).trim().replace(PYTHON_TAG, "");
  if (!body.startsWith("{") && !body.startsWith("[")) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return undefined;
  }
  const calls: unknown[] = Array.isArray(value) ? value : [value];
  return calls.length > 0 && calls.every(isCall) ? calls : undefined;
}

function isCall(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const call = value as Record<string, unknown>;
  return (
    typeof call.name === "string" &&
    call.name !== "" &&
    (Object.hasOwn(call, "arguments") || Object.hasOwn(call, "parameters")) &&
    Object.keys(call).every((key) => KEYS.has(key))
  );
}
