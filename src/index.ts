export * from "./errors.js";
export type { LanguageModel, LMRequest, LMResponse, Message, ToolCall, ToolSpec, Usage, GenerateOptions, FinishReason } from "./lm/types.js";
export { LM_SPEC } from "./lm/types.js";
export type { Store } from "./store/types.js";
export type * from "./records/types.js";
export type { Approval, ApprovalAnswer, ApproveFunction, ApprovalRule, ApproveSetting } from "./approval/types.js";
export { asksApproval, refusalText } from "./approval/rule.js";
