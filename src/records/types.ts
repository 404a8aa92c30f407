/**
 * Conversation records, FunctAI conversation format 1. Every record has
 * `functai_conversation: 1`, `kind`, `at` (ISO time) and `seq` (given by the
 * store, from 1). Readers skip kinds and keys they do not know.
 */

export const FORMAT = 1 as const;

export type Effects = "reads" | "changes";
export type TurnState = "running" | "waiting" | "interrupted" | "done" | "failed" | "abandoned" | "stopped";
export type EndedState = "done" | "failed" | "stopped" | "abandoned";

interface Base {
  functai_conversation: 1;
  seq: number;
  at: string;
}

export interface ProgramRecord extends Base {
  kind: "program";
  version: string;
  name: string;
  /** Other implementations write other kinds (FunctAI Python: `"module"`). */
  program_kind?: "ai" | "program" | (string & {});
  interface?: unknown;
}
export interface TurnRecord extends Base {
  kind: "turn";
  turn: string;
  parent: string | null;
  program: string;
  inputs: Record<string, unknown>;
  request_id?: string;
  /** Set when `evaluate` or an optimizer made the call: the run it belongs to. */
  caller?: TurnCaller;
}
/** Who made a turn's call, when it was not a person's own: an evaluation run or an optimization. */
export type TurnCaller = { evaluation: string } | { optimization: string };
export interface LeaseRecord extends Base {
  kind: "lease";
  turn: string;
  holder: string;
  until: string;
  attempt: number;
}
export interface ReplyRecord extends Base {
  kind: "reply";
  turn: string;
  key: string;
  site?: string;
  response: unknown;
  attempt?: number;
}
export interface ToolRecord extends Base {
  kind: "tool";
  turn: string;
  site: string;
  invocation: number;
  id?: string;
  name: string;
  state: "started" | "done" | "given" | "rerun";
  input?: unknown;
  effects?: Effects | null;
  output?: unknown;
  error?: string;
  path?: string;
  attempt?: number;
}
export interface WaitingApproval {
  site: string;
  invocation: number;
  path: string;
  name: string;
  input?: unknown;
  effects?: Effects | null;
  id?: string;
  /** The plugin that asked; absent, `null` and `"approval"` all mean the built-in approval. */
  plugin?: string | null;
  question?: string;
  [key: string]: unknown;
}
export interface WaitingRecord extends Base {
  kind: "waiting";
  turn: string;
  approvals: WaitingApproval[];
  attempt?: number;
}
export interface ApprovalRecord extends Base {
  kind: "approval";
  turn: string;
  site: string;
  invocation: number;
  plugin?: string | null;
  path: string;
  verdict: "yes" | "no";
  by: string | null;
  reason: string | null;
}
export interface EndedRecord extends Base {
  kind: "ended";
  turn: string;
  state: EndedState;
  outputs?: Record<string, unknown>;
  value?: unknown;
  error?: unknown;
  usage?: { input_tokens: number; output_tokens: number };
  attempt?: number;
}
export interface StopRecord extends Base {
  kind: "stop";
  turn: string;
}
export interface HeadRecord extends Base {
  kind: "head";
  turn: string;
}
export interface SnapshotRecord extends Base {
  kind: "snapshot";
  turn: string;
  snapshot: unknown;
}

export type KnownRecord =
  | ProgramRecord
  | TurnRecord
  | LeaseRecord
  | ReplyRecord
  | ToolRecord
  | WaitingRecord
  | ApprovalRecord
  | EndedRecord
  | StopRecord
  | HeadRecord
  | SnapshotRecord;

/** What a store holds: known records, or records of kinds this version does not know (skipped by readers). */
export type ConversationRecord = KnownRecord | (Base & { kind: string; [key: string]: unknown });

/** A record before the store gives it its `seq`. */
export type NewRecord<R extends KnownRecord = KnownRecord> = R extends KnownRecord ? Omit<R, "seq"> : never;
