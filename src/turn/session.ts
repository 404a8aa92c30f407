import { Actor, fromCallback, type AnyActorRef, type AnyEventObject, type EventObject, type Observer, type Snapshot, type Subscription } from "xstate";
import { isoAt, systemClock, type Clock } from "../runtime/clock.js";
import type { Approval } from "../approval/types.js";
import { FunctaiError, describeError, isInstance } from "../errors.js";
import type { Journal } from "../engine/journal.js";
import { LeaseLost, NeedsPerson, Suspend, TurnRuntime, abortError, type TurnMode } from "../engine/runtime.js";
import type { Usage } from "../lm/types.js";
import { callerPath } from "../records/keys.js";
import { copyOf } from "../runtime/values.js";
import type { TurnEventBody } from "./events.js";
import type { TurnActor } from "./actor.js";
import type { TurnCommand, TurnInput } from "./context.js";
import { turnMachine, type RunnerInput } from "./machine.js";

/** How a turn ended, as the host records it. */
export type TurnEnd =
  | { state: "done"; result: unknown; usage: Usage }
  | { state: "failed"; error: unknown; usage: Usage }
  | { state: "stopped"; reason: string; usage: Usage };

/**
 * What a turn's host provides: the journal for each run, the root call, and
 * (for conversations) what to record when the turn waits or ends.
 */
export interface TurnHost {
  readonly turn: string;
  readonly name: string;
  readonly mode: TurnMode;
  readonly conversation?: { id: string; store: import("../store/types.js").Store } | undefined;
  /** Keep each model call in `runtime.steps` (for `predict`). */
  readonly keepSteps?: boolean;
  /** Where the turn's events take their time from (the wall clock when absent). */
  readonly clock?: Clock;
  journal(run: number): Journal | Promise<Journal>;
  execute(runtime: TurnRuntime): Promise<unknown>;
  beforeEffect?(afterWait?: boolean): void | Promise<void>;
  /** The turn stops for a person (conversations save it here). */
  onWait?(approvals: Approval[], runtime: TurnRuntime): Promise<void>;
  /** The turn ended (conversations record it here). */
  onEnd?(end: TurnEnd, runtime: TurnRuntime): Promise<void>;
  /** Given each run's abort: a host that learns the turn was taken from it (its lease lost) aborts the running tools' `ctx.signal`. */
  watch?(abort: (reason: LeaseLost) => void): void;
  /** The turn lost its lease or was told to stop: it ends here without an `ended` record. */
  onInterrupt?(error: LeaseLost): void;
}

/** A running turn: its actor (started by its driver) and what its last run learned. */
export interface TurnSession {
  readonly actor: TurnActor & { start(): unknown };
  readonly host: TurnHost;
  /** The runtime of the latest run (steps and usage of the whole turn: replayed steps included). */
  runtime: TurnRuntime | null;
  /** The error a failed turn threw, as thrown (the snapshot keeps only its code and message). */
  error: unknown;
  /** The run threw `error` and failed with it: what it threw may itself be `undefined` or `null`. */
  threw: boolean;
  /** Event keys already shown, so a replay does not show them again. */
  readonly shown: Set<string>;
  /**
   * The latest run, settled once it let go of the turn (its end, wait or interruption recorded, or found it could
   * not be). A turn told to STOP is `stopped` at once, while its run still ends its tools and writes `ended`; a
   * conversation turn stopped while it waits (no run) has the append that ends it here (see `controls`).
   */
  run: Promise<void> | null;
  /** The ids of the answers handed to a run of this session: a later run replays them (see Journal.addAnswer). */
  readonly handed: Set<string>;
}

// (asked with isInstance: a body may throw a Proxy that cannot be asked what it is, and it
// fails the turn as any error does, never reads as an interruption because asking it threw)
const codeOf = (e: unknown): string | null => (isInstance(e, FunctaiError) ? (e as FunctaiError).code : null);

/**
 * An event as its readers get it: their own. A `reply` event's tool calls hold the inputs the turn keeps (its
 * journal's reply, replayed after an answer; the history the model is sent next): a reader that redacted what it
 * was shown (`call.input.amount = 0`) changed the call that runs, after a person approved it as asked. A `started`
 * event's input is the one each run of the turn starts from: redacted for a log, the run after an answer asked the
 * model anew with it (its earlier reply no longer matched) and never ran what was approved. Those are copies, and
 * so is a reply's usage (the other events carry copies, strings or what the turn no longer reads).
 */
function shownBody(body: TurnEventBody): TurnEventBody {
  if (body.type === "started") return { ...body, input: copyOf(body.input) };
  if (body.type !== "reply") return body;
  const toolCalls = body.toolCalls.map(({ id, name, input }) => ({ id, name, input: copyOf(input) }));
  return { ...body, toolCalls, usage: { ...body.usage } };
}

type RunnerArgs = { sendBack: (event: AnyEventObject) => void; input: RunnerInput };
type Runner = (args: RunnerArgs) => () => void;

/** Builds the runner for a host: one run of the turn per `running` state, cancelled by leaving it. */
function runnerFor(session: TurnSession, streaming: boolean): Runner {
  const { host } = session;
  const clock = host.clock ?? systemClock;
  return ({ sendBack: send, input }) => {
    // every report carries its time: the machine's actions never read a clock (a copy, then its time: not a
    // spread with a key after it, which V8 11 builds slowly)
    const sendBack = (event: AnyEventObject): void => {
      const stamped = Object.assign({}, event);
      stamped["at"] = isoAt(clock.now());
      send(stamped);
    };
    const controller = new AbortController();
    host.watch?.((reason) => controller.abort(reason));
    // events are queued and handed over once per microtask: a burst of text deltas is one transition
    let queue: { path: string; body: TurnEventBody }[] = [];
    const flush = (): void => {
      if (queue.length === 0) return;
      const events = queue;
      queue = [];
      sendBack({ type: "RUNNER.EVENTS", events });
    };
    let ended = false; // the runner reported its end: nothing left to stop
    const report = (event: AnyEventObject): void => {
      flush();
      ended = true;
      sendBack(event);
    };
    session.run = (async () => {
      let runtime: TurnRuntime | null = null;
      try {
        const journal = await host.journal(input.run);
        // (an answer an earlier run of this session was given, it acted on: this run replays it, and tells no plugin of it again)
        for (const [id, answer] of Object.entries(input.answers)) journal.addAnswer(id, answer, !session.handed.has(id));
        for (const id of Object.keys(input.answers)) session.handed.add(id);
        const options: ConstructorParameters<typeof TurnRuntime>[0] = {
          turn: host.turn,
          mode: host.mode,
          journal,
          signal: controller.signal,
          shown: session.shown,
          clock,
        };
        if (streaming)
          options.emit = (path, body) => {
            const size = queue.push({ path, body: shownBody(body) });
            if (size === 1) queueMicrotask(flush);
            // small batches: XState runs a transition's emits from an array it shifts (quadratic in the batch size)
            else if (size >= 32) flush();
          };
        if (host.beforeEffect) options.beforeEffect = (afterWait) => host.beforeEffect!(afterWait);
        if (host.conversation) options.conversation = host.conversation;
        if (host.keepSteps) options.keepSteps = true;
        runtime = new TurnRuntime(options);
        session.runtime = runtime;
        // stopped before it began (a call given an aborted signal, a stream left at once): no user code runs, a program's body neither
        if (controller.signal.aborted) throw abortError(controller.signal);
        let result: unknown;
        try {
          result = await host.execute(runtime);
        } finally {
          runtime.end(); // from here a call its body left running is refused (TurnRuntime.checkRunning), before anything is recorded
        }
        await host.onEnd?.({ state: "done", result, usage: runtime.usage }, runtime);
        runtime.endUnended(new FunctaiError("turn-state", "its turn ended first: a call its program left running is not part of the turn"));
        report({ type: "RUNNER.DONE", result, usage: { ...runtime.usage } });
      } catch (e) {
        const usage = runtime ? { ...runtime.usage } : { inputTokens: 0, outputTokens: 0 };
        try {
          if (runtime && isInstance(e, Suspend)) {
            const { approvals } = e as Suspend;
            await host.onWait?.(approvals, runtime);
            // the approval events go with the wait, and the machine emits them as it enters awaitingApproval: an
            // answer given on seeing one (even from an `actor.on` handler, as it is emitted) finds it pending
            const events: { path: string; body: TurnEventBody }[] = [];
            for (const approval of streaming ? approvals : []) {
              const key = `approval:${approval.id}`; // (shown once in the session: a replay does not show it again)
              if (session.shown.has(key)) continue;
              session.shown.add(key);
              events.push({ path: callerPath(approval.path), body: { type: "approval", approval } });
            }
            report({ type: "RUNNER.WAIT", approvals, events });
          } else if (isInstance(e, LeaseLost) || controller.signal.reason instanceof LeaseLost) {
            // (a tool that saw its signal abort on the lost lease threw its own error: the loss is what ended the run)
            const lost = isInstance(e, LeaseLost) ? (e as LeaseLost) : (controller.signal.reason as LeaseLost);
            session.error = lost;
            if (!controller.signal.aborted) controller.abort(lost); // tools still running in parallel stop too
            // stopped for a person, the turn is still this run's: what it queued after the stop (a plugin's `keep` in its
            // turnEnd) is kept before it lets go (a `plugin` record: the turn reads interrupted all the same). Unkept, the
            // turn is let go all the same: it must read interrupted for the person
            if (runtime && isInstance(e, NeedsPerson)) await runtime.journal.flush(true).catch(() => undefined);
            host.onInterrupt?.(lost);
            report(lost.stopped ? { type: "RUNNER.STOPPED", reason: lost.message } : { type: "RUNNER.INTERRUPTED", reason: lost.message });
          } else if (controller.signal.aborted) {
            if (runtime) await host.onEnd?.({ state: "stopped", reason: describeError(e), usage }, runtime);
          } else {
            session.error = e;
            session.threw = true;
            if (runtime) await host.onEnd?.({ state: "failed", error: e, usage }, runtime);
            runtime?.endUnended(e);
            report({ type: "RUNNER.FAILED", error: { code: codeOf(e), message: describeError(e) } });
          }
        } catch (recordError) {
          // the turn could not be recorded as waiting or ended: it is interrupted, never silently lost
          session.error = recordError;
          session.threw = false;
          report({ type: "RUNNER.INTERRUPTED", reason: describeError(recordError) });
        }
      }
    })();
    // (an error object costs its stack: made only when there is a run to stop)
    return () => {
      if (ended) return;
      // (left on a STOP: the snapshot is already the stopped one, with the reason the command gave, if any)
      const { value, context } = session.actor.getSnapshot();
      const reason = value === "stopped" && context.error?.code === "turn-aborted" ? context.error.message : "the turn was stopped";
      controller.abort(new FunctaiError("turn-aborted", reason));
    };
  };
}

/**
 * Each turn actor's runner, by the actor system XState made for it (each
 * turn actor is a root: a system of its own). One machine serves every turn
 * (a `provide` per turn rebuilt the machine's whole state tree: 70-300 µs a
 * turn); its runner is the one `startTurn` registered for the turn's system.
 */
const runners = new WeakMap<object, Runner>();
const machine = turnMachine.provide({
  actors: {
    runner: fromCallback<AnyEventObject, RunnerInput>(({ sendBack, input, system }) => {
      const run = runners.get(system);
      if (run) return run({ sendBack, input });
      sendBack({ type: "RUNNER.FAILED", error: { code: "turn-state", message: "no runner for this turn actor (create it with startTurn)" } });
      return undefined;
    }),
  },
});

/** A command without its time: `tell` stamps it. */
export type Untimed<C> = C extends unknown ? Omit<C, "at"> : never;

/** Sends a command to the turn's actor, stamped with the time of the turn's clock (the machine reads none). */
export function tell(session: TurnSession, command: Untimed<TurnCommand>): void {
  const stamped = { ...command, at: isoAt((session.host.clock ?? systemClock).now()) } as TurnCommand;
  // the turn's own commands enter as they are: a host's command filter (`takeCommands`) is for what users send
  if (session.actor instanceof TurnActorRef) session.actor.enter(stamped);
  else session.actor.send(stamped);
}

/** What a host does with a command sent to the actor's public `send`; `enter` passes one on to the machine. */
type CommandFilter = (command: TurnCommand, enter: (command: TurnCommand) => void) => void;

/**
 * A turn's actor: XState's, whose public `send` (`stream.actor.send(…)`) is where a user's commands enter the turn,
 * through the command filter its host set (`takeCommands`), if any; the turn's own (`tell`) enter as they are.
 * XState binds `send` to the actor as it builds it (`this.send.bind(this)`): this class's, so nothing is overwritten.
 */
class TurnActorRef extends Actor<typeof machine> {
  /** Set once by the turn's host (a conversation's stream: its answers are recorded before the actor takes them). */
  filter: CommandFilter | null = null;

  override send(command: Parameters<Actor<typeof machine>["send"]>[0]): void {
    const filter = this.filter;
    if (filter === null) return super.send(command);
    filter(command as TurnCommand, (c) => super.send(c as Parameters<Actor<typeof machine>["send"]>[0]));
  }

  /** A command of the turn's own, past the filter. */
  enter(command: TurnCommand): void {
    super.send(command as Parameters<Actor<typeof machine>["send"]>[0]);
  }
}

/**
 * Says what a command sent to the actor's public `send` does (`take`, given how to pass it on): a host whose answers
 * must be recorded before the actor takes them (a conversation's stream) filters them. The turn's own commands
 * (`tell`) are not filtered.
 */
export function takeCommands(session: TurnSession, take: CommandFilter): void {
  if (session.actor instanceof TurnActorRef) session.actor.filter = take;
}

/** Reports a throw from a user's listener (a bug in their code), in place of XState's uncaught rethrow. */
function reportListener(what: string, error: unknown): void {
  console.error(`[functai] a turn actor's ${what} listener threw:`, error);
}

/** Calls `f` with a throw of it reported, not thrown (the caller is XState, which would rethrow it from a timer). */
const guard =
  <A extends unknown[]>(what: string, f: ((...args: A) => unknown) | undefined) =>
  (...args: A): void => {
    try {
      f?.(...args);
    } catch (e) {
      reportListener(what, e);
    }
  };

/**
 * The actor's `on` and `subscribe` (public: `TurnStream.actor`) with their listeners guarded: XState rethrows a
 * listener's throw from a timer, an uncaught exception that ends a Node process (a server, with every turn it runs)
 * while the turn goes on. Reported instead (as the websocket companion reports its listeners'), and the turn, its
 * stream and the other listeners go on as they would.
 */
function guardListeners(actor: AnyActorRef): void {
  const on = actor.on.bind(actor);
  const subscribe = actor.subscribe.bind(actor) as (observer: Observer<unknown>) => Subscription;
  Object.defineProperty(actor, "on", {
    configurable: true,
    writable: true,
    value: (type: string, handler: (event: EventObject) => void) => on(type, guard(`"${type}"`, handler)),
  });
  Object.defineProperty(actor, "subscribe", {
    configurable: true,
    writable: true,
    value: (
      next?: Partial<Observer<unknown>> | ((snapshot: unknown) => void),
      error?: (error: unknown) => void,
      complete?: () => void,
    ): Subscription => {
      const observer = typeof next === "object" && next !== null ? next : { next, error, complete };
      // (an error listener only when one was given: without one, XState reports the actor's own error as it should)
      const guarded: Observer<unknown> = { next: guard("snapshot", observer.next), complete: guard("complete", observer.complete) } as Observer<unknown>;
      if (observer.error) guarded.error = guard("error", observer.error);
      return subscribe(guarded);
    },
  });
}

/** Creates a turn's actor around a host (not started: subscribe first, then `actor.start()`). */
export function startTurn(host: TurnHost, options: { streaming: boolean; input?: Partial<TurnInput>; snapshot?: unknown }): TurnSession {
  const input: TurnInput = { turn: host.turn, name: host.name, at: isoAt((host.clock ?? systemClock).now()), ...options.input };
  const actor =
    options.snapshot !== undefined
      ? new TurnActorRef(machine, { snapshot: options.snapshot as Snapshot<unknown>, input })
      : new TurnActorRef(machine, { input });
  guardListeners(actor);
  const session: TurnSession = { actor, host, runtime: null, error: undefined, threw: false, shown: new Set(), run: null, handed: new Set() };
  runners.set(actor.system, runnerFor(session, options.streaming));
  return session;
}
