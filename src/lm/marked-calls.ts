/**
 * Tool calls written in a model's own special tokens, where the server
 * shows them in the text and reads no call from them (no tool-call parser,
 * or one that let them through):
 *
 * - Kimi K2's: `<|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:0<|tool_call_argument_begin|>{…}<|tool_call_end|>…<|tool_calls_section_end|>`
 *   (as it comes through OpenRouter and SGLang: NousResearch/hermes-agent#24536, MoonshotAI/Kimi-K2#26; the
 *   section's tag also singular, `<|tool_call_section_begin|>`, as llama.cpp and vLLM read it).
 * - DeepSeek's: `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME\n```json\n{…}\n```<｜tool▁call▁end｜>…<｜tool▁calls▁end｜>`
 *   (V3 and R1; V3.1 on writes `NAME<｜tool▁sep｜>{…}`), its bars full-width or plain (google/adk-python#5654).
 * - DeepSeek V3.2's DSML: `<｜DSML｜function_calls><｜DSML｜invoke name="NAME"><｜DSML｜parameter name="KEY" string="true">VALUE</｜DSML｜parameter>…</｜DSML｜invoke>…</｜DSML｜function_calls>`,
 *   a value `string="true"` its text as it is, `string="false"` JSON (V4 names the section `tool_calls`: vLLM's
 *   deepseek_v32 and deepseek_v4 tool parsers), its bars full-width or plain.
 * - Mistral's: `[TOOL_CALLS]` then a JSON list of `{ name, arguments }` (tokenizers v3 to v7), or
 *   `[TOOL_CALLS]NAME[ARGS]{…}`, once per call (v11 on; v13 puts `[CALL_ID]id` before `[ARGS]`).
 *
 * The tokens are the model's alone (never words it writes), so a section of
 * them is calls wherever it begins: the words before it (and after its
 * closing token) are the reply's words. Read as calls with tools offered as
 * text (text-tools.ts, reply-text.ts); refused with tools offered natively,
 * where the server should have read them (providers/common.ts).
 *
 * @example
 * markedCalls('Let me look.<|tool_calls_section_begin|><|tool_call_begin|>functions.lookup_order:0<|tool_call_argument_begin|>{"order_id": "A-1042"}<|tool_call_end|><|tool_calls_section_end|>');
 * // { form: "kimi", calls: [{ name: "lookup_order", input: { order_id: "A-1042" } }], words: "Let me look." }
 */
import { valueEnd } from "./json-calls.js";
import { FENCED, looseJson } from "./pythonic-calls.js";

/** Whose tokens a reply's calls are written in. */
export type MarkedForm = "kimi" | "deepseek" | "dsml" | "mistral";

/** One call read from the tokens: its name and input; a body that is no JSON object is kept as text, with why. */
export interface MarkedCall {
  name: string;
  input: unknown;
  inputError?: string;
}

/** The calls of a reply's section of call tokens, whose they are, and the reply's words around the section. */
export interface MarkedCalls {
  form: MarkedForm;
  calls: MarkedCall[];
  words: string;
  /** Whether no words follow the section: the text ends in its calls. */
  last: boolean;
}

/** A DeepSeek token, `<｜tool▁NAME｜>`, its bars full-width (as the model writes them) or plain. */
const deepseek = (name: string): string => `<[|｜]tool[▁_]${name}[|｜]>`;
/** A DSML tag's opening, `<｜DSML｜NAME` (`</｜DSML｜NAME` closing), its bars full-width or plain. */
const dsml = (name: string, closing = false): string => `<${closing ? "/" : ""}[|｜]DSML[|｜]${name}`;

/** Where each form's section opens (its first call's token where a server dropped the section's own), and where it closes. */
const FORMS: readonly { form: MarkedForm; open: RegExp; close: RegExp }[] = [
  { form: "kimi", open: /<\|tool_calls?_section_begin\|>|<\|tool_call_begin\|>/, close: /<\|tool_calls?_section_end\|>/ },
  { form: "deepseek", open: new RegExp(deepseek("calls?[▁_]begin")), close: new RegExp(deepseek("calls[▁_]end")) },
  {
    form: "dsml",
    open: new RegExp(`${dsml("(?:function|tool)_calls>")}|${dsml("invoke\\s")}`),
    close: new RegExp(dsml("(?:function|tool)_calls>", true)),
  },
  { form: "mistral", open: /\[TOOL_CALLS\]/, close: /(?!)/ },
];

/** Whether `text` opens a section of call tokens (see FORMS) somewhere, whether or not its calls are whole yet. */
export const markedOpen = (text: string): boolean => FORMS.some(({ open }) => open.test(text));

/** One Kimi call: its id (`functions.NAME:0`) and its arguments, up to its closing token (or the section's end). */
const KIMI_CALL = /<\|tool_call_begin\|>([^<]*)<\|tool_call_argument_begin\|>([\s\S]*?)(?=<\|tool_call_end\|>|<\|tool_call_begin\|>|$)/g;
/** Kimi's tokens of a section that are no call's beginning: the section's opening, each call's end. */
const KIMI_TOKENS = /<\|tool_calls?_section_begin\|>|<\|tool_call_end\|>/g;
/** One DeepSeek call: what is before its separator (`function`, or V3.1's name) and after it, up to its closing token. */
const DEEPSEEK_CALL = new RegExp(
  `${deepseek("call[▁_]begin")}([\\s\\S]*?)${deepseek("sep")}([\\s\\S]*?)(?=${deepseek("call[▁_]end")}|${deepseek("call[▁_]begin")}|$)`,
  "g",
);
/** DeepSeek's tokens of a section that are no call's beginning: the section's opening, each call's end. */
const DEEPSEEK_TOKENS = new RegExp(`${deepseek("calls[▁_]begin")}|${deepseek("call[▁_]end")}`, "g");
/** One DSML call: its name, and its parameters, up to its closing tag (or the next call's, or the section's end). */
const DSML_CALL = new RegExp(`${dsml("invoke")}\\s+name="([^"]*)"\\s*>([\\s\\S]*?)(?:${dsml("invoke>", true)}|(?=${dsml("invoke\\s")}|$))`, "g");
/** One DSML parameter: its name, whether its value is text as it is (`string="true"`) or JSON, and the value. */
const DSML_PARAMETER = new RegExp(
  `${dsml("parameter")}\\s+name="([^"]*)"(?:\\s+string="(true|false)")?\\s*>([\\s\\S]*?)${dsml("parameter>", true)}`,
  "g",
);
/** DSML's tag of a section that is no call's: the section's opening. */
const DSML_TOKENS = new RegExp(dsml("(?:function|tool)_calls>"), "g");
/** A Mistral v11 call: its name, then (v13) its id, then its arguments. */
const MISTRAL_NAMED = /^([A-Za-z0-9_.-]{1,64})(?:\[CALL_ID\][^[]*)?\[ARGS\]([\s\S]*)$/;

/** The calls `text` writes in a model's call tokens (see above), and its words around them; undefined where it writes none. */
export function markedCalls(text: string): MarkedCalls | undefined {
  let first: { form: MarkedForm; at: number; close: RegExp } | undefined;
  for (const { form, open, close } of FORMS) {
    const at = open.exec(text)?.index;
    if (at !== undefined && (first === undefined || at < first.at)) first = { form, at, close };
  }
  if (first === undefined) return undefined;
  const rest = text.slice(first.at);
  const close = first.close.exec(rest);
  const section = close === null ? rest : rest.slice(0, close.index);
  const after = close === null ? "" : rest.slice(close.index + close[0].length);
  const read = READERS[first.form](section);
  if (read === undefined || read.calls.length === 0) return undefined;
  const words = [text.slice(0, first.at), read.after, after].map((w) => w.trim()).filter((w) => w !== "");
  return { form: first.form, calls: read.calls, words: words.join("\n"), last: `${read.after}${after}`.trim() === "" };
}

/**
 * The words a section holds between its calls (each matched by `calls`), its own tokens (`tokens`) aside: the reply's,
 * as the words around the section are (they were dropped unseen). White space in the output servers pass on. A gap
 * that still holds a token (`<|` or `<｜`: a call cut before its arguments, a token of no call) is no words.
 */
function between(section: string, calls: RegExp, tokens: RegExp): string {
  return section
    .replace(calls, "\0")
    .split("\0")
    .map((gap) => gap.replace(tokens, "").trim())
    .filter((gap) => gap !== "" && !/<[|｜]/.test(gap))
    .join("\n");
}

/** Kimi's calls: each one's name is its id's (`functions.lookup_order:0`, or `lookup_order:0`). */
function kimiCalls(section: string): { calls: MarkedCall[]; after: string } {
  const calls = [...section.matchAll(KIMI_CALL)].map(([, id, body]) =>
    inputOf(
      id!
        .trim()
        .replace(/:\d+$/, "")
        .replace(/^functions\./, ""),
      body!,
    ),
  );
  return { calls, after: between(section, KIMI_CALL, KIMI_TOKENS) };
}

/** DeepSeek's calls: V3's `function` then the name on the separator's line and the fenced JSON; V3.1's name then the JSON. */
function deepseekCalls(section: string): { calls: MarkedCall[]; after: string } {
  const calls = [...section.matchAll(DEEPSEEK_CALL)].map(([, head, body]) => {
    const kind = head!.trim();
    const line = /^[ \t]*([^\s`{]+)[ \t]*(?:\n|$)/.exec(body!);
    if (kind === "function" && line !== null) return inputOf(line[1]!, body!.slice(line[0].length));
    return inputOf(kind, body!);
  });
  return { calls, after: between(section, DEEPSEEK_CALL, DEEPSEEK_TOKENS) };
}

/**
 * DSML's calls: each one's parameters make its input, a value `string="true"` its text as it is, any other JSON (as
 * DeepSeek's template writes numbers, booleans, lists and objects). A value that is no JSON, or anything in the call
 * but its parameters (white space aside), leaves the call's body as text, the model told.
 */
function dsmlCalls(section: string): { calls: MarkedCall[]; after: string } {
  const calls = [...section.matchAll(DSML_CALL)].map(([, name, body]): MarkedCall => {
    const input: Record<string, unknown> = {};
    let bad: string | undefined;
    for (const [, key, string, value] of body!.matchAll(DSML_PARAMETER)) {
      const read = string === "true" ? value : parsed(value!.trim());
      if (read === undefined) bad ??= `its parameter ${JSON.stringify(key)} is not JSON: write it so, or with string="true" for text`;
      input[key!] = read;
    }
    if (body!.replace(DSML_PARAMETER, "").trim() !== "") bad ??= "it holds more than its parameters: write each as a <｜DSML｜parameter> tag";
    return bad === undefined ? { name: name!, input } : { name: name!, input: body!.trim(), inputError: bad };
  });
  return { calls, after: between(section, DSML_CALL, DSML_TOKENS) };
}

/** Mistral's calls: the JSON list after the marker (words after it are the reply's), or each marker's `NAME[ARGS]{…}`. */
function mistralCalls(section: string): { calls: MarkedCall[]; after: string } | undefined {
  const parts = section
    .split("[TOOL_CALLS]")
    .slice(1)
    .map((p) => p.trim());
  if (parts.length === 1 && /^[[{]/.test(parts[0]!)) {
    const end = valueEnd(parts[0]!, 0);
    const list = end < 0 ? undefined : parsed(parts[0]!.slice(0, end));
    const items = Array.isArray(list) ? list : [list];
    if (!items.every((c) => isNamed(c))) return undefined;
    return { calls: items.map((c) => ({ name: c.name, input: c.arguments ?? {} })), after: parts[0]!.slice(end) };
  }
  const calls: MarkedCall[] = [];
  const after: string[] = [];
  for (const part of parts) {
    // (its arguments begin as an object does; words after the object are the reply's)
    const named = MISTRAL_NAMED.exec(part);
    const args = named === null ? "" : named[2]!.trim();
    if (named === null || !args.startsWith("{")) return undefined;
    const end = valueEnd(args, 0);
    calls.push(inputOf(named[1]!, end < 0 ? args : args.slice(0, end)));
    if (end >= 0) after.push(args.slice(end).trim());
  }
  return { calls, after: after.filter((w) => w !== "").join("\n") };
}

/** Each form's reader of its section. */
const READERS: Record<MarkedForm, (section: string) => { calls: MarkedCall[]; after: string } | undefined> = {
  kimi: kimiCalls,
  deepseek: deepseekCalls,
  dsml: dsmlCalls,
  mistral: mistralCalls,
};

/** Whether a listed call is one: a name, and its input under `arguments` (an object) or none. */
const isNamed = (c: unknown): c is { name: string; arguments?: Record<string, unknown> } => {
  const call = c as { name?: unknown; arguments?: unknown } | null;
  return (
    typeof call === "object" &&
    call !== null &&
    typeof call.name === "string" &&
    call.name !== "" &&
    (call.arguments === undefined || isObject(call.arguments))
  );
};

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** JSON, or written loosely (see looseJson); undefined when it is neither. */
function parsed(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return looseJson(text);
  }
}

/**
 * A call of `name` whose input is `body`'s JSON object (fenced or not; a JSON string of one too, as Kimi K2 has
 * written it through SGLang: MoonshotAI/Kimi-K2#26); a body that is none is kept as text, the model told.
 */
function inputOf(name: string, body: string): MarkedCall {
  const text = (FENCED.exec(body)?.[1] ?? body).trim();
  let input = text === "" ? {} : parsed(text);
  if (typeof input === "string") input = parsed(input);
  if (isObject(input)) return { name, input };
  return { name, input: body.trim(), inputError: "its input is not a JSON object: write the call's input as one" };
}
