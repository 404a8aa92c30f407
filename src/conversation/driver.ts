/**
 * Running a conversation's turn in this process: start a session for a
 * turn just sent, or continue one (rehydrated from its snapshot, its
 * journal replayed), keep its snapshots, wait for its result (or its wait for a person),
 * and the controls a stream answers it with.
 */
import type { ApprovalRule } from "../approval/types.js";
import { checkModel } from "../engine/ai-call.js";
import { ConversationError, FunctaiError, isErrorCode, isInstance } from "../errors.js";
import { NeedsPerson, type DelegatedWait } from "../engine/runtime.js";
import { keptInputs, type Definition } from "../functions/definition.js";
import { answerable, resultOf, resumableEnd } from "../turn/run.js";
import type { ConversationState, TurnInfo } from "../records/read-conversation.js";
import type { Settings } from "../settings.js";
import { startTurn, tell, type TurnSession } from "../turn/session.js";
import type { StreamControls } from "../turn/stream.js";
import { claimedElsewhere, recordAnswer, stalledError, stopWaitingTurn, turnIn, type Answer } from "./answers.js";
import { ConversationHost } from "./host.js";
import { historyOf, type ConversationLog } from "./log.js";
import { approvalKey } from "../records/keys.js";
import { approvalOf, delegatedWaiting } from "./waiting.js";

/** What a conversation's turns share: its log, the program, the settings. */
export interface ConversationContext {
  readonly log: ConversationLog;
  readonly def: Definition;
  readonly settings: () => Settings;
  /** A call that goes on with a turn it sent before (a send's key, a delegate's request): its signal stops the turn. */
  readonly signal?: AbortSignal | undefined;
  /** …and its calling turn's check before each effect (a delegate's caller: see Once.upstream). */
  readonly upstream?: ((afterWait?: boolean) => void | Promise<void>) | undefined;
}

/**
 * Refuses, before anything is written, a turn this process cannot go on
 * with: no model to run it, or kept inputs its program's schema no longer
 * reads (the continued turn's host checks them again, see continueTurn). An
 * answer that leaves nothing waiting is checked so, whoever gives it (a
 * handle's `approve()`, a server's answer): written first, the yes would
 * leave every list while the turn could not go on here.
 */
export function checkRunnable(ctx: ConversationContext, info: TurnInfo): void {
  checkModel(ctx.def, ctx.settings());
  keptInputs(ctx.def, info.inputs);
}

/**
 * The machine a `snapshot` record's snapshot is of. A record names it
 * (`{ machine: "turn@1", snapshot }`); one of another machine or version
 * (or none: records older than the name) is not restored, and the turn goes
 * on by replaying its journal instead.
 */
export const MACHINE = "turn@1";

/** The persisted actor snapshot a `snapshot` record holds, when it is of this machine. */
export function restorable(kept: unknown): { value?: unknown } | null {
  if (typeof kept !== "object" || kept === null) return null;
  const { machine, snapshot } = kept as { machine?: unknown; snapshot?: unknown };
  return machine === MACHINE && typeof snapshot === "object" && snapshot !== null ? (snapshot as { value?: unknown }) : null;
}

/** What a turn that stopped for a person rejects with, made once its snapshot is kept. */
export type WaitingError = () => Promise<Error>;

const snapshots = new WeakMap<TurnSession, Promise<void>>();

/**
 * Keeps the actor's persisted snapshot as a `snapshot` record each time the
 * turn stops for a person (after its `waiting` record), so another process
 * rehydrates the same actor from it. Call before `actor.start()`.
 */
export function keepSnapshots(session: TurnSession): void {
  const host = session.host as { note?: (snapshot: unknown) => Promise<void> };
  if (!host.note) return;
  let previous: unknown = null;
  session.actor.subscribe((snapshot) => {
    const entered = snapshot.value === "awaitingApproval" && previous === "running";
    previous = snapshot.value;
    if (!entered) return;
    const before = snapshots.get(session) ?? Promise.resolve();
    // names, ids and JSON inputs only (the machine's context holds no functions): JSON keeps it whole. Should it
    // not, the keeping fails (as a store write that fails does), never this subscriber: thrown here, it would be an
    // uncaught exception in the actor, ending the process
    const persisted = (async () => JSON.parse(JSON.stringify(session.actor.getPersistedSnapshot())) as unknown)();
    persisted.catch(() => undefined); // (told through the chain below; not unhandled when an earlier keeping failed first)
    snapshots.set(
      session,
      before.then(async () => host.note!({ machine: MACHINE, snapshot: await persisted })),
    );
  });
}

/** Waits until the turn's snapshot (if any) is kept: before anyone is told the turn waits. */
export const snapshotKept = (session: TurnSession): Promise<void> => snapshots.get(session) ?? Promise.resolve();

/**
 * Resolves to the turn's answer; a turn that stops for a person rejects with what `waiting` makes, unless its
 * records say another process answered it meanwhile: then it settles as they say (`waitingOrRecorded`), never
 * with a `Waiting` that lists nothing to answer.
 */
export async function resultOrWait(session: TurnSession, log: ConversationLog, waiting: WaitingError): Promise<unknown> {
  let waited = false;
  const result = resultOf(session, () => {
    waited = true;
    return "waiting";
  });
  try {
    return await result;
  } catch (e) {
    // (a turnEnd hook that failed on a resumable end: the end is kept, the call says the plugin failed, resumableEnd)
    if (waited || session.actor.getSnapshot().value === "awaitingApproval") {
      await snapshotKept(session); // (the hook has run by then)
      const failure = resumableEnd(session, () => undefined);
      if (failure !== undefined) throw failure;
      return await waitingOrRecorded(log, session.host.turn, waiting);
    }
    return await stoppedFor(resumableEnd(session, () => e), waiting);
  }
}

/**
 * What a run that stopped with `e` rejects with: a `Waiting` when a delegated
 * turn of it waits for approvals (its approvals, and where they wait: see
 * delegatedWaiting), so a caller that answers a wait as any other (`e
 * instanceof Waiting`) is told this one too; else `e` as it is.
 */
export async function stoppedFor(e: unknown, waiting: WaitingError): Promise<never> {
  if (isInstance(e, NeedsPerson) && (e as NeedsPerson).waiting) throw await delegatedWaiting(waiting, e as NeedsPerson & { waiting: DelegatedWait });
  throw e;
}

/**
 * What the turn asks now, refused before anything is written (an answer is recorded for approvals a person was
 * shown, never kept for ones asked later): refused as a plain stream refuses it (`answerable`: `turn-state` before
 * the turn asked anything or once it ended, `approval-unknown` for an id it never asked about); an answer given
 * again once the turn went on is `approval-answered`, as the records say of it.
 */
function askedNow(session: TurnSession, id: string | undefined): void {
  answerable(session, id);
  // (approvals pending: the actor waits, its waiting record written before it left `running`)
  if (session.actor.getSnapshot().context.pending.length > 0) return;
  throw new ConversationError("approval-answered", `turn ${session.host.turn}: ${id ?? "its approvals"} already answered here; the turn went on`);
}

/**
 * Tells the actor what the records now say of the approvals it shows: this answer for those it was written for, and
 * the answer another person wrote first for those they answered meanwhile (the first answer written stands: the run
 * here goes on with it, never with this one, which the records do not keep).
 */
function tellAnswered(session: TurnSession, given: Answer, written: { info: TurnInfo; chosen: readonly { id: string }[] }): void {
  const command = (verdict: "yes" | "no", id: string, by: string | null, reason: string | null) =>
    verdict === "yes" ? ({ type: "APPROVE", id, by } as const) : ({ type: "DENY", id, by, reason } as const);
  for (const a of written.chosen) tell(session, command(given.verdict, a.id, given.by, given.reason));
  const mine = new Set(written.chosen.map((a) => a.id));
  for (const a of session.actor.getSnapshot().context.pending) {
    if (mine.has(a.id)) continue;
    let theirs: TurnInfo["answers"][number] | undefined; // (the last answer written for it)
    for (const r of written.info.answers) if (approvalKey(r.site, r.invocation, r.plugin) === a.id) theirs = r;
    if (theirs) tell(session, command(theirs.verdict, a.id, theirs.by, theirs.reason));
  }
}

/**
 * Stops the turn. One that waits (saved: no run here records its end) is ended `stopped` in its records first
 * (conditionally, see stopWaitingTurn), as a running one is by its run: the stream's promise settles once the end
 * is written, or rejects with why it was not (answered or claimed meanwhile elsewhere: it goes on there).
 */
function stopTurn(session: TurnSession, log: ConversationLog, reason?: string): void {
  const now = session.actor.getSnapshot();
  if (now.status !== "active") return;
  if (now.value === "awaitingApproval")
    session.run = stopWaitingTurn(log, session.host.turn, reason).catch((e: unknown) => void (session.error = e));
  tell(session, reason === undefined ? { type: "STOP" } : { type: "STOP", reason });
}

/**
 * Refuses, before an answer that leaves nothing waiting is written, a turn its stream's process cannot go on with
 * (no model here): as a handle's answer is refused (see checkRunnable), never a yes spent on a turn that then fails
 * here and waits, answered, in nobody's list. (Its kept inputs were read when the stream began.)
 */
function goesOnHere(session: TurnSession): () => void {
  return () => {
    const { host } = session;
    if (host instanceof ConversationHost) checkModel(host.options.def, host.options.settings);
  };
}

/**
 * A conversation stream's answers: recorded first (so any process sees them), then sent to the actor. A stop asked
 * while an answer is on its way (written, not yet told to the actor) waits for it: stopped first, the actor would
 * never take the answer written meanwhile, and the turn would be left answered with nobody to run it; after it, the
 * turn is stopped as it then is (running here: its run ends it `stopped`; still waiting: ended as a wait is).
 */
export function controls(session: TurnSession, log: ConversationLog): StreamControls & { abort(reason?: string): void } {
  const turn = session.host.turn;
  const runnable = goesOnHere(session);
  const onTheirWay = new Set<Promise<unknown>>();
  const answer = async (given: Answer): Promise<void> => {
    const { id } = given;
    askedNow(session, id);
    // an answer to all is to all this stream shows: one the turn asked for since (it went on elsewhere) is not answered unseen
    const among = id === undefined ? new Set(session.actor.getSnapshot().context.pending.map((a) => a.id)) : undefined;
    const writing = recordAnswer(log, turn, { ...given, among }, undefined, runnable);
    onTheirWay.add(writing);
    let written: Awaited<typeof writing>;
    try {
      written = await writing;
    } finally {
      onTheirWay.delete(writing);
    }
    tellAnswered(session, given, written);
  };
  return {
    endsWhenWaiting: true,
    approve: ({ id, by }) => answer({ verdict: "yes", by: by ?? null, reason: null, id }),
    deny: (reason, { id, by }) => answer({ verdict: "no", by: by ?? null, reason: reason ?? null, id }),
    abort: (reason?: string) => {
      if (onTheirWay.size === 0) return stopTurn(session, log, reason);
      // (each answer's own continuation, told to the actor, runs before this one: it was awaited first)
      void Promise.allSettled([...onTheirWay]).then(() => stopTurn(session, log, reason));
    },
  };
}

/**
 * What a turn seen waiting here settles to, its records read again: `waiting()` (a `Waiting`) while it still
 * waits for a person; else what its records say (another process answered it meanwhile): its answer when it
 * ended done, `turn-claimed` while it runs elsewhere, `approval-answered` while it is answered but not yet
 * claimed, the recorded error of a turn that ended otherwise. Never a `Waiting` with no approvals to answer.
 */
export async function waitingOrRecorded(log: ConversationLog, turn: string, waiting: WaitingError): Promise<unknown> {
  for (let looks = 1; ; looks++) {
    const info = turnIn(await log.read(), log, turn);
    switch (info.state) {
      case "waiting": {
        if (info.waiting.length === 0)
          throw new ConversationError(
            "approval-answered",
            `turn ${turn}: its approvals were answered elsewhere; it goes on where they were answered`,
          );
        // `waiting()` reads the turn again: a person who answered in between (shown the wait as it was written) may
        // have run it to its end elsewhere, and its Waiting would list nothing to answer: read again, settled so
        const told = await waiting();
        if (looks >= 3 || ((told as { approvals?: readonly unknown[] }).approvals?.length ?? 0) > 0) throw told;
        continue;
      }
      case "done":
        return info.ended?.value;
      case "running":
        throw info.stalled ? stalledError(info) : claimedElsewhere(info);
      case "interrupted":
        throw new ConversationError("turn-state", `turn ${turn} was answered elsewhere and is interrupted there: resume() it`);
      default:
        throw recordedError(info.ended?.error) ?? new ConversationError("turn-state", `turn ${turn} is ${info.state}`);
    }
  }
}

/** The error a turn ended with, as its record keeps it (code and message), when its code is one this version knows. */
export function recordedError(error: unknown): FunctaiError | undefined {
  const recorded = error as { code?: unknown; message?: unknown } | undefined;
  return isErrorCode(recorded?.code) && typeof recorded.message === "string" ? new FunctaiError(recorded.code, recorded.message) : undefined;
}

/** Starts the session of a turn just sent here (its first records written, its lease held). Started. */
export function startSent(host: ConversationHost, streaming: boolean): TurnSession {
  const session = startTurn(host, { streaming });
  keepSnapshots(session);
  session.actor.start();
  return session;
}

/** How a continued turn starts: from where it was interrupted, waiting for answers given here (a stream), or from its snapshot. */
export type ContinueFrom = "interrupted" | "awaitingApproval" | undefined;

export interface ContinueOptions {
  streaming: boolean;
  /** Runs before the claim (what a person said of unfinished tools); may give the conversation's length it left. */
  prepare?: () => Promise<number | void>;
  /** The conversation's length as last read: the claim expects it (a stale one costs a re-read). */
  length?: number;
  /** A person's answer to all of the turn's waiting approvals: recorded with the claim, in one append. */
  answer?: Answer;
  /**
   * Called before the actor starts: a stream listens here, so it shows the actor's first `state` events (numbered
   * from 1); `host.opened` settles as the turn is opened here (see ConversationHost).
   */
  listen?: (session: TurnSession, host: ConversationHost) => void;
}

/** A session that continues a turn (it claims the turn at its first run). Started. */
export function continueTurn(
  ctx: ConversationContext,
  state: ConversationState,
  info: TurnInfo,
  start: ContinueFrom,
  options: ContinueOptions,
): TurnSession {
  const settings = ctx.settings();
  // the rule the turn was sent with holds unless this handle gives one
  if (settings.approve === undefined && (typeof info.approve === "string" || Array.isArray(info.approve)))
    settings.approve = info.approve === "function" ? "changes" : (info.approve as ApprovalRule);
  const host = new ConversationHost({
    def: ctx.def,
    settings,
    log: ctx.log,
    turn: info.id,
    inputs: keptInputs(ctx.def, info.inputs),
    history: historyOf(state, info.parent),
    attempt: info.attempt,
    claimed: false,
    length: options.length ?? 0,
    ...(options.prepare ? { prepare: options.prepare } : {}),
    ...(options.answer ? { answer: options.answer } : {}),
    ...(ctx.upstream ? { upstream: ctx.upstream } : {}),
  });
  const snapshot = start !== "interrupted" ? restorable(info.snapshot) : null;
  // answered here (a stream): the actor waits with the turn's unanswered approvals
  const pending = start === "awaitingApproval" ? info.waiting.map(approvalOf) : undefined;
  const session =
    snapshot?.value === "awaitingApproval" && !pending
      ? startTurn(host, { streaming: options.streaming, snapshot })
      : startTurn(host, { streaming: options.streaming, input: pending ? { start: "awaitingApproval", pending } : { start: start ?? "running" } });
  keepSnapshots(session);
  options.listen?.(session, host);
  session.actor.start();
  if (!pending && session.actor.getSnapshot().value === "awaitingApproval") tell(session, { type: "RESUME" });
  if (session.actor.getSnapshot().value === "interrupted") tell(session, { type: "RESUME" });
  return session;
}
