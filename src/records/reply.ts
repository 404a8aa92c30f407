/**
 * A `reply` record's `response` read back as the model's reply it keeps (lm/types.ts's `LMResponse`). The record's
 * schema takes any `response`: a reader of a conversation never reads it. A resumed run's journal does, and gives it
 * to the tool loop as the reply to the request it answered: one that is no reply (a record edited by hand, a bad
 * restore, another writer's) failed the turn for good with a bare TypeError, or was misread (its tool calls run, its
 * usage NaN). It is refused instead (`store-corrupt`, see engine/journal.ts). Taken: every reply the engine keeps,
 * which is one `checkResponse` (lm/check-response.ts) took, as its JSON reads back; other keys are kept as they are.
 */
import { z } from "zod";
import { FINISH_REASONS } from "../lm/types.js";
import { issuesText } from "../schema-read.js";

const recordedReply = z.looseObject({
  text: z.string(),
  // (a call's input may be left out: JSON drops an input of undefined, which the live reply could hold)
  toolCalls: z.array(z.looseObject({ id: z.string(), name: z.string() })),
  finishReason: z.enum(FINISH_REASONS),
  usage: z.looseObject({ inputTokens: z.number(), outputTokens: z.number() }),
});

const FINISHED: ReadonlySet<unknown> = new Set(FINISH_REASONS);
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isCall = (v: unknown): boolean => isObj(v) && typeof v.id === "string" && typeof v.name === "string";

/**
 * The schema's rules written out, for the replies a resumed turn reads (a thousand steps, a thousand replies): it only
 * says yes to a reply the schema takes; anything else goes to the schema, which decides and words the error.
 */
function isReply(r: unknown): boolean {
  if (!isObj(r) || typeof r.text !== "string" || !FINISHED.has(r.finishReason)) return false;
  const { toolCalls, usage } = r;
  if (!Array.isArray(toolCalls) || !isObj(usage) || !Number.isFinite(usage.inputTokens) || !Number.isFinite(usage.outputTokens)) return false;
  for (let i = 0; i < toolCalls.length; i++) if (!isCall(toolCalls[i])) return false; // (a hole too: the schema asks each index)
  return true;
}

/**
 * Why a reply record's `response` is no model reply, or undefined when it is one.
 *
 * @example
 * replyProblem({ text: "Hi", toolCalls: [], finishReason: "stop", usage: { inputTokens: 3, outputTokens: 1 } }); // undefined
 * replyProblem({ text: 5, toolCalls: [], finishReason: "stop", usage: { inputTokens: 3, outputTokens: 1 } });
 * // "text: Invalid input: expected string, received number"
 */
export function replyProblem(response: unknown): string | undefined {
  if (isReply(response)) return undefined;
  const read = recordedReply.safeParse(response);
  return read.success ? undefined : issuesText(read.error, "response");
}
