import { z } from "zod";
import { asciiLower, partialTag } from "./reply-text.js";
import { leadingThought } from "./thinking.js";
import { describeError } from "../errors.js";
import { issuesText, readWith } from "../schema-read.js";
import type { FinishReason, Message } from "./types.js";

/**
 * How a call is laid out: the system message names the function, its
 * description and the reply form; the user message holds each input as a
 * tag block. Adding tools never changes how the rest is written.
 */

export const isStringOutput = (output: z.ZodType): boolean => output instanceof z.ZodString;

/** The closing tags of each block name seen (made once per name). */
const closingTags = new Map<string, RegExp>();

/**
 * A block's body, with its own closing tag (`</question>`: in any case,
 * with white space before its `>`, or cut off at the body's end) written as
 * `<\/question>`, so that a value cannot end its block early and write
 * blocks of its own after it. In JSON (objects, a tool call's input) `\/`
 * is an escape of `/`, so the JSON still reads as the same value. A body
 * without such a tag is written exactly as before this escape existed: the
 * text of those prompts, and so the request keys kept in journals, do not
 * change.
 */
export function inBlock(tag: string, body: string): string {
  if (!body.includes("</")) return body;
  let closing = closingTags.get(tag);
  if (closing === undefined) {
    closing = new RegExp(`</(${tag.replace(/[.*+?^${}()|[\]\\-]/g, "\\$&")})(?=\\s|>|$)`, "gi");
    closingTags.set(tag, closing);
  }
  return body.replace(closing, "<\\/$1");
}

const block = (tag: string, body: string): string => `<${tag}>\n${inBlock(tag, body)}\n</${tag}>`;

// JSON.stringify gives undefined for undefined (an earlier answer a transform made undefined, which the journal
// does not keep): shown as an empty block, not a TypeError
const asText = (value: unknown): string => (typeof value === "string" ? value : (JSON.stringify(value) ?? ""));

/** An output type's JSON Schema, as the system message shows it (made once per type). */
const schemaText = new WeakMap<z.ZodType, string>();

const jsonSchemaText = (type: z.ZodType, io: "input" | "output"): string => {
  const schema = z.toJSONSchema(type, { unrepresentable: "any", io }) as Record<string, unknown>;
  delete schema.$schema;
  return JSON.stringify(schema);
};
const NO_EXTRA_KEYS = /,?"additionalProperties":false/g;

/** A plain text output's JSON Schema: nothing to tell the model beyond the reply form. */
const PLAIN_TEXT = '{"type":"string"}';

export function systemMessage(name: string, description: string, output: z.ZodType): string {
  let text = `Function: ${name}\n\n${description}\n\nReply in exactly this form:\n${block("result", "...")}`;
  let json = schemaText.get(output);
  if (json === undefined) {
    json = jsonSchemaText(output, "output");
    // the reply is what the output type parses: its input side. A transform's output side is `{}` (anything)
    // and a default's key is required there, so the model was told what the parse then refused. A type with
    // neither is written as before (the input side differs only in leaving out additionalProperties), so its
    // prompts, and the request keys kept in journals, do not change
    const read = jsonSchemaText(output, "input");
    if (json.replace(NO_EXTRA_KEYS, "") !== read.replace(NO_EXTRA_KEYS, "")) json = read;
    schemaText.set(output, json);
  }
  if (!isStringOutput(output)) text += `\n\nThe result is JSON matching this schema: ${json}`;
  // a text output's description or limits (`z.string().describe("one word")`, `.max(280)`) were never shown;
  // a plain z.string() is written as before (its prompts, and so the request keys kept in journals, do not change)
  else if (json !== PLAIN_TEXT) text += `\n\nThe result is plain text (not JSON, not quoted) matching this schema: ${json}`;
  return text;
}

export function userMessage(inputs: Record<string, unknown>): string {
  return (
    Object.entries(inputs)
      // a left-out input (undefined) has no block, as the journal keeps the inputs (engine/ai-call.ts asKept)
      .filter(([, value]) => value !== undefined)
      .map(([key, value]) => block(key, asText(value)))
      .join("\n\n")
  );
}

/** The assistant message an earlier turn's answer is shown as. */
export const answerMessage = (value: unknown): string => block("result", asText(value));

export function baseMessages(
  name: string,
  description: string,
  output: z.ZodType,
  inputs: Record<string, unknown>,
  history: readonly { inputs: Record<string, unknown>; value: unknown; steps?: readonly Message[] }[] = [],
): Message[] {
  const messages: Message[] = [{ role: "system", content: systemMessage(name, description, output) }];
  for (const turn of history) {
    messages.push({ role: "user", content: userMessage(turn.inputs) });
    // a worked example's recorded steps (tool calls and their results) come between its input and its answer
    if (turn.steps) for (const step of turn.steps) messages.push({ ...step });
    messages.push({ role: "assistant", content: answerMessage(turn.value) });
  }
  messages.push({ role: "user", content: userMessage(inputs) });
  return messages;
}

// in any case: models sometimes write `<RESULT>`; and `</result >`, white space before its `>` (reply-text.ts finds
// them the same way, and inBlock escapes such a tag in an input)
const RESULT = /<result>\s*([\s\S]*?)\s*<\/result\s*>/i;
const OPEN = "<result>";
const CLOSE = "</result>";
/** A closing tag, as RESULT reads one. */
const LONE_CLOSE = /<\/result\s*>/i;
const FENCE = /^```[A-Za-z]*\s*([\s\S]*?)\s*```$/;

/** JSON text as a model may fence it (```json … ```), without the fence; other text as it is. */
export const unfenced = (text: string): string => text.replace(FENCE, "$1");

/**
 * The body of the reply's first `<result>` block, trimmed, and whether the
 * block was closed; undefined when there is none. A reply that closes the
 * block without opening it (`Paris\n</result>`) holds it before the tag. A block never closed (the
 * reply hit its length limit, or the model left the tag out) runs to the
 * reply's end, without a piece of `</result>` there: the tags are never part
 * of the answer (and the answer is what its streamed text showed: see
 * reply-text.ts).
 */
function resultBlock(text: string): { body: string; closed: boolean } | undefined {
  const match = RESULT.exec(text);
  if (match) return { body: match[1]!, closed: true };
  const open = asciiLower(text).indexOf(OPEN);
  if (open < 0) {
    // the closing tag without the opening one (the model left it out): the answer is what comes before it
    const close = LONE_CLOSE.exec(text);
    return close ? { body: text.slice(0, close.index).trim(), closed: true } : undefined;
  }
  const body = text.slice(open + OPEN.length).trimEnd();
  return { body: body.slice(0, body.length - partialTag(body, CLOSE)).trim(), closed: false };
}

/** Why a reply cut off by its length limit inside its `<result>` block is not read (the model is told it, and so is the caller). */
const CUT_OFF_ANSWER = "the reply was cut off at its token limit before </result>: keep the answer shorter, or raise maxTokens";
/** Why a model's own refusal is not read as the answer (a `<result>` block it closed is). */
const REFUSED = "the model refused to answer (its reply is a refusal, not a value of the output)";

/** Why a reply a refusal or a content filter stopped inside its `<result>` block is not read (Claude's classifiers stop mid-text). */
const STOPPED_ANSWER = "the reply was stopped by a refusal or a content filter before </result>: what is there is only the answer's start";
/** Why a reply a filter stopped with no `<result>` block is not read as a plain answer. */
const STOPPED_PLAIN = "the reply was stopped by a refusal or a content filter before its end: what is there is only the answer's start";
/** Why a reply cut off by its length limit with no `<result>` block is not read as a plain answer. */
const CUT_OFF_PLAIN = "the reply was cut off at its token limit before its answer ended: keep the answer shorter, or raise maxTokens";

/** Why a reply that is all reasoning (a `<think>` block never closed) is not read. */
const ONLY_THINKING = "the reply holds only the model's reasoning (its <think> block never closed), no answer";
/** Why a reply cut off by its length limit while the model reasoned is not read. */
const CUT_OFF_THINKING = "the reply was cut off at its token limit while the model was still reasoning (<think>): raise maxTokens";

/** `thrown`: the output schema threw while reading the reply (its own fault: a refinement's bug, an async one), not the model's. */
export type ReadResult = { ok: true; value: unknown } | { ok: false; detail: string; thrown?: unknown };

/**
 * Reads the answer from a reply: the `<result>` block (JSON for non-string
 * outputs), checked with zod. A string output with no block is the whole
 * reply, trimmed (models often answer plainly).
 *
 * A block never closed is read to the reply's end (the model left the tag
 * out), unless `finishReason` says the reply was cut off by its length
 * limit: then what is there is only the answer's start (`12` of `12345`,
 * which may read as a valid value all the same) and the reply is unreadable;
 * so is a reply cut off with no block at all (a plain answer cut short), and
 * a reply a classifier or content filter stopped before a block closed, or
 * with no block (`content_filter`: Claude's `refusal` stop can cut a plain
 * answer mid-sentence). A model's own refusal (`refusal`) is no answer either,
 * unless a `<result>` block in it closed.
 *
 * A reasoning block the reply opens with (`<think>…</think>`, see
 * thinking.ts) is not the reply: the answer is read after it, and a reply
 * that is only reasoning (closed or not) has none.
 *
 * A non-string output's empty answer is no value: its default, where the
 * schema has one (or undefined, `.optional()`).
 */
export function readOutput(text: string, output: z.ZodType, finishReason: FinishReason = "stop"): ReadResult {
  // the model's reasoning (`<think>…</think>`) is not the reply: a block or a plain answer it drafted is not the answer
  const thought = leadingThought(text);
  if (thought !== undefined) {
    if (!thought.closed) return { ok: false, detail: finishReason === "length" ? CUT_OFF_THINKING : ONLY_THINKING };
    text = text.slice(thought.end);
    if (text.trim() === "") return { ok: false, detail: finishReason === "length" ? CUT_OFF_PLAIN : "the reply holds only the model's reasoning, no answer after it" };
  }
  const block = resultBlock(text);
  // cut off before a block closed: what is there is the answer's start only (a plain answer's too)
  if (finishReason === "length" && block?.closed !== true) return { ok: false, detail: block ? CUT_OFF_ANSWER : CUT_OFF_PLAIN };
  // stopped by a filter before a block closed: its start only, a plain answer's too
  if (finishReason === "content_filter" && block?.closed !== true) return { ok: false, detail: block ? STOPPED_ANSWER : STOPPED_PLAIN };
  // a model's own refusal (OpenAI's `refusal`) declines to answer: its words are no value of the output (a summary that
  // reads "I'm sorry, I can't help with that" resolved as if it were one, and the turn ended done)
  if (finishReason === "refusal" && block?.closed !== true) return { ok: false, detail: REFUSED };
  const body = block?.body ?? text.trim();
  if (isStringOutput(output)) {
    const checked = readWith(output, body);
    if ("thrown" in checked) return threw(checked.thrown);
    return checked.success ? { ok: true, value: checked.data } : { ok: false, detail: checked.error.issues[0]?.message ?? "invalid" };
  }
  if (body === "") {
    // no value written: an output with a default (or .optional()) takes none, as the schema shown to the model says
    const none = readWith(output, undefined);
    if ("thrown" in none) return threw(none.thrown);
    return none.success ? { ok: true, value: none.data } : { ok: false, detail: "the reply is empty" };
  }
  const candidates: unknown[] = [];
  const json = unfenced(body);
  let notJson: string | undefined;
  try {
    // models often fence JSON (```json … ```) even inside the block
    candidates.push(JSON.parse(json));
  } catch (e) {
    // not JSON: an enum or a bare word may still be the answer
    notJson = (e as Error).message;
  }
  candidates.push(body);
  // what is said is the first reading's issues: the JSON's where the reply's JSON parsed (a refinement's own message
  // about the value the model wrote, not that the bare text is a string), else the bare text's
  let detail: string | undefined;
  for (const candidate of candidates) {
    const checked = readWith(output, candidate);
    if ("thrown" in checked) return threw(checked.thrown);
    if (checked.success) return { ok: true, value: checked.data };
    detail ??= issuesText(checked.error, "result");
  }
  // an object or a list whose JSON did not parse (a trailing comma, a comment): say so, not that the text is a string
  if (notJson !== undefined && /^[[{]/.test(json)) detail = `not valid JSON: ${notJson}`;
  return { ok: false, detail: detail ?? "no <result> block" };
}

const threw = (thrown: unknown): ReadResult => ({ ok: false, detail: describeError(thrown), thrown });

/** What the model is told when its reply could not be read (it is asked again once). */
export const unreadableReplyMessage = (detail: string): string =>
  `Your reply could not be read (${detail}). Reply in exactly this form:\n${block("result", "...")}`;
