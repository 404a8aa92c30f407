import type { EarlierTurn } from "../engine/ai-call.js";
import { rootFrame } from "../engine/frame.js";
import { Journal } from "../engine/journal.js";
import type { Step } from "../engine/runtime.js";
import { FunctaiError } from "../errors.js";
import { newTurnId } from "../ids.js";
import type { Usage } from "../lm/types.js";
import type { Settings } from "../settings.js";
import type { MachineAnswer } from "./context.js";
import { startTurn, tell, type TurnSession } from "./session.js";
import { TurnStream } from "./stream.js";
import type { Definition } from "../functions/definition.js";

/**
 * What `fn.predict()` gives: the answer and the whole exchange.
 *
 * @example
 * const p = await answer.predict("Where is A-1042?");
 * p.result; p.usage.inputTokens; p.steps;
 */
export interface Prediction<T> {
  result: T;
  /** Every model call, in order. */
  steps: Step[];
  /** Tokens of every step, added up. */
  usage: Usage;
}

/**
 * What a call whose turn ended resumable (stopped, interrupted, waiting for a person) rejects with: a `turnEnd`
 * hook's failure on that end first (the end is kept, and the call says the plugin failed: `plugin-failed`, naming
 * it), else what `otherwise` makes. The one place a turn's end is read so.
 */
export function resumableEnd(session: TurnSession, otherwise: () => unknown): unknown {
  return session.runtime?.turnEndFailure ?? otherwise();
}

/**
 * Resolves with the turn's result once its actor ends (a stopped turn: once its run ended too, its tools
 * and its `ended` record); `onWaiting` says what a waiting turn rejects with.
 */
export function resultOf<T>(session: TurnSession, onWaiting?: () => unknown): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const check = (): void => {
      const snapshot = session.actor.getSnapshot();
      switch (snapshot.value) {
        case "done":
          // (a turnEnd hook that failed on an end kept before it was told, a conversation's: the call says the plugin failed)
          if (session.runtime?.turnEndFailure) return reject(session.runtime.turnEndFailure);
          return resolve(snapshot.context.result as T);
        case "failed":
          if (session.runtime?.turnEndFailure) return reject(session.runtime.turnEndFailure);
          // (a body may throw undefined or null: that is what the call rejects with)
          if (session.threw) return reject(session.error);
          return reject(session.error ?? new FunctaiError("turn-state", snapshot.context.error?.message ?? "the turn failed"));
        case "stopped": {
          // settled once the run let go of the turn: a caller that exits as the call rejects (Ctrl-C) leaves it
          // `stopped` in its records, not interrupted for anyone to run again, and nothing of it runs on unseen
          const why = snapshot.context.error?.code === "turn-aborted" ? snapshot.context.error.message : "the turn was stopped"; // (a STOP's reason)
          const stopped = (): void => reject(resumableEnd(session, () => session.error ?? new FunctaiError("turn-aborted", why)));
          return void (session.run ? session.run.then(stopped) : stopped());
        }
        case "abandoned":
          return reject(new FunctaiError("turn-state", "the turn was abandoned"));
        case "interrupted":
          // an actor that starts interrupted (a continued turn, resumed as it starts) has not ended: a run's interruption has
          if (snapshot.context.runs === 0) return;
          return reject(resumableEnd(session, () => session.error ?? new FunctaiError("lease-lost", "the turn was interrupted")));
        case "awaitingApproval":
          // (a call that is not told of waits, a stream's, settles when the turn ends, unless a turnEnd hook failed on the wait)
          if (onWaiting) reject(resumableEnd(session, onWaiting));
          else if (session.runtime?.turnEndFailure) reject(session.runtime.turnEndFailure);
          return;
      }
    };
    session.actor.subscribe({ next: check, error: reject });
    check();
  });
}

/**
 * Stops the turn when the caller's signal aborts (`turn-aborted`, the signal's reason its cause). The
 * listener goes when the turn ends, or when the returned function is called: one long-lived signal given
 * to many calls would otherwise keep every finished turn (and warn of a listener leak). With
 * `keepWaiting`, a turn that waits for a person is saved, not stopped (a conversation's): an abort then
 * changes nothing.
 */
export function linkSignal(session: TurnSession, signal: AbortSignal | undefined, options: { keepWaiting?: boolean } = {}): () => void {
  const none = (): void => undefined;
  if (!signal) return none;
  const stop = (): void => {
    const now = session.actor.getSnapshot();
    if (now.status !== "active" || (options.keepWaiting && now.value === "awaitingApproval")) return;
    session.error = new FunctaiError("turn-aborted", "the turn was aborted", { cause: signal.reason });
    tell(session, { type: "STOP" });
  };
  if (signal.aborted) {
    stop();
    return none;
  }
  if (session.actor.getSnapshot().status !== "active") return none;
  signal.addEventListener("abort", stop, { once: true });
  const release = (): void => signal.removeEventListener("abort", stop);
  session.actor.subscribe({ error: release, complete: release });
  return release;
}

interface RootOptions {
  settings: Settings;
  input: Record<string, unknown>;
  history?: readonly EarlierTurn[];
  signal?: AbortSignal | undefined;
  /** Keep each model call for the prediction's `steps` (`predict`). */
  keepSteps?: boolean;
}

/** A plain call: nobody to ask, nothing kept. */
export async function runPlain<T>(def: Definition, options: RootOptions): Promise<Prediction<T>> {
  const turn = newTurnId();
  const session = startTurn(
    {
      turn,
      name: def.name,
      mode: "plain",
      keepSteps: options.keepSteps ?? false,
      journal: () => new Journal({ turn, attempt: 1 }),
      execute: (runtime) => def.execute(rootFrame(runtime, def.name, options.settings), options.input, options.history ?? []),
    },
    { streaming: false },
  );
  const result = resultOf<T>(session);
  session.actor.start();
  linkSignal(session, options.signal);
  const value = await result;
  const runtime = session.runtime!;
  return { result: value, steps: runtime.steps, usage: { ...runtime.usage } };
}

/** The answer a stream is given (its verdict and the reason the model would see), checked against one given before. */
export interface GivenAnswer {
  verdict: "yes" | "no";
  reason: string | null;
}

/**
 * An answer given again to approvals already answered: the same answer changes nothing; another (a no after a yes,
 * a yes after a no, another reason) would be dropped without a word while its caller believes it taken, so it is
 * refused, as over the WebSocket wire (`approval-answered`): the first answer stands.
 */
function sameAsGiven(turn: string, answers: Record<string, MachineAnswer>, ids: readonly string[], given: GivenAnswer | undefined): void {
  if (given === undefined) return;
  for (const id of ids) {
    const first = answers[id]!;
    if (first.verdict === given.verdict && (given.verdict === "yes" || (first.reason ?? null) === given.reason)) continue;
    const said = first.verdict === "yes" ? "yes" : `no${first.reason === null ? "" : ` (${first.reason})`}`;
    throw new FunctaiError("approval-answered", `turn ${turn}: approval ${id} was already answered ${said}; that answer stands`);
  }
}

/**
 * An answer the turn could never take is refused (it would be dropped, and the caller would wait for
 * nothing): to a turn that ended, to an id this turn never asked about, or to "all" before anything was
 * asked. Answering again (an id answered, or "all" once answers were given and nothing waits) changes nothing when
 * it is the same answer; another answer (`given`: a plain stream's) is refused, `approval-answered`.
 * A conversation's stream refuses the same (see `controls` in conversation/driver.ts).
 */
export function answerable(session: TurnSession, id: string | undefined, given?: GivenAnswer): void {
  const { status, value, context } = session.actor.getSnapshot();
  const { turn } = session.host;
  if (status !== "active") throw new FunctaiError("turn-state", `turn ${turn} is ${String(value)}: nothing waits for an answer any more`);
  if (id === undefined) {
    if (context.pending.length > 0) return;
    if (Object.keys(context.answers).length > 0) return sameAsGiven(turn, context.answers, Object.keys(context.answers), given);
    throw new FunctaiError("turn-state", `turn ${turn} is ${String(value)} and has asked nothing yet; answer on an "approval" event`);
  }
  // own keys only: an id such as "toString" is not an answer given
  if (context.pending.some((a) => a.id === id)) return;
  if (Object.hasOwn(context.answers, id)) return sameAsGiven(turn, context.answers, [id], given);
  const waiting = context.pending.map((a) => a.id).join(", ") || "none";
  throw new FunctaiError(
    "approval-unknown",
    `turn ${turn} has no approval ${id} (waiting: ${waiting}); answer on an "approval" event, with its approval's id`,
  );
}

/** Stops the turn; a turn that already ended is left as it is (stopping it again is no error). */
function stop(session: TurnSession): void {
  if (session.actor.getSnapshot().status === "active") tell(session, { type: "STOP" });
}

/** A streamed call: events as they come; approvals answered in this process (the turn replays its journal after each answer). */
export function runStream<T>(def: Definition, options: RootOptions): TurnStream<T> {
  const turn = newTurnId();
  let journal: Journal | null = null;
  const session = startTurn(
    {
      turn,
      name: def.name,
      mode: "stream",
      // each run starts from what the earlier runs recorded: nothing is asked or run twice
      journal: () => (journal = new Journal({ turn, attempt: 1, records: journal?.records ?? [], keep: true })),
      execute: (runtime) => def.execute(rootFrame(runtime, def.name, options.settings), options.input, options.history ?? []),
    },
    { streaming: true },
  );
  const stream = new TurnStream<T>(
    session,
    {
      endsWhenWaiting: false,
      approve: async ({ id, by }) => {
        answerable(session, id, { verdict: "yes", reason: null });
        tell(session, { type: "APPROVE", ...(id === undefined ? {} : { id }), by: by ?? null });
      },
      deny: async (reason, { id, by }) => {
        answerable(session, id, { verdict: "no", reason: reason ?? null });
        tell(session, { type: "DENY", ...(id === undefined ? {} : { id }), reason: reason ?? null, by: by ?? null });
      },
      abort: () => stop(session),
    },
    resultOf<T>(session),
  );
  session.actor.start();
  linkSignal(session, options.signal);
  return stream;
}
