import { assign, emit, enqueueActions, fromCallback, setup, type AnyEventObject } from "xstate";
import type { Approval } from "../approval/types.js";
import type { Usage } from "../lm/types.js";
import { callerPath } from "../records/keys.js";
import { isoAt, systemClock } from "../runtime/clock.js";
import type { MachineState, TurnEvent, TurnEventBody } from "./events.js";
import type { MachineAnswer, TurnCommand, TurnContext, TurnInput } from "./context.js";

export type { MachineAnswer, TurnCommand, TurnContext, TurnInput } from "./context.js";

/** What the runner (the invoked actor doing model calls, tools and store writes) reports. */
export type RunnerReport =
  | { type: "RUNNER.EVENTS"; events: { path: string; body: TurnEventBody }[]; at?: string }
  | { type: "RUNNER.WAIT"; approvals: Approval[]; events?: { path: string; body: TurnEventBody }[]; at?: string }
  | { type: "RUNNER.DONE"; result: unknown; usage: Usage; at?: string }
  | { type: "RUNNER.FAILED"; error: { code: string | null; message: string }; at?: string }
  | { type: "RUNNER.INTERRUPTED"; reason: string; at?: string }
  | { type: "RUNNER.STOPPED"; reason: string; at?: string };

export type TurnMachineEvent = RunnerReport | TurnCommand;

export interface RunnerInput {
  turn: string;
  answers: Record<string, MachineAnswer>;
  run: number;
}

/**
 * When an event happened: the time the event that caused it carries (every
 * event functai sends carries its clock's time: the runner's reports,
 * commands through `tell`, and the start, as the input's `at`); the system
 * clock only for a command sent to the machine directly without one.
 */
const at = (e: { at?: string; input?: { at?: string } } | undefined): string => e?.at ?? e?.input?.at ?? isoAt(systemClock.now());

function event(context: TurnContext, path: string, body: TurnEventBody, seq: number, when: string): TurnEvent {
  return Object.assign({ turn: context.turn, seq, at: when, path }, body) as TurnEvent;
}

/** What a runner report keeps in the context (a fresh object: the report's seq is set on it). */
function keptOf(e: TurnMachineEvent): Partial<TurnContext> {
  switch (e.type) {
    case "RUNNER.WAIT":
      return { pending: e.approvals.slice() };
    case "RUNNER.DONE":
      return { result: e.result, usage: e.usage };
    case "RUNNER.FAILED":
      return { error: e.error };
    default:
      return {};
  }
}

/** The event a runner report is shown as (the reports that end `running`). */
function shownOf(e: TurnMachineEvent): TurnEventBody {
  switch (e.type) {
    case "RUNNER.WAIT":
      // (its own list: a reader that works through it with shift() leaves the actor's pending approvals as they are)
      return { type: "waiting", approvals: e.approvals.slice() };
    case "RUNNER.DONE":
      return { type: "done", result: e.result, usage: e.usage };
    case "RUNNER.FAILED":
      return { type: "failed", error: e.error };
    case "RUNNER.INTERRUPTED":
      return { type: "interrupted", reason: e.reason };
    default:
      throw new Error(`turnMachine: ${e.type} is not a report that is shown`);
  }
}

/** A state's entry: the next seq, then its `state` event. */
const entered = (state: MachineState) => ["nextSeq", { type: "stateEvent", params: { state } }] as const;

/**
 * Every turn is one of these actors. The runner (model calls, tools, store
 * writes; cancelled through an AbortSignal when its state is left) is
 * provided by the host: `turnMachine.provide({ actors: { runner } })`.
 * Snapshots hold names and ids, never functions, so another process
 * rehydrates the actor with `createActor(turnMachine, { snapshot })`.
 *
 * @example
 * import { createActor } from "xstate";
 * import { turnMachine } from "functai/machine";
 * const actor = createActor(turnMachine.provide({ actors: { runner } }), { snapshot });
 */
export const turnMachine = setup({
  types: {
    context: {} as TurnContext,
    events: {} as TurnMachineEvent,
    input: {} as TurnInput,
    emitted: {} as TurnEvent,
  },
  actors: {
    runner: fromCallback<AnyEventObject, RunnerInput>(({ sendBack }) => {
      sendBack({ type: "RUNNER.FAILED", error: { code: "turn-state", message: "no runner provided: turnMachine.provide({ actors: { runner } })" } });
    }),
  },
  guards: {
    nothingPending: ({ context }) => context.pending.length === 0,
  },
  actions: {
    /** Answers one pending approval (by id) or all of them, and emits `approved` for each. */
    answer: enqueueActions(({ context, event: e, enqueue }, params: { verdict: "yes" | "no" }) => {
      if (e.type !== "APPROVE" && e.type !== "DENY") return;
      const chosen = e.id === undefined ? context.pending : context.pending.filter((a) => a.id === e.id);
      if (chosen.length === 0) return;
      const by = e.by ?? null;
      const reason = e.type === "DENY" ? (e.reason ?? null) : null;
      const answers = { ...context.answers };
      let seq = context.seq;
      for (const approval of chosen) {
        answers[approval.id] = { verdict: params.verdict, by, reason };
        seq += 1;
        enqueue.emit(event(context, callerPath(approval.path), { type: "approved", approval, verdict: params.verdict, by, reason }, seq, at(e)));
      }
      enqueue.assign({ answers, seq, pending: context.pending.filter((a) => !chosen.includes(a)) });
    }),
    /**
     * Emits the events a wait carries (its `approval` events), numbered, before its `waiting` event: emitted by
     * the transition into awaitingApproval, so whoever answers on seeing one finds it pending.
     */
    showCarried: enqueueActions(({ context, event: e, enqueue }) => {
      if (e.type !== "RUNNER.WAIT" || !e.events?.length) return;
      let seq = context.seq;
      const when = at(e);
      for (const { path, body } of e.events) enqueue.emit(event(context, path, body, ++seq, when));
      enqueue.assign({ seq });
    }),
    /** Keeps what a runner report says (its next seq included)... */
    keepReport: assign(({ context, event: e }) => {
      const kept = keptOf(e); // (its seq set on it, not spread after it: V8 11 builds that slowly)
      kept.seq = context.seq + 1;
      return kept;
    }),
    /** ...and emits its event, after `keepReport` (an assign and an emit: no `enqueueActions` for a fixed pair). */
    showReport: emit(({ context, event: e }) => event(context, context.name, shownOf(e), context.seq, at(e))),
    /**
     * A STOP's reason, kept as the stopped turn's error (`turn-aborted`): what its running tools' signal, the
     * stream's rejection and a conversation's `ended` record say. A STOP without one keeps nothing.
     */
    keepStop: assign(({ context, event: e }) =>
      e.type === "STOP" && typeof e.reason === "string" && e.reason !== "" ? { error: { code: "turn-aborted", message: e.reason } } : { error: context.error },
    ),
    /** The next seq, for the event the next action emits. */
    nextSeq: assign({ seq: ({ context }) => context.seq + 1 }),
    /** Emits the state the actor entered, after `nextSeq`. */
    stateEvent: emit(({ context, event: e }, params: { state: MachineState }) =>
      event(context, context.name, { type: "state", state: params.state }, context.seq, at(e as { at?: string; input?: { at?: string } })),
    ),
  },
}).createMachine({
  id: "turn",
  context: ({ input }) => ({
    turn: input.turn,
    name: input.name,
    pending: input.pending ?? [],
    answers: {},
    result: undefined,
    usage: null,
    error: null,
    seq: input.seq ?? 0,
    runs: 0,
    start: input.start ?? "running",
  }),
  initial: "boot",
  states: {
    boot: {
      always: [
        { guard: ({ context }) => context.start === "interrupted", target: "interrupted" },
        { guard: ({ context }) => context.start === "awaitingApproval", target: "awaitingApproval" },
        { target: "running" },
      ],
    },
    running: {
      entry: [assign({ runs: ({ context }) => context.runs + 1, seq: ({ context }) => context.seq + 1 }), { type: "stateEvent", params: { state: "running" } }],
      invoke: {
        src: "runner",
        input: ({ context }) => ({ turn: context.turn, answers: context.answers, run: context.runs }),
      },
      on: {
        // events come in batches (one transition per batch, not per text delta)
        "RUNNER.EVENTS": {
          actions: enqueueActions(({ context, event: e, enqueue }) => {
            let seq = context.seq;
            const when = at(e); // one batch, one moment
            for (const { path, body } of e.events) enqueue.emit(event(context, path, body, ++seq, when));
            enqueue.assign({ seq });
          }),
        },
        "RUNNER.WAIT": { target: "awaitingApproval", actions: ["showCarried", "keepReport", "showReport"] },
        "RUNNER.DONE": { target: "done", actions: ["keepReport", "showReport"] },
        "RUNNER.FAILED": { target: "failed", actions: ["keepReport", "showReport"] },
        "RUNNER.INTERRUPTED": { target: "interrupted", actions: ["keepReport", "showReport"] },
        "RUNNER.STOPPED": { target: "stopped" },
        STOP: { target: "stopped", actions: "keepStop" },
      },
    },
    awaitingApproval: {
      entry: entered("awaitingApproval"),
      always: { guard: "nothingPending", target: "running" },
      on: {
        APPROVE: { actions: { type: "answer", params: { verdict: "yes" } } },
        DENY: { actions: { type: "answer", params: { verdict: "no" } } },
        RESUME: { target: "running", actions: assign({ pending: [] }) },
        // (ended: nothing waits for a person any more, and nobody could answer it)
        ABANDON: { target: "abandoned", actions: assign({ pending: [] }) },
        STOP: { target: "stopped", actions: [assign({ pending: [] }), "keepStop"] },
      },
    },
    interrupted: {
      entry: entered("interrupted"),
      on: {
        RESUME: { target: "running" },
        ABANDON: { target: "abandoned" },
        STOP: { target: "stopped", actions: "keepStop" },
      },
    },
    done: { type: "final", entry: entered("done") },
    failed: { type: "final", entry: entered("failed") },
    abandoned: { type: "final", entry: entered("abandoned") },
    stopped: { type: "final", entry: entered("stopped") },
  },
});

export type TurnMachine = typeof turnMachine;
