/**
 * Tool calls as a reply's whole text in JSON, a model's own form: Llama
 * 3.1's and 3.3's `{"name": "get_weather", "parameters": {"city": "Paris"}}`
 * (their JSON tool calling, perhaps after a `<|python_tag|>`, and Llama
 * 3.3's with `"type": "function"` too; several with `;` between), or a
 * list of calls (`[{"name": …, "arguments": {…}}]`, Mistral's, its
 * `[TOOL_CALLS]` marker left out of the text by the server). Offered tools
 * as text, such a model often writes its own form rather than the
 * `<tool_call>` block it was asked for. Read strictly, as pythonicCalls
 * reads Llama 3.2's form, so no answer is taken for a call: the reply (a
 * code fence around it allowed) must be nothing but that JSON, each
 * object's name a string and its input under `arguments` or `parameters`,
 * with no other key (but OpenAI's `id` and `type`). Anything else is no
 * call list.
 *
 * Read as calls with tools offered as text (text-tools.ts); refused with
 * tools offered natively, where the server should have read them
 * (providers/common.ts refuseTextToolCalls, "its JSON").
 *
 * @example
 * jsonCalls('{"name": "get_weather", "parameters": {"city": "Paris"}}'); // [{ name: "get_weather", parameters: { city: "Paris" } }]
 * jsonCalls('{"name": "Paris", "country": "France"}'); // undefined
 */
import { FENCED, withoutCallMarkers } from "./pythonic-calls.js";

/** The keys a call written so may have. */
const KEYS = new Set(["name", "arguments", "parameters", "id", "type"]);

/**
 * Where the object or list opening at `from` ends (just after its `}` or `]`), brackets in strings (in either quote,
 * as a pythonic list writes them) not counted; -1 when it never does.
 */
export function valueEnd(text: string, from: number): number {
  let depth = 0;
  let quote: string | undefined;
  for (let i = from; i < text.length; i++) {
    const c = text[i]!;
    if (quote !== undefined) {
      if (c === "\\") i++;
      else if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === "{" || c === "[" || c === "(") depth++;
    else if ((c === "}" || c === "]" || c === ")") && --depth === 0) return i + 1;
  }
  return -1;
}

/**
 * The JSON objects `text` is, one after another with `;` between (and after the last, perhaps), as Llama 3.x writes
 * parallel calls in its JSON form (`{…}; {…}`: ai-dynamo/dynamo#9536; vLLM's llama3_json parser reads them so);
 * undefined where it is anything more.
 */
function separated(text: string): unknown[] | undefined {
  const objects: unknown[] = [];
  let at = 0;
  while (at < text.length) {
    const end = text[at] === "{" ? valueEnd(text, at) : -1;
    if (end < 0) return undefined;
    try {
      objects.push(JSON.parse(text.slice(at, end)));
    } catch {
      return undefined;
    }
    const gap = /^\s*;\s*/.exec(text.slice(end))?.[0];
    if (gap === undefined && end < text.length) return undefined;
    at = end + (gap?.length ?? 0);
  }
  return objects;
}

/** The call objects `text` is made of, in order, or undefined when it is anything but such JSON (see above). */
export function jsonCalls(text: string): Record<string, unknown>[] | undefined {
  // (Llama 3.1 opens a call with `<|python_tag|>` where the server shows special tokens, as llama.cpp can; Llama 4 wraps
  // it in `<|python_start|>` and `<|python_end|>`: see withoutCallMarkers)
  const body = withoutCallMarkers(FENCED.exec(text)?.[1] ?? text);
  if (!body.startsWith("{") && !body.startsWith("[")) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    value = separated(body);
    if (value === undefined) return undefined;
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
