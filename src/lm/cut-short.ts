/**
 * A reply that stopped before its end (its length limit, or a refusal or
 * content filter cutting in) may have cut its last tool call short.
 */
import type { FinishReason, ToolCall } from "./types.js";

/** Whether a reply stopped before its end: its last part may be cut short. */
export const stoppedEarly = (reason: FinishReason): boolean => reason === "length" || reason === "content_filter";

/**
 * A tool call the reply's cut may have cut short, as one whose input could
 * not be read. Its input may be valid JSON all the same (Anthropic's whole
 * message holds what was parsed before the cut; a compatible server may
 * close the JSON itself), the rest of it missing: run, it would act on half
 * an input. So it never runs, and the model is told why.
 */
export function cutShort(call: ToolCall): ToolCall {
  if (call.inputError !== undefined) return call;
  const raw = typeof call.input === "string" ? call.input : (JSON.stringify(call.input) ?? "");
  return { ...call, input: raw, inputError: "The reply was cut off before this call's input was complete (its length limit, or a filter)." };
}

/**
 * The last call of a reply that stopped early, as the provider's own call
 * (a native one, or one in a model's call tokens) gave it: arguments that are
 * no JSON there are no JSON because of the cut. So the model is told it was
 * cut off, not that it wrote them wrong (told "not valid JSON", it wrote the
 * same long call again, to be cut again).
 */
export function cutShortArguments(call: ToolCall): ToolCall {
  const { inputError: _cut, ...given } = call;
  return cutShort(given);
}
