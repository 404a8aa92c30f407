/**
 * What a model's `generate` gave back, checked before the engine reads or
 * records it: a custom `LanguageModel` (or a broken provider) that resolves
 * to something else, or throws what is not a FunctaiError, fails the turn
 * with a `provider-…` FunctaiError, never a raw TypeError.
 */
import { FunctaiError, ProviderError, describeError, isInstance } from "../errors.js";
import { cutShort, stoppedEarly } from "./cut-short.js";
import { FINISH_REASONS, type LanguageModel, type LMResponse } from "./types.js";

const shown = (x: unknown): string => (x === null ? "null" : Array.isArray(x) ? "an array" : typeof x);

/**
 * Why `r` is not shaped as an `LMResponse` (its text, tool calls, usage and
 * finish reason), or undefined when it is. Asked of a live reply (see
 * whyNot) and of a reply a `reply` record keeps, before a resumed turn
 * replays it (engine/journal.ts): one that is no reply (a record edited by
 * hand, a bad restore) failed the turn for good with a bare TypeError, or was
 * misread.
 */
export function replyShapeProblem(r: unknown): string | undefined {
  if (typeof r !== "object" || r === null) return `the reply is ${shown(r)}, not an object`;
  const { text, toolCalls, usage, finishReason } = r as Partial<Record<keyof LMResponse, unknown>>;
  if (typeof text !== "string") return `its text is ${shown(text)}, not a string`;
  if (!Array.isArray(toolCalls)) return `its toolCalls is ${shown(toolCalls)}, not an array`;
  for (let i = 0; i < toolCalls.length; i++) {
    const call = toolCalls[i] as { id?: unknown; name?: unknown } | null;
    if (typeof call !== "object" || call === null || typeof call.id !== "string" || typeof call.name !== "string")
      return `its tool call ${i + 1} has no string id and name`;
  }
  const u = usage as { inputTokens?: unknown; outputTokens?: unknown } | null | undefined;
  if (typeof u !== "object" || u === null || !Number.isFinite(u.inputTokens) || !Number.isFinite(u.outputTokens))
    return "its usage has no inputTokens and outputTokens";
  // a reason functai does not have (a wrapped API's own, "max_tokens"; none) cannot say whether the reply was cut:
  // taken as a normal end, a cut call whose half input reads as valid ran (a refund of 19 for 1999), and a cut text
  // was the whole answer
  if (!FINISH_REASONS.includes(finishReason as never))
    return `its finishReason is ${typeof finishReason === "string" ? JSON.stringify(finishReason.slice(0, 40)) : shown(finishReason)}, not one of ${FINISH_REASONS.map((f) => JSON.stringify(f)).join(", ")} (map the API's own reason to one: "length" for a reply cut at its token limit)`;
  return undefined;
}

function whyNot(r: unknown): string | undefined {
  const shape = replyShapeProblem(r);
  if (shape !== undefined) return shape;
  if (plainData(r)) return undefined; // (what it cannot tell, JSON.stringify does)
  try {
    JSON.stringify(r);
  } catch (e) {
    return `it is not JSON (${describeError(e)})`;
  }
  return undefined;
}

/**
 * The reply, when it is an `LMResponse` that can be kept; else a
 * `provider-response` error. A reply that stopped before its end (its
 * length limit, a filter) has its last tool call marked cut short, so it
 * never runs (see cut-short.ts): the built-in providers mark it themselves,
 * a model of your own may not, and its half input may read as valid.
 */
export function checkResponse(lm: LanguageModel, response: unknown): LMResponse {
  const problem = whyNot(response);
  if (problem === undefined) {
    const reply = response as LMResponse;
    const last = reply.toolCalls.at(-1);
    if (last === undefined || last.inputError !== undefined || !stoppedEarly(reply.finishReason)) return reply;
    return { ...reply, toolCalls: [...reply.toolCalls.slice(0, -1), cutShort(last)] };
  }
  throw new ProviderError("provider-response", `${lm.provider} model ${lm.model} gave back a reply that cannot be used: ${problem}.`, {
    provider: lm.provider,
  });
}

/**
 * What a model's `generate` threw, as the turn reports it: FunctaiErrors
 * (the providers' own) as they are; anything else (a plain Error, a string)
 * as `provider-response`, the thrown value kept as `cause`.
 */
export function modelFailure(lm: LanguageModel, e: unknown): unknown {
  if (isInstance(e, FunctaiError)) return e; // (a model may throw a Proxy that cannot be asked what it is)
  return new ProviderError("provider-response", `${lm.provider} model ${lm.model} failed: ${describeError(e)}`, { provider: lm.provider, cause: e });
}

/** Deeper than this, or more values than that, `plainData` cannot tell (JSON.stringify then says whether there is a cycle). */
const MAX_DEPTH = 64;
const MAX_VALUES = 100_000;
/** Values the running walk may still look at (a shared object is looked at each time it is met, as JSON.stringify writes it each time). */
let left = 0;

/**
 * True when JSON.stringify surely writes `value` without throwing, told by a
 * walk over plain data: strings, numbers, booleans, null, what JSON leaves
 * out (undefined, functions, symbols), and plain objects and arrays without
 * `toJSON`, at most MAX_DEPTH deep and MAX_VALUES in all. False when it
 * cannot tell (a bigint, a Date or other object, more nesting or values, a
 * getter that throws): then the caller asks JSON.stringify itself, which
 * reads the value again. A reply is plain data, and this walk costs a
 * fraction of making its text.
 */
function plainData(value: unknown): boolean {
  left = MAX_VALUES;
  try {
    return walk(value, 0);
  } catch {
    return false;
  }
}

function walk(value: unknown, depth: number): boolean {
  if (typeof value !== "object" || value === null) return typeof value !== "bigint";
  if (depth >= MAX_DEPTH || --left < 0) return false;
  if (typeof (value as { toJSON?: unknown }).toJSON === "function") return false;
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) return false;
    for (let i = 0; i < value.length; i++) if (!walk(value[i], depth + 1)) return false;
    return true;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  for (const key in value) {
    if (Object.hasOwn(value, key) && !walk((value as Record<string, unknown>)[key], depth + 1)) return false;
  }
  return true;
}
