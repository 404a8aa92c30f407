/**
 * Running conversation turns on in the server process, which has the
 * programs: a companion's answer is recorded (conditionally: answered once),
 * then the turn goes on here and its events are passed to `emit`.
 */
import type { Callable } from "../../../src/functions/callable.js";
import { recordAnswerOf, streamOn } from "../../../src/conversation/internal.js";
import type { ResumeOptions, Turn, Waiting } from "../../../src/conversation/turn.js";
import { FunctaiError, isErrorCode, isFunctaiError } from "../../../src/errors.js";
import { callerPath } from "../../../src/records/keys.js";
import { ConversationLog } from "../../../src/conversation/log.js";
import type { ConversationState, TurnInfo } from "../../../src/records/read-conversation.js";
import { isoAt, type Clock } from "../../../src/runtime/clock.js";
import type { Settings } from "../../../src/settings.js";
import type { Store } from "../../../src/store/types.js";
import type { TurnEvent } from "../../../src/turn/events.js";
import { letGo, type TurnStream } from "../../../src/turn/stream.js";
import type { Approval } from "../../../src/approval/types.js";
import type { Answer } from "../../../src/conversation/answers.js";
import { toWireError } from "../shared/errors.js";
import { wireErrorSchema, type Outcome, type TurnStatus } from "../shared/protocol.js";
import type { ProgramNames } from "./names.js";
import { entriesOf } from "./watch.js";

// biome-ignore lint/suspicious/noExplicitAny: any program, whatever its input and output (a served program is called with what a companion sent)
export type AnyProgram = Callable<any, any>;

/** What the server's turn runners share. */
export interface RunContext {
  readonly store: Store;
  readonly programs: ReadonlyMap<string, AnyProgram>;
  /** The served name of each recorded one (a turn is recorded under its program's own name, served perhaps under another). */
  readonly names: ProgramNames;
  /** Settings of every conversation the server opens (default `{ approve: "changes" }`). */
  readonly settings: Settings;
  /** Where the server's time comes from: conversations it opens, states it reads, events it sends. */
  readonly clock: Clock;
  /** The turns running here, which the server's close lets go of. */
  readonly runs: Runs;
}

/**
 * The streams of the turns the server runs. Its close waits for them
 * (bounded), then lets go of those still running: past close, nothing it
 * started goes on here (pays a model, writes to a store its owner may close).
 */
export class Runs {
  readonly #streams = new Map<TurnStream<unknown>, { saved: boolean }>();
  readonly #gone = new AbortController();

  /**
   * Aborted once the server let go of its turns: what runs here before its stream is made (a keyed call in line
   * behind the head, or waiting for its turn elsewhere) stops there, nothing written, as a turn not yet written is stopped.
   */
  get gone(): AbortSignal {
    return this.#gone.signal;
  }

  /** Keeps `s` while it runs here; one started once the server let go of its turns (its request was past its checks) is let go at once. */
  add(s: TurnStream<unknown>, saved: boolean): void {
    this.#streams.set(s, { saved });
    if (this.#gone.signal.aborted) void this.#letGo(s, saved);
  }

  delete(s: TurnStream<unknown>): void {
    this.#streams.delete(s);
  }

  /**
   * Lets go of every turn still running here (its tools' `ctx.signal`
   * aborts). A conversation's turn reads `interrupted`, as after this
   * process's exit: another server resumes it (a `stream.abort()` would end
   * it `stopped`, for good). One that waits, saved, is left as it is. A
   * caller's call (no conversation) has nothing saved to resume: it is
   * stopped. Resolves once each has said so to the store.
   */
  letGoAll(): Promise<unknown> {
    this.#gone.abort(new FunctaiError("turn-aborted", "the server closed before the turn started"));
    return Promise.allSettled([...this.#streams].map(([s, { saved }]) => this.#letGo(s, saved)));
  }

  #letGo(s: TurnStream<unknown>, saved: boolean): Promise<void> {
    if (!saved) {
      s.abort();
      return Promise.resolve();
    }
    // (only a turn that runs: one that ended, waits or was interrupted holds nothing here)
    return s.state === "running" ? letGo(s) : Promise.resolve();
  }
}

export type Emit = (event: TurnEvent) => void;

/**
 * A conversation's state as every reader of it tells it: with what the
 * store's liveness says (a turn whose holder provably lives reads running,
 * stalled, whatever its lease; one whose holder's lock is gone reads
 * interrupted at once), as the waiting list (watch.ts) and a handle read it.
 */
const readNow = (ctx: RunContext, conversation: string): Promise<ConversationState> => new ConversationLog(ctx.store, conversation, ctx.clock).read();

/** Opens a turn of a stored conversation with the program that sent it (by the `program` record's name). */
export async function openTurn(ctx: RunContext, conversation: string, turn: string): Promise<{ turn: Turn; info: TurnInfo }> {
  const state = await readNow(ctx, conversation);
  const info = state.turns.get(turn);
  if (!info) throw new FunctaiError("turn-state", `conversation ${conversation} has no turn ${turn}`);
  const name = state.programs.get(info.program)?.name;
  // found by the name it was recorded under, never by a served name that only looks like it
  const served = name === undefined ? null : ctx.names.servedAs(name);
  const fn = served === null ? undefined : ctx.programs.get(served);
  if (!fn)
    throw new FunctaiError("remote-unknown-program", `turn ${turn} belongs to a program this server does not serve${name ? ` (${name})` : ""}`);
  return { turn: await fn.conversation(conversation, { ...ctx.settings, store: ctx.store, clock: ctx.clock }).turn(turn), info };
}

/**
 * Forwards a stream's events, then says how it came out (a conversation stream ends when its turn waits again).
 * `continued`: a stored turn gone on with here, which must first be claimed here: refused, its stream throws (see outcomeOf).
 */
export async function pump(runs: Runs, s: TurnStream<unknown>, conversation: string | null, emit: Emit, continued = false): Promise<Outcome> {
  runs.add(s, conversation !== null);
  try {
    return await outcomeOf(s, conversation, emit, continued);
  } finally {
    runs.delete(s);
  }
}

async function outcomeOf(s: TurnStream<unknown>, conversation: string | null, emit: Emit, continued: boolean): Promise<Outcome> {
  try {
    for await (const event of s) emit(event);
  } catch (e) {
    // a continued turn's resume refused before anything of it ran here (another process claimed it, or it ended
    // first): its stream shows none of its events and throws the refusal, which its promise (below) tells
    if (!continued) throw e;
  }
  const base = { conversation, turn: s.turn };
  if (s.state === "awaitingApproval") return { ...base, state: "waiting", approvals: s.pending };
  try {
    const value = await s;
    return { ...base, state: "done", value };
  } catch (e) {
    const error = toWireError(e, "turn");
    // another process claimed the turn first (it woke here after another server resumed it): it goes on there. The
    // stream here reads interrupted, which would tell a companion to resume a turn that runs, or ran, elsewhere
    if (error.code === "turn-claimed") return { ...base, state: "running", error };
    const state = s.state;
    const known = state === "failed" || state === "stopped" || state === "abandoned" || state === "interrupted";
    return { ...base, state: known ? state : "failed", error };
  }
}

/** Records a yes or no, then (when nothing else waits) runs the turn on here, streaming its events. */
export async function answer(
  ctx: RunContext,
  req: {
    conversation: string;
    turn: string;
    verdict: "yes" | "no";
    by?: string | undefined;
    reason?: string | undefined;
    approval?: string | undefined;
    /** Without `approval`: the approvals the companion showed (only those are answered). */
    shown?: string[] | undefined;
  },
  emit: Emit,
): Promise<Outcome> {
  const { turn } = await openTurn(ctx, req.conversation, req.turn);
  // an id-less answer held to what the companion showed: the turn may have gone on to ask for another approval since
  // (another companion answered first; this is a retry after a dropped connection), which nobody here saw
  const among = req.approval === undefined && req.shown !== undefined ? new Set(req.shown) : undefined;
  const given: Answer = { verdict: req.verdict, by: req.by ?? null, reason: req.reason ?? null, id: req.approval, among };
  // the store's conditional append decides a race: exactly one answer is kept, the other gets approval-answered
  const { chosen, rest } = await recordAnswerOf(turn, given);
  // the continued turn's stream does not repeat answers recorded before it started: say them here (seq 0: before its events)
  const at = isoAt(ctx.clock.now());
  for (const approval of chosen)
    emit({
      type: "approved",
      approval,
      verdict: req.verdict,
      by: req.by ?? null,
      reason: req.reason ?? null,
      turn: req.turn,
      seq: 0,
      at,
      path: callerPath(approval.path),
    });
  if (rest > 0) return outcomeNow({ conversation: req.conversation, turn: req.turn }, await turn.refresh());
  return goOn(ctx, turn, req.conversation, emit);
}

/**
 * Goes on with a turn here, streaming its events. One that ended before it
 * could be claimed here (another companion abandoned it between this
 * answer's write and the claim) never ran here: its stream fails
 * (`turn-state`), which is told with the state the turn has, not as a turn
 * that failed.
 */
async function goOn(ctx: RunContext, turn: Turn, conversation: string, emit: Emit): Promise<Outcome> {
  const outcome = await pump(ctx.runs, streamOn(turn), conversation, emit, true);
  if (outcome.state !== "failed" || outcome.error?.code !== "turn-state") return outcome;
  await turn.refresh();
  return turn.state === "abandoned" || turn.state === "stopped" ? { ...outcome, state: turn.state } : outcome;
}

/**
 * How a turn an answer left waiting for others is now, read again: another
 * answer, given meanwhile, may have left nothing waiting and run it on (or
 * be running it). Told as `waiting` with no approvals, the companion would
 * read that the turn waits for a person (`turn-waiting`) with nothing to
 * answer.
 */
export function outcomeNow(base: { conversation: string; turn: string }, turn: Turn): Outcome {
  if (turn.state === "waiting")
    return turn.waiting.length > 0 ? { ...base, state: "waiting", approvals: turn.waiting } : { ...base, state: "running" };
  if (turn.state === "done") return { ...base, state: "done", value: turn.value };
  if (turn.state === "running") return { ...base, state: "running" };
  // (an ended turn's error as recorded, said as a turn's failure is; one interrupted or abandoned has none)
  const recorded = wireErrorSchema.safeParse(turn.error);
  const error = recorded.success
    ? toWireError(new FunctaiError(isErrorCode(recorded.data.code) ? recorded.data.code : "turn-failed", recorded.data.message), "turn")
    : undefined;
  return { ...base, state: turn.state, ...(error ? { error } : {}) };
}

/**
 * Resumes an interrupted turn (results / reruns for unfinished tools). With
 * nothing unfinished and nothing said it streams like an approval;
 * otherwise `Turn.resume` (which has no streaming form yet) checks and
 * records the results, and only the outcome is sent. A result or rerun
 * given for a turn with nothing unfinished goes that way too: it may name
 * no tool call of the turn (a typo, another turn's number), which
 * `Turn.resume` refuses (`input-invalid`); the stream would drop it without
 * a word and run the turn on.
 */
export async function resume(
  ctx: RunContext,
  req: { conversation: string; turn: string; results?: Record<string, unknown> | undefined; rerun?: (string | number)[] | undefined },
  emit: Emit,
): Promise<Outcome> {
  const { turn, info } = await openTurn(ctx, req.conversation, req.turn);
  const answered = info.state === "waiting" && info.waiting.length === 0;
  const said = Object.keys(req.results ?? {}).length > 0 || (req.rerun?.length ?? 0) > 0;
  const goesOn = info.state === "interrupted" || answered;
  if (!said && info.unfinished.length === 0 && goesOn) return goOn(ctx, turn, req.conversation, emit);
  const base = { conversation: req.conversation, turn: req.turn };
  const options: { results?: Record<string, unknown>; rerun?: (string | number)[] } = {};
  if (req.results) options.results = req.results;
  if (req.rerun) options.rerun = req.rerun;
  if (goesOn) return resumeSaid(ctx, turn, options, req.conversation);
  try {
    return { ...base, state: "done", value: await turn.resume(options) };
  } catch (e) {
    // (approvals that wait in a delegated turn are answered there, not in this turn: it reads interrupted until then)
    if (isFunctaiError(e, "turn-waiting") && (e as Waiting).delegated) return { ...base, state: "interrupted", error: toWireError(e, "turn") };
    if (isFunctaiError(e, "turn-waiting")) return { ...base, state: "waiting", approvals: (e as { approvals?: Approval[] }).approvals ?? [] };
    await turn.refresh();
    // refused before it ran (turn-unfinished, turn-state): an error reply; it ran and failed: an outcome. A turn that
    // was failed or stopped before this resume was refused (turn-state), not run: told as an outcome, it would read as
    // though this resume ran it and it failed (an approve of it is an error reply too)
    const ranAndEnded = (turn.state === "failed" || turn.state === "stopped") && info.state !== "failed" && info.state !== "stopped";
    if (ranAndEnded) return { ...base, state: turn.state, error: toWireError(e, "turn") };
    throw e;
  }
}

/**
 * Goes on with an interrupted (or answered) turn with what a person said of
 * its unfinished tools, as a stream: the server's close can let go of it (a
 * `Turn.resume` in flight could not be reached, and ran on after close). Its
 * events are not sent, as `Turn.resume` sends none: a refusal before it ran
 * (`turn-unfinished`, `input-invalid`: nothing written, the turn as it was)
 * ends the stream `failed`, which is an error reply, not an outcome; a turn
 * that ran and ended failed or stopped is an outcome.
 */
async function resumeSaid(ctx: RunContext, turn: Turn, options: ResumeOptions, conversation: string): Promise<Outcome> {
  const s = turn.stream(options) as TurnStream<unknown>;
  const outcome = await pump(ctx.runs, s, conversation, () => undefined);
  if (outcome.state !== "failed" && outcome.state !== "stopped") return outcome;
  await turn.refresh();
  if (turn.state === outcome.state) return outcome;
  await s; // refused before it ran: its error is the reply
  return outcome;
}

export async function abandon(ctx: RunContext, req: { conversation: string; turn: string }): Promise<Outcome> {
  const { turn } = await openTurn(ctx, req.conversation, req.turn);
  await turn.abandon();
  return { conversation: req.conversation, turn: req.turn, state: "abandoned" };
}

/** A turn's state as read now (no program needed). */
export async function status(ctx: RunContext, req: { conversation: string; turn: string }): Promise<TurnStatus> {
  const state = await readNow(ctx, req.conversation);
  const entry = entriesOf(req.conversation, state, ctx.clock.now(), undefined, (p) => ctx.names.shown(p)).find((e) => e.turn === req.turn);
  const info = state.turns.get(req.turn);
  if (!info) throw new FunctaiError("turn-state", `conversation ${req.conversation} has no turn ${req.turn}`);
  return {
    conversation: req.conversation,
    turn: req.turn,
    state: info.state,
    approvals: entry?.approvals ?? [],
    unfinished: entry?.unfinished ?? [],
    ...(info.state === "done" ? { value: info.ended?.value } : {}),
  };
}
