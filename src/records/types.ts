/**
 * Conversation records, FunctAI conversation format 1. Every record has
 * `functai_conversation: 1`, `kind`, `at` (ISO time) and `seq` (given by the
 * store, from 1). Readers skip kinds and keys they do not know.
 */

export const FORMAT = 1 as const;

/** What a tool does to the world: `"reads"` (only looks) or `"changes"` (writes, sends, pays). */
export type Effects = "reads" | "changes";
/** A turn's state as the records tell it (`readConversation`). */
export type TurnState = "running" | "waiting" | "interrupted" | "done" | "failed" | "abandoned" | "stopped";
/** The states a turn ends in, written by its `ended` record. */
export type EndedState = "done" | "failed" | "stopped" | "abandoned";

interface Base {
  functai_conversation: 1;
  seq: number;
  at: string;
}

/** Names the AI function or program whose turns a conversation holds. */
export interface ProgramRecord extends Base {
  kind: "program";
  version: string;
  name: string;
  /** Other implementations write other kinds (FunctAI Python: `"module"`). */
  program_kind?: "ai" | "program" | (string & {});
  interface?: unknown;
}
/** A turn begins: its input, its parent turn and the settings it runs with. */
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
/** A running turn's lease, renewed while its process lives; one that ran out makes the turn interrupted. */
export interface LeaseRecord extends Base {
  kind: "lease";
  turn: string;
  holder: string;
  until: string;
  attempt: number;
}
/** A model reply, kept so that a resumed turn never asks (and pays) for it again. */
export interface ReplyRecord extends Base {
  kind: "reply";
  turn: string;
  key: string;
  site?: string;
  response: unknown;
  attempt?: number;
}
/** A tool call started or done: a changing tool started but not done may have run (unfinished). */
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
/** One tool call a waiting turn asks a person about. */
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
/** A turn waits, saved, for a person's answers to its approvals. */
export interface WaitingRecord extends Base {
  kind: "waiting";
  turn: string;
  approvals: WaitingApproval[];
  attempt?: number;
}
/** A person's answer to one approval: yes, or no with a reason the model sees. */
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
/** A turn ended: done with its result, failed, stopped or abandoned. */
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
/** Asks a running turn to stop (it ends `stopped`). */
export interface StopRecord extends Base {
  kind: "stop";
  turn: string;
}
/** Moves the conversation's head: where the next turn goes. */
export interface HeadRecord extends Base {
  kind: "head";
  turn: string;
}
/** The turn actor's persisted XState snapshot, kept with the turn's records. */
export interface SnapshotRecord extends Base {
  kind: "snapshot";
  turn: string;
  snapshot: unknown;
}

/** Every record kind of conversation format 1 this package writes and reads. */
/** Ours: a small JSON value a plugin kept in its turn's records (`keep`), shown to the turn's later runs. */
export interface PluginRecord extends Base {
  kind: "plugin";
  turn: string;
  plugin: string;
  data: unknown;
  attempt?: number;
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
  | SnapshotRecord
  | PluginRecord;

/** What a store holds: known records, or records of kinds this version does not know (skipped by readers). */
export type ConversationRecord = KnownRecord | (Base & { kind: string; [key: string]: unknown });

/** A record before the store gives it its `seq`. */
export type NewRecord<R extends KnownRecord = KnownRecord> = R extends KnownRecord ? Omit<R, "seq"> : never;
