/**
 * The turn actor's plain types: its context, its input and the commands it
 * takes. Kept apart from the machine (./machine.ts) so that declarations
 * naming them never load xstate's types.
 */
import type { Approval } from "../approval/types.js";
import type { Usage } from "../lm/types.js";

/**
 * A person's answer to one approval, as the machine keeps it (persisted with the snapshot).
 *
 * @example
 * const answer: MachineAnswer | undefined = stream.actor.getSnapshot().context.answers["desk#1:1"];
 * if (answer?.verdict === "no") console.log(`${answer.by} said no: ${answer.reason}`);
 */
export interface MachineAnswer {
  verdict: "yes" | "no";
  by: string | null;
  reason: string | null;
}

/**
 * What a turn's actor keeps (its snapshot's `context`): the approvals it
 * waits for, the answers it was given, its result or error.
 *
 * @example
 * const { pending, result, usage }: TurnContext = stream.actor.getSnapshot().context;
 */
export interface TurnContext {
  turn: string;
  name: string;
  /** Approvals waiting for a person. */
  pending: Approval[];
  /** Answers given to this actor, by approval id. */
  answers: Record<string, MachineAnswer>;
  result: unknown;
  usage: Usage | null;
  error: { code: string | null; message: string } | null;
  /** The last event number emitted. */
  seq: number;
  /** How many times the runner started (1 for a turn that never stopped). */
  runs: number;
  /** Where the actor starts (a rehydrated turn: where it stood); `boot` leaves for it. */
  start: "running" | "interrupted" | "awaitingApproval";
}

/**
 * What a turn's actor starts from (`createActor(turnMachine, { input })`).
 *
 * @example
 * import { createActor } from "xstate";
 * import { turnMachine, type TurnInput } from "functai/machine";
 * const input: TurnInput = { turn: "01JX…", name: "desk", start: "interrupted" };
 * const actor = createActor(turnMachine.provide({ actors: { runner } }), { input });
 */
export interface TurnInput {
  turn: string;
  name: string;
  /** Where a rehydrated turn starts (default `running`). */
  start?: "running" | "interrupted" | "awaitingApproval";
  pending?: Approval[];
  seq?: number;
  /** When the actor starts (ISO 8601): the time of its first `state` event. */
  at?: string;
}

/**
 * Answers and commands sent to a turn's actor (`APPROVE`, `DENY`, `RESUME`,
 * `ABANDON`, `STOP`). Prefer the stream's own `approve`/`deny`/`abort`: a
 * conversation's stream records the answer before it sends it.
 *
 * @example
 * const stop: TurnCommand = { type: "STOP", reason: "enough" };
 * stream.actor.send(stop);
 */
export type TurnCommand =
  | { type: "APPROVE"; id?: string; by?: string | null; at?: string }
  | { type: "DENY"; id?: string; reason?: string | null; by?: string | null; at?: string }
  | { type: "RESUME"; at?: string }
  | { type: "ABANDON"; at?: string }
  | { type: "STOP"; reason?: string; at?: string };
