import type { Approval } from "../approval/types.js";
import type { Effects } from "../records/types.js";
import type { FinishReason, Usage } from "../lm/types.js";

/**
 * The turn actor's states, as `state` events name them.
 *
 * @example
 * for await (const e of desk.stream("Refund A-1042.")) {
 *   if (e.type === "state") { const state: MachineState = e.state; console.log(state); }
 * }
 */
export type MachineState = "running" | "awaitingApproval" | "interrupted" | "done" | "failed" | "abandoned" | "stopped";

export interface EventBase {
  /** The turn's id. */
  turn: string;
  /** 1, 2, … in the order this stream showed them. */
  seq: number;
  /** ISO time. */
  at: string;
  /** The call the event comes from: `support/answer`. */
  path: string;
}

/**
 * Every event a turn emits: one discriminated union, used by the actor's `emit` and the stream alike (`R`: the `done` event's result).
 *
 * @example
 * const describe = (body: TurnEventBody): string =>
 *   body.type === "tool_call" ? `calls ${body.name}` : body.type === "done" ? "done" : body.type;
 */
export type TurnEventBody<R = unknown> =
  | { type: "started"; name: string; input: Record<string, unknown>; conversation?: string }
  | { type: "state"; state: MachineState }
  | { type: "request"; site: string; step: number }
  | { type: "text"; site: string; delta: string }
  | { type: "reply"; site: string; step: number; text: string; toolCalls: { id: string; name: string; input: unknown }[]; finishReason: FinishReason; usage: Usage }
  | { type: "tool_call"; site: string; invocation: number; name: string; input: unknown; effects: Effects | null }
  | { type: "tool_result"; site: string; invocation: number; name: string; output?: unknown; error?: string; shown?: unknown[] }
  | { type: "approval"; approval: Approval }
  | { type: "approved"; approval: Approval; verdict: "yes" | "no"; by: string | null; reason: string | null }
  | { type: "waiting"; approvals: Approval[] }
  | { type: "interrupted"; reason: string }
  | { type: "done"; result: R; usage: Usage }
  | { type: "failed"; error: { code: string | null; message: string } };

/**
 * Everything a turn tells as it happens: one union discriminated by `type`, each with `turn`, `seq`, `at`, `path`.
 *
 * @example
 * for await (const e of desk.stream("Refund A-1042.")) {
 *   if (e.type === "text") process.stdout.write(e.delta);
 *   if (e.type === "tool_call") console.log(e.path);
 * }
 */
export type TurnEvent<R = unknown> = EventBase & TurnEventBody<R>;
/**
 * The `type`s of `TurnEvent`: `started`, `text`, `tool_call`, `approval`, `done`, …
 *
 * @example
 * const shown: TurnEventType[] = ["text", "approval", "done"];
 * for await (const e of desk.stream("Hi")) if (shown.includes(e.type)) console.log(e);
 */
export type TurnEventType = TurnEvent["type"];
