/**
 * Conversation records, FunctAI conversation format 1. Every record has
 * `functai_conversation: 1`, `kind`, `at` (ISO time) and `seq` (given by the
 * store, from 1). Readers skip kinds and keys they do not know.
 */

/**
 * The conversation format this package writes: `functai_conversation: 1` on every record.
 *
 * @example
 * const records = await store.read("sam");
 * records.every((r) => r.functai_conversation === FORMAT); // true
 */
export const FORMAT = 1 as const;

/**
 * What a tool does to the world: `"reads"` (only looks) or `"changes"` (writes, sends, pays).
 *
 * @example
 * const effects: Effects = "reads";
 * const lookupOrder = tool("lookupOrder", { description: "Find an order.", input: { id: z.string() }, effects }, ({ id }) => ORDERS[id]);
 */
export type Effects = "reads" | "changes";
/**
 * A turn's state as the records tell it (`readConversation`).
 *
 * @example
 * const state: TurnState = (await chat.turn(id)).state;
 * if (state === "waiting") console.log("a person must answer");
 */
export type TurnState = "running" | "waiting" | "interrupted" | "done" | "failed" | "abandoned" | "stopped";
/**
 * The states a turn ends in, written by its `ended` record.
 *
 * @example
 * const ended = (await store.read("sam")).filter((r): r is EndedRecord => r.kind === "ended");
 * const states: EndedState[] = ended.map((r) => r.state);
 */
export type EndedState = "done" | "failed" | "stopped" | "abandoned";

interface Base {
  functai_conversation: 1;
  seq: number;
  at: string;
}

/**
 * Names the AI function or program whose turns a conversation holds.
 *
 * @example
 * const records = await store.read("sam");
 * const found = records.filter((r): r is ProgramRecord => r.kind === "program");
 * found[0]?.name; // "desk"
 */
export interface ProgramRecord extends Base {
  kind: "program";
  version: string;
  name: string;
  /** Other implementations write other kinds (FunctAI Python: `"module"`). */
  program_kind?: "ai" | "program" | (string & {});
  interface?: unknown;
}
/**
 * A turn begins: its input, its parent turn and the settings it runs with.
 *
 * @example
 * const records = await store.read("sam");
 * const found = records.filter((r): r is TurnRecord => r.kind === "turn");
 * for (const t of found) console.log(t.turn, t.parent, t.inputs);
 */
export interface TurnRecord extends Base {
  kind: "turn";
  turn: string;
  parent: string | null;
  program: string;
  inputs: Record<string, unknown>;
  request_id?: string;
  /** Set when `evaluate` or an optimizer made the call: the run it belongs to. */
  caller?: TurnCaller;
  /**
   * Ours: the approval rule the turn was sent with (an approve function is kept as `"function"`: whoever
   * resumes the turn asks a person instead), so a resumed turn still asks. Absent or null: no rule.
   */
  approve?: "changes" | "all" | "function" | string[] | null;
}
/**
 * Who made a turn's call, when it was not a person's own: an evaluation run or an optimization.
 *
 * @example
 * const caller: TurnCaller = { evaluation: "eval-2026-01-05" };
 * await answer("Where is A-1042?", { caller }); // its conversation's turn record names the run
 */
export type TurnCaller = { evaluation: string } | { optimization: string };
/**
 * A running turn's lease, renewed while its process lives; one that ran out makes the turn interrupted.
 *
 * @example
 * const records = await store.read("sam");
 * const found = records.filter((r): r is LeaseRecord => r.kind === "lease");
 * found.at(-1)?.until; // when the running turn's holder must renew
 */
export interface LeaseRecord extends Base {
  kind: "lease";
  turn: string;
  holder: string;
  until: string;
  attempt: number;
}
/**
 * A model reply, kept so that a resumed turn never asks (and pays) for it again.
 *
 * @example
 * const records = await store.read("sam");
 * const found = records.filter((r): r is ReplyRecord => r.kind === "reply");
 * console.log(`${found.length} model replies kept (never paid for twice)`);
 */
export interface ReplyRecord extends Base {
  kind: "reply";
  turn: string;
  key: string;
  site?: string;
  response: unknown;
  attempt?: number;
}
/**
 * A tool call started or done: a changing tool started but not done may have run (unfinished).
 *
 * @example
 * const records = await store.read("sam");
 * const found = records.filter((r): r is ToolRecord => r.kind === "tool");
 * const started = found.filter((t) => t.state === "started"); // may have run
 */
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
  /** What the tool showed the person, not the model (`ctx.show`), on `done`. */
  shown?: unknown[];
  path?: string;
  attempt?: number;
}
/**
 * One tool call a waiting turn asks a person about.
 *
 * @example
 * const waiting = (await store.read("sam")).filter((r): r is WaitingRecord => r.kind === "waiting").at(-1);
 * const asked: WaitingApproval[] = waiting?.approvals ?? [];
 * for (const a of asked) console.log(a.path, a.invocation, a.input);
 */
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
/**
 * A turn waits, saved, for a person's answers to its approvals.
 *
 * @example
 * const records = await store.read("sam");
 * const found = records.filter((r): r is WaitingRecord => r.kind === "waiting");
 * found.at(-1)?.approvals.map((a) => a.name); // ["refund"]
 */
export interface WaitingRecord extends Base {
  kind: "waiting";
  turn: string;
  approvals: WaitingApproval[];
  attempt?: number;
}
/**
 * A person's answer to one approval: yes, or no with a reason the model sees.
 *
 * @example
 * const records = await store.read("sam");
 * const found = records.filter((r): r is ApprovalRecord => r.kind === "approval");
 * for (const a of found) console.log(a.path, a.verdict, a.by, a.reason);
 */
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
/**
 * A turn ended: done with its result, failed, stopped or abandoned.
 *
 * @example
 * const records = await store.read("sam");
 * const found = records.filter((r): r is EndedRecord => r.kind === "ended");
 * for (const e of found) console.log(e.turn, e.state, e.value);
 */
export interface EndedRecord extends Base {
  kind: "ended";
  turn: string;
  state: EndedState;
  outputs?: Record<string, unknown>;
  /** A `done` turn's answer. Absent only for an answer of undefined, and then `outputs` holds none either (else the record is refused). */
  value?: unknown;
  error?: unknown;
  usage?: { input_tokens: number; output_tokens: number };
  attempt?: number;
}
/**
 * Asks a running turn to stop (it ends `stopped`).
 *
 * @example
 * const records = await store.read("sam");
 * const found = records.filter((r): r is StopRecord => r.kind === "stop");
 * found.map((s) => s.turn); // turns asked to stop
 */
export interface StopRecord extends Base {
  kind: "stop";
  turn: string;
}
/**
 * Moves the conversation's head: where the next turn goes.
 *
 * @example
 * const records = await store.read("sam");
 * const found = records.filter((r): r is HeadRecord => r.kind === "head");
 * found.at(-1)?.turn; // the conversation's head
 */
export interface HeadRecord extends Base {
  kind: "head";
  turn: string;
}
/**
 * The turn actor's persisted XState snapshot, kept with the turn's records.
 *
 * @example
 * const records = await store.read("sam");
 * const found = records.filter((r): r is SnapshotRecord => r.kind === "snapshot");
 * const persisted = found.at(-1)?.snapshot; // createActor(turnMachine, { snapshot: persisted })
 */
export interface SnapshotRecord extends Base {
  kind: "snapshot";
  turn: string;
  snapshot: unknown;
}

/** Every record kind of conversation format 1 this package writes and reads. */
/**
 * Ours: a small JSON value a plugin kept in its turn's records (`keep`), shown to the turn's later runs.
 *
 * @example
 * const records = await store.read("sam");
 * const found = records.filter((r): r is PluginRecord => r.kind === "plugin");
 * found.filter((p) => p.plugin === "timing").map((p) => p.data);
 */
export interface PluginRecord extends Base {
  kind: "plugin";
  turn: string;
  plugin: string;
  data: unknown;
  attempt?: number;
}

/**
 * Every record kind of conversation format 1 this package writes and reads.
 *
 * @example
 * const known = (r: ConversationRecord): r is KnownRecord =>
 *   ["program", "turn", "lease", "reply", "tool", "waiting", "approval", "ended", "stop", "head", "snapshot", "plugin"].includes(r.kind);
 */
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

/**
 * What a store holds: known records, or records of kinds this version does not know (skipped by readers).
 *
 * @example
 * const records: ConversationRecord[] = await store.read("sam");
 * for (const r of records) console.log(r.seq, r.kind, r.at);
 */
export type ConversationRecord = KnownRecord | (Base & { kind: string; [key: string]: unknown });

/**
 * A record before the store gives it its `seq`.
 *
 * @example
 * const note: NewRecord<HeadRecord> = { functai_conversation: 1, kind: "head", at: new Date().toISOString(), turn: "01JX…" };
 * await store.append("sam", [note], { expect: await store.length!("sam") });
 */
export type NewRecord<R extends KnownRecord = KnownRecord> = R extends KnownRecord ? Omit<R, "seq"> : never;
