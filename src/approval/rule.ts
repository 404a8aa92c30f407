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
  const problem = approveProblem(rule);
  if (problem !== undefined) throw new FunctaiError("settings-invalid", problem);
  return (rule as readonly string[]).some((entry) => matchesEntry(entry, subject));
}

/**
 * What is wrong with `approve` as a rule, or `undefined` when it can be read (`configure`, `using`, a call's options
 * and `asksApproval` all ask it). It fails closed: a misspelt rule ("change", "/refund") would ask nobody about
 * anything, and a list holding `"changes"` or `"all"` (`["changes", "find_order"]`) would ask about a tool of that
 * name and nothing else, the refund run with nobody asked: a list names tools and paths only.
 */
export function approveProblem(approve: unknown): string | undefined {
  if (approve === undefined || approve === null || typeof approve === "function" || approve === "changes" || approve === "all") return undefined;
  if (Array.isArray(approve)) {
    const word = approve.find((entry) => entry === "changes" || entry === "all");
    if (word !== undefined)
      return `approve ${describeValue(approve, 200)} holds "${word}", a rule of its own, not a tool's name: a list names tools and paths only, and would ask about a tool named "${word}" and nothing else. Give approve: "${word}", or a function that asks what you mean (a tool of that name is named by its path: "desk/${word}")`;
    if (Array.from(approve).every(isRuleEntry)) return undefined; // (every skips a hole)
  }
  return `approve must be a function, "changes", "all", a list of tool names or paths, or null; not ${describeValue(approve, 200)}`;
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

/** The tool result the model sees when a plugin blocks a call. */
export const blockText = (plugin: string, reason: string): string => `The call was blocked (${plugin}). Reason: ${reason}`;

/**
 * Whether a tool result is what a run tells its model of a call refused before
 * it ran (`refusalText` or `blockText`): a recorded request keeps nothing else
 * of the refusal, since the engine sends either as a plain result.
 */
export const isRefusalText = (content: string): boolean =>
  content === REFUSAL || content.startsWith(`${REFUSAL} Reason: `) || /^The call was blocked \([\s\S]*\)\. Reason: /.test(content);
