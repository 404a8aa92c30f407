/**
 * What a model's `generate` gave back, checked before the engine reads or
 * records it: a custom `LanguageModel` (or a broken provider) that resolves
 * to something else, or throws what is not a FunctaiError, fails the turn
 * with a `provider-…` FunctaiError, never a raw TypeError.
 */
import { FunctaiError, ProviderError, describeError } from "../errors.js";
import type { LanguageModel, LMResponse } from "./types.js";

const shown = (x: unknown): string => (x === null ? "null" : Array.isArray(x) ? "an array" : typeof x);

function whyNot(r: unknown): string | undefined {
  if (typeof r !== "object" || r === null) return `the reply is ${shown(r)}, not an object`;
  const { text, toolCalls, usage } = r as Partial<Record<keyof LMResponse, unknown>>;
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
  try {
    JSON.stringify(r);
  } catch (e) {
    return `it is not JSON (${describeError(e)})`;
  }
  return undefined;
}

/** The reply, when it is an `LMResponse` that can be kept; else a `provider-response` error. */
export function checkResponse(lm: LanguageModel, response: unknown): LMResponse {
  const problem = whyNot(response);
  if (problem === undefined) return response as LMResponse;
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
  if (e instanceof FunctaiError) return e;
  return new ProviderError("provider-response", `${lm.provider} model ${lm.model} failed: ${describeError(e)}`, { provider: lm.provider, cause: e });
}
