import type { Approval } from "../approval/types.js";
import { FunctaiError, isInstance } from "../errors.js";
import type { LMRequest, LMResponse, Usage } from "../lm/types.js";
import { systemClock, type Clock } from "../runtime/clock.js";
import type { TurnEventBody } from "../turn/events.js";
import type { Journal } from "./journal.js";

/** How a turn gets a person's answer: none (plain call), in this process (stream), or saved (conversation). */
export type TurnMode = "plain" | "stream" | "conversation";

/** One model call of a turn, for `predict().steps` and `phistory()`. */
export interface Step {
  site: string;
  path: string;
  request: LMRequest;
  response: LMResponse;
  /** Found in the journal: not paid for again. */
  replayed: boolean;
}

/**
 * Thrown through the call tree when approvals wait for a person: the turn
 * stops (saved, or waiting in-process) and goes on by replay once answered.
 * Not a FunctaiError: user code should not catch it by accident.
 */
export class Suspend extends Error {
  readonly approvals: Approval[];
  constructor(approvals: Approval[]) {
    super(`waiting for ${approvals.length} approval(s)`);
    this.name = "Suspend";
    this.approvals = approvals;
  }
  static merge(errors: readonly Suspend[]): Suspend {
    return new Suspend(errors.flatMap((e) => e.approvals));
  }
}

/**
 * The turn's own stops that are not a `LeaseLost` (a nested call's refusal of a tool call left in doubt, a delegated
 * turn's lost lease) with a code a tool's own error may share (`turn-unfinished`, `lease-lost`, `turn-claimed`: a
 * tool's body that resumes another conversation's turn is refused so). A turn asks where such a code came from,
 * as for a store failure (store/failures.ts), never the code alone: a tool's own is that call's error.
 */
const turnStops = new WeakSet<object>();

/** Marks `e` as the turn's own stop (see turnStops). Returns it. */
export function markTurnStop<E>(e: E): E {
  if ((typeof e === "object" && e !== null) || typeof e === "function") turnStops.add(e as object);
  return e;
}

/** Whether `e` is the turn's own stop: a `LeaseLost` (a `NeedsPerson` too) or marked so (`markTurnStop`); a thrown Proxy's trap is not asked to say. */
export const isTurnStop = (e: unknown): boolean =>
  ((typeof e === "object" && e !== null) || typeof e === "function") && (turnStops.has(e as object) || isInstance(e, LeaseLost));

/**
 * The turn lost its lease (another process claimed it) or was stopped: it
 * must not take another step. A stop (a `stop` record, from any process) is
 * `turn-aborted`, as a stop asked here is; a lease lost is `lease-lost`.
 */
export class LeaseLost extends FunctaiError {
  readonly stopped: boolean;
  constructor(
    message: string,
    stopped = false,
    code: "lease-lost" | "turn-claimed" | "turn-aborted" | "turn-unfinished" | "turn-waiting" | "store-io" = stopped ? "turn-aborted" : "lease-lost",
  ) {
    super(code, message);
    this.name = "LeaseLost";
    this.stopped = stopped;
  }
}

/**
 * The turn stops here, without ending, for a person: a changing tool's call
 * may have acted and nobody knows (a request that timed out, a connection
 * lost in the middle of it), so it is left unfinished (`started`, never
 * `done`) and never run again on its own; or a delegated turn needs a person
 * first. It stays resumable (`turn-unfinished`, or the delegated turn's
 * code), and its lease is let go at once: every process reads it
 * interrupted, and a person says what the tool returned or asks for a rerun.
 */
export class NeedsPerson extends LeaseLost {
  /** For a delegated turn that waits for approvals: where they wait (the innermost turn's conversation) and what. */
  readonly waiting: DelegatedWait | undefined;
  constructor(message: string, code: "turn-unfinished" | "turn-waiting" = "turn-unfinished", waiting?: DelegatedWait) {
    super(message, false, code);
    this.name = "NeedsPerson";
    this.waiting = waiting;
  }
}

/** Approvals a delegated turn waits for, in its conversation: a person answers them there (see delegate.ts). */
export interface DelegatedWait {
  conversation: string;
  turn: string;
  approvals: Approval[];
}

export interface TurnRuntimeOptions {
  turn: string;
  mode: TurnMode;
  journal: Journal;
  signal: AbortSignal;
  /** Receives events (the actor numbers them); replayed work is not shown again. */
  emit?: (path: string, body: TurnEventBody) => void;
  /** Keys of events already shown, shared across the runs of one stream so nothing is shown twice. */
  shown?: Set<string>;
  /** Checked before every side effect (model call, tool run): throws when the turn must stop. */
  beforeEffect?: (afterWait?: boolean) => void | Promise<void>;
  /** The conversation the turn belongs to, if any (delegates open theirs beside it). */
  conversation?: { id: string; store: import("../store/types.js").Store };
  /** Keep each model call (its request and reply) in `steps`: only `predict` shows them, and each request holds the history so far. */
  keepSteps?: boolean;
  /** Where the turn's time comes from (the wall clock by default). */
  clock?: Clock;
}

/** A run's end as its host keeps it before the plugins are told it (see {@link TurnRuntime.keepEnd}). */
export type KeptEnd = { state: "done"; result: unknown } | { state: "failed"; error: unknown } | { state: "stopped"; reason: string };

/** Everything one run of a turn shares: its journal, events, usage and steps. */
export class TurnRuntime {
  readonly turn: string;
  readonly mode: TurnMode;
  readonly journal: Journal;
  readonly signal: AbortSignal;
  readonly usage: Usage = { inputTokens: 0, outputTokens: 0 };
  readonly steps: Step[] = [];
  readonly conversation: TurnRuntimeOptions["conversation"];
  readonly clock: Clock;
  /**
   * A plugin's `turnEnd` hook that failed (`plugin-failed`) on a run that ended resumable (waiting for a person,
   * interrupted, stopped), or done where that end was kept before it was told (`keepEnd`): that end is kept as it is
   * (the turn still waits, is resumed or stopped as it says, or is done), and this is what the call rejects with (see
   * plugins/hooks.ts). Undefined when none failed.
   */
  turnEndFailure: FunctaiError | undefined = undefined;
  /**
   * Set by a host that keeps the turn's end in its records (a conversation): keeps the run's end (done, failed or
   * stopped: its `ended` record, durable; a done answer checked first) before the plugins' `turnEnd` hooks are told it
   * (plugins/hooks.ts). A hook is told a fact once it is kept: told first, a process that died before the record was
   * kept left the turn interrupted, and the run that resumed it told `done` (or `failed`) again, or told another end
   * than the one it had been told. Rejects when the end could not be kept (nothing was).
   */
  keepEnd: ((end: KeptEnd) => Promise<void>) | undefined = undefined;
  /**
   * Set by a host that lets a run go on elsewhere after some failures (a conversation whose own store refused a write:
   * the turn is let go, not ended, and reads interrupted): whether `e` is one. The plugins' `turnEnd` is told such a
   * run was interrupted, as the turn reads; told `failed`, the same turn was told `done` by the run that resumed it.
   */
  interruptedBy: ((e: unknown) => boolean) | undefined = undefined;
  /**
   * When streaming, the tool calls shown (`tool_call`) whose `tool_result` is not yet, each with how to end it (an
   * error `tool_result`, see tool-calls.ts). The runner ends those still open as the run returns or fails
   * (`endUnended`): a call its program left running would otherwise show its result after the turn's end, or never.
   */
  readonly unended = new Map<object, (why: unknown) => void>();
  readonly #emit: ((path: string, body: TurnEventBody) => void) | undefined;
  readonly #shown: Set<string>;
  readonly #beforeEffect: ((afterWait?: boolean) => void | Promise<void>) | undefined;
  readonly #keepSteps: boolean;
  #ended = false;

  constructor(options: TurnRuntimeOptions) {
    this.#keepSteps = options.keepSteps ?? false;
    this.turn = options.turn;
    this.mode = options.mode;
    this.journal = options.journal;
    this.signal = options.signal;
    this.#emit = options.emit;
    this.#shown = options.shown ?? new Set();
    this.#beforeEffect = options.beforeEffect;
    this.conversation = options.conversation;
    this.clock = options.clock ?? systemClock;
  }

  get streaming(): boolean {
    return this.#emit !== undefined;
  }

  /** Emits an event; with `once`, an event already shown under that key is not shown again. */
  emit(path: string, body: TurnEventBody, once?: string): void {
    if (!this.#emit) return;
    if (once !== undefined) {
      if (this.#shown.has(once)) return;
      this.#shown.add(once);
    }
    this.#emit(path, body);
  }

  /**
   * Before a side effect: stop if aborted, or if the turn lost its lease.
   * `afterWait`: asked again after the wait just before it (see tool-calls.ts).
   */
  beforeEffect(afterWait = false): void | Promise<void> {
    if (this.signal.aborted) throw abortError(this.signal);
    // a call the program left running (not awaited) acts no more in the name of a run that is over
    this.checkRunning("a call left running");
    return this.#beforeEffect?.(afterWait);
  }

  /**
   * Refuses (`turn-state`) once this run's outermost call returned or threw:
   * the run is over (its `ended` or `waiting` record is written, or about to
   * be), and a call its body left running (a timer or an un-awaited promise,
   * which Node's AsyncLocalStorage carries the frame into) neither joins it
   * nor acts in its name. `what` says which call it was.
   */
  checkRunning(what: string): void {
    if (!this.#ended) return;
    throw new FunctaiError(
      "turn-state",
      `${what} in turn ${this.turn}, which has already ended: a call left running after its program returned does not act in its turn. Await it in the body before returning, or make it outside the program (fn.predict(...) starts a call of its own)`,
    );
  }

  /** Ends the calls still shown as running (see `unended`) with an error `tool_result` saying `why`: the run returned or failed. */
  endUnended(why: unknown): void {
    for (const end of [...this.unended.values()]) end(why);
  }

  /** The run's outermost call settled (see `checkRunning`); said once, by the runner. */
  end(): void {
    this.#ended = true;
  }

  /** Whether a model call made in `frame` is kept (`keepSteps`, or the frame's own `steps`): then it makes its request, replayed or not. */
  keepsStepsOf(frame: { steps?: Step[] }): boolean {
    return this.#keepSteps || frame.steps !== undefined;
  }

  /** Counts a model call's usage; keeps the call itself when asked to (`keepSteps`, the frame's `steps`: then `request` is given). */
  addStep(frame: { site: string; path: string; steps?: Step[] }, request: LMRequest | undefined, response: LMResponse, replayed: boolean): void {
    const step = { site: frame.site, path: frame.path, request: request!, response, replayed };
    if (this.#keepSteps) this.steps.push(step);
    frame.steps?.push(step);
    this.usage.inputTokens += response.usage.inputTokens;
    this.usage.outputTokens += response.usage.outputTokens;
  }
}

export function abortError(signal: AbortSignal): FunctaiError {
  const reason = signal.reason as unknown;
  if (reason instanceof FunctaiError) return reason;
  return new FunctaiError("turn-aborted", "the turn was aborted", { cause: reason });
}
