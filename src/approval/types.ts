import type { Effects } from "../records/types.js";

/**
 * A tool call a person (or an approve function) is asked about.
 *
 * @example
 * const approve = (call: Approval) => call.name !== "refund" || "Refunds need a manager.";
 */
export interface Approval {
  /** Stable across processes: the call's site and invocation (and plugin, when a plugin asks). */
  id: string;
  name: string;
  input: unknown;
  /** `null` when the tool did not say (counted as "changes"). */
  effects: Effects | null;
  /** Call names from the outermost to the tool: `support/answer/refund`. */
  path: string;
  /** The tool call's number among its calling call's tool calls, 1, 2, … across all steps. */
  invocation: number;
  /** Where the calling call sits in its tree: `support#1/answer#1`. */
  site: string;
  /** Set when a plugin (other than the built-in approval) asks. */
  plugin?: string;
  /** A plugin's own question to the person. */
  question?: string;
}

/**
 * An answer: `true` yes, `false` no, a string no with that reason.
 *
 * @example
 * const answerOf = (call: Approval): ApprovalAnswer =>
 *   call.name === "refund" ? "Refunds need a manager." : true; // a string: no, with this reason
 */
export type ApprovalAnswer = boolean | string;

/**
 * An `approve` function: asked at once about each changing tool call; true, false, or a reason to refuse.
 *
 * @example
 * const manager: ApproveFunction = (call) => (call.input as { amount: number }).amount <= 20 || "Over 20.00 needs a manager.";
 */
export type ApproveFunction = (approval: Approval) => ApprovalAnswer | Promise<ApprovalAnswer>;

/**
 * A rule answered later by a person: `"changes"`, `"all"`, or tool names / paths / path endings.
 *
 * @example
 * const rule: ApprovalRule = ["refund", "support/answer/sendEmail"]; // tool names, paths or path endings
 * const s = desk.using({ approve: rule }).stream("Refund A-1042.");
 */
export type ApprovalRule = "changes" | "all" | readonly string[];

/**
 * The `approve` setting: a function, a rule (`"changes"`, `"all"`, tool names or paths), or `null` (ask nobody).
 *
 * @example
 * configure({ approve: "changes" });
 */
export type ApproveSetting = ApproveFunction | ApprovalRule | null;
