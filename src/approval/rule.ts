import { FunctaiError, describeValue } from "../errors.js";
import type { Effects } from "../records/types.js";
import { NAME } from "../tools/name.js";
import type { ApproveSetting } from "./types.js";

/** What a rule is checked against: the tool's name, its approval path and its declared effects. */
export interface RuleSubject {
  name: string;
  path: string;
  effects?: Effects | null | undefined;
}

/** A tool that says nothing counts as changing things: forgetting to declare is safe. */
export const changesThings = (effects: Effects | null | undefined): boolean => effects !== "reads";

const matchesEntry = (entry: string, { name, path }: RuleSubject): boolean => entry === name || entry === path || path.endsWith(`/${entry}`);

/**
 * Whether `rule` asks a person (or the approve function) about a call.
 * A function asks what `"changes"` asks; `null` or `undefined` asks nothing;
 * a list names tools, approval paths (`support/answer/refund`) or path
 * endings (`answer/refund`).
 *
 * @example
 * asksApproval("changes", { name: "refund", path: "desk/refund", effects: "changes" }); // true
 * asksApproval(["answer/refund"], { name: "refund", path: "support/answer/refund" });   // true
 */
export function asksApproval(rule: ApproveSetting | "function" | undefined, subject: RuleSubject): boolean {
  checkSubject(subject);
  if (rule === null || rule === undefined) return false;
  if (typeof rule === "function" || rule === "function" || rule === "changes") return changesThings(subject.effects);
  if (rule === "all") return true;
  // a rule that cannot be read is refused, never read as asking nobody (a host would show a refund as free to run)
  if (!Array.isArray(rule) || !rule.every(isRuleEntry))
    throw new FunctaiError(
      "settings-invalid",
      `approve must be a function, "changes", "all", a list of tool names or paths, or null; not ${describeValue(rule, 200)}`,
    );
  return rule.some((entry: string) => matchesEntry(entry, subject));
}

/**
 * A subject a rule can be read against: a name and a path that are text, and
 * effects a tool can declare. A host asking about a tool it described wrongly
 * (no path, a misspelt `"read"`) is told so, never given a TypeError from
 * inside the matching, nor an answer that depends on which rule it asked:
 * `["refund"]` answered while `["desk/refund"]` threw.
 */
function checkSubject(subject: unknown): void {
  const { name, path, effects } = (typeof subject === "object" && subject !== null ? subject : {}) as Partial<Record<keyof RuleSubject, unknown>>;
  if (
    typeof name !== "string" ||
    typeof path !== "string" ||
    (effects !== undefined && effects !== null && effects !== "reads" && effects !== "changes")
  )
    throw new FunctaiError(
      "input-invalid",
      `asksApproval takes the call as { name, path, effects? } (name and path text, effects "reads", "changes" or null), not ${describeValue(subject, 200)}`,
    );
}

/** A list entry a call can match: a name, or names joined by `/` (a path or its ending); `"/refund"` or `" refund"` match no call ever. */
const isRuleEntry = (entry: unknown): boolean => typeof entry === "string" && entry.split("/").every((name) => NAME.test(name));

const REFUSAL = "The person did not allow this call.";

/**
 * The tool result the model sees when a person refuses a call.
 *
 * @example
 * refusalText();                // "The person did not allow this call."
 * refusalText("not that file"); // "The person did not allow this call. Reason: not that file"
 */
export const refusalText = (reason?: string | null): string =>
  reason === undefined || reason === null || reason === "" ? REFUSAL : `${REFUSAL} Reason: ${reason}`;
