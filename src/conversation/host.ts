import type { Approval } from "../approval/types.js";
import type { Definition } from "../functions/definition.js";
import type { EarlierTurn } from "../engine/ai-call.js";
import { frameCarrier } from "../engine/carrier.js";
import { rootFrame } from "../engine/frame.js";
import { Journal, type JournalFamily, type JournalSink, type RecordBody } from "../engine/journal.js";
import { checkModel } from "../engine/ai-call.js";
import { LeaseLost, NeedsPerson, type KeptEnd, type TurnRuntime } from "../engine/runtime.js";
import { outputNotJson } from "../engine/tool-boundary.js";
import { FunctaiError, describeError, type ErrorCode } from "../errors.js";
import { makeRecord } from "../records/make.js";
import type { ConversationRecord } from "../records/types.js";
import { isoAt, type Clock } from "../runtime/clock.js";
import type { Usage } from "../lm/types.js";
import type { Settings } from "../settings.js";
import type { Store } from "../store/types.js";
import type { TurnEnd, TurnHost } from "../turn/session.js";
import { recordAnswer, type Answer } from "./answers.js";
import { fence, Lease, leaseTiming } from "./lease.js";
import { ConversationLog, type AppendIfOptions } from "./log.js";
import { isStoreFailure, markStoreFailure } from "../store/failures.js";
import { waitingOf } from "./waiting.js";

export interface HostOptions {
  def: Definition;
  settings: Settings;
  /** The conversation's log (its store, id and clock). */
  log: ConversationLog;
  turn: string;
  inputs: Record<string, unknown>;
  history: readonly EarlierTurn[];
  /** The lease attempt already held (a new turn's first), or the last one seen (a turn to claim). */
  attempt: number;
  /** Whether this process holds the lease now (set for a new turn; a continued turn claims at its first run). */
  claimed: boolean;
  /** The store length this process last saw. */
  length: number;
  holder?: string;
  /** Runs before the turn is claimed (what a person said of unfinished tools); a refusal there ends nothing. */
  prepare?: () => Promise<number | void>;
  /**
   * A person's answer to all of the turn's waiting approvals, recorded in the claim's own append (a refusal there ends
   * nothing). Only for a store without `liveness` (see Turn's answers): there the lock is taken before any lease is
   * written, so an answer given while the turn runs elsewhere would be refused as `turn-claimed`, not `approval-answered`.
   */
  answer?: Answer;
  /** The calling turn's check before an effect (a delegated turn's caller, see Once.upstream), asked before this turn's own. */
  upstream?: (afterWait?: boolean) => void | Promise<void>;
}

/** How a turn's own batches are appended: after what it last saw (no read first), fenced; kept before they resolve, or not. */
const KEPT: AppendIfOptions = { readFirst: false, durable: true, maxTries: 21 };
const RIDING: AppendIfOptions = { readFirst: false, durable: false, maxTries: 21 };
/** Of a store's failures, those that may pass (it was down, or raced): a turn whose journal failed of one stops without ending (see `onEnd`). */
const MAY_PASS: ReadonlySet<ErrorCode> = new Set(["store-io", "store-conflict"]);
/** The holder of a lease that says this process let the turn go: it names no process, so nobody reads it alive. */
export const LET_GO = "let-go:";
/** How long a turn let go here keeps trying to say so, while the store refuses. */
const LET_GO_FOR_MS = 10 * 60_000;

/** Whether `a` (as read) is the reply record `b` (as written: the store adds its seq). */
function sameReply(a: object, b: object): boolean {
  type Reply = { kind?: unknown; turn?: unknown; attempt?: unknown; key?: unknown; at?: unknown };
  const [x, y] = [a as Reply, b as Reply];
  return x.kind === "reply" && x.turn === y.turn && x.attempt === y.attempt && x.key === y.key && x.at === y.at;
}

/** `promise`, marked handled: its rejection is for whoever awaits it, never an unhandled one when nobody does. */
function handled<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

/** The `ended` record of a run's end. */
function endedBody(end: KeptEnd, { inputTokens, outputTokens }: Usage): RecordBody {
  const usage = { input_tokens: inputTokens, output_tokens: outputTokens };
  if (end.state === "done") return { kind: "ended", state: "done", outputs: { result: end.result }, value: end.result, usage };
  if (end.state === "failed") {
    const error = { code: end.error instanceof FunctaiError ? end.error.code : null, message: describeError(end.error) };
    return { kind: "ended", state: "failed", error, usage };
  }
  return { kind: "ended", state: "stopped", error: { code: "turn-aborted", message: end.reason }, usage };
}

/**
 * A conversation turn's host: journal on the store, a lease renewed while
 * it runs, claims by conditional append, and the records of waiting and
 * ending.
 */
export class ConversationHost implements TurnHost {
  readonly mode = "conversation" as const;
  readonly turn: string;
  readonly name: string;
  readonly conversation: { id: string; store: Store };
  readonly lease: Lease;
  readonly clock: Clock;
  #length: number;
  #journal: Journal | null = null;
  /** The turn's own appends, after the length it last saw (fenced: a newer claim or a stop ends the run). */
  #tail: ConversationLog | null = null;
  #fresh: boolean;
  /** A turn run by a delegated call shares its caller's family: no reply of either is paid twice after a crash. */
  readonly #family: JournalFamily | undefined = frameCarrier.get()?.runtime.journal.family;
  /** How this host's first run opened the turn (undefined until it did, or was refused). */
  #openedAs: { error: unknown } | null | undefined;
  /** Who waits for it to open (made only when asked: most turns are never streamed). */
  #openWaiters: { promise: Promise<void>; resolve: () => void; reject: (e: unknown) => void } | undefined;

  /**
   * Settles as this host's first run opens the turn here (what a person said recorded, the turn claimed), or is
   * refused (rejects with the refusal: nothing of the run was written). A stream of a continued turn shows its
   * events once it is open (see ConversationStream).
   */
  get opened(): Promise<void> {
    const as = this.#openedAs;
    if (as !== undefined) return as === null ? Promise.resolve() : handled(Promise.reject(as.error));
    if (this.#openWaiters === undefined) {
      let settle!: { resolve: () => void; reject: (e: unknown) => void };
      // (a stream nobody reads: the refusal is told by the run, never left unhandled)
      const promise = handled(new Promise<void>((resolve, reject) => (settle = { resolve, reject })));
      this.#openWaiters = { promise, ...settle };
    }
    return this.#openWaiters.promise;
  }

  /** The first run's opening: told to whoever waits for it (see `opened`); later runs' are not. */
  #openedWith(error?: { error: unknown }): void {
    if (this.#openedAs !== undefined) return;
    this.#openedAs = error ?? null;
    if (error === undefined) this.#openWaiters?.resolve();
    else this.#openWaiters?.reject(error.error);
  }

  constructor(readonly options: HostOptions) {
    const { log, settings } = options;
    this.turn = options.turn;
    this.name = options.def.name;
    this.conversation = { id: log.id, store: log.store };
    this.clock = log.clock;
    this.#fresh = options.claimed;
    this.#length = options.length;
    this.lease = new Lease(log, this.turn, options.attempt, options.claimed, leaseTiming(settings.lease), options.holder);
  }

  get holder(): string {
    return this.lease.holder;
  }

  /** The conversation's length after a write made for this turn (its first records): the turn's own appends expect it. */
  wrote(length: number): void {
    this.#length = length;
  }

  /**
   * A newer claim, a stop or an end another process wrote, as this host's writes of an attempt found it: every
   * later write of that attempt is refused with it. Once found, those records lie behind the length the turn's own
   * appends expect (they read them to find it), so a write that tries first on what it last saw is never shown
   * them again: a reply kept in the background, or a snapshot, would land after the other process's records.
   */
  #fenced: { attempt: number; lost: LeaseLost } | undefined;

  /** The attempt whose end (done, failed or stopped) was kept before its turnEnd hooks were told (see #keepEnd). */
  #endKept: number | undefined;

  /** The attempt this process let go of (`letGo`), or asked to before it was claimed: none of its writes is made after. */
  #gone: { attempt: number | null; lost: LeaseLost } | undefined;
  /** The attempt whose let-go lease was written (or is being tried): written once. */
  #saidGone: number | undefined;
  /**
   * Paid replies of batches the store refused (a blip): written with the let-go (`#letGo`), once the store takes it,
   * so the turn resumed replays them. Dropped, a keyed retry after the store error paid for each of them again.
   */
  #unkept: object[] = [];

  /** Refuses a write of `attempt` once the turn is another's (see `#fenced`), or was let go here (but the let-go lease itself). */
  #fence(fresh: readonly ConversationRecord[], attempt: number, lettingGo = false): void {
    const fenced = this.#fenced;
    if (fenced && fenced.attempt === attempt) throw fenced.lost;
    if (!lettingGo && this.#gone?.attempt === attempt) throw this.#gone.lost;
    try {
      fence(fresh, this.turn, attempt);
    } catch (e) {
      if (e instanceof LeaseLost) this.#fenced = { attempt, lost: e };
      throw e;
    }
  }

  #tailAt(length: number): ConversationLog {
    return new ConversationLog(this.options.log.store, this.options.log.id, this.options.log.clock, length);
  }

  async journal(): Promise<Journal> {
    try {
      const journal = await this.#open();
      this.#openedWith();
      return journal;
    } catch (e) {
      this.#openedWith({ error: e });
      throw e;
    }
  }

  async #open(): Promise<Journal> {
    const { log, prepare, answer } = this.options;
    if (prepare) {
      delete this.options.prepare;
      const length = await prepare();
      if (typeof length === "number") this.#length = length;
    }
    await this.lease.holdLock();
    try {
      const journal = await this.#claimAndOpen(log, answer);
      // let go while it was being claimed (the server closed meanwhile): it goes no further here
      if (this.#gone?.attempt === null) {
        await this.letGo(this.#gone.lost);
        throw this.#gone.lost;
      }
      return journal;
    } catch (e) {
      // the turn does not run: a liveness lock taken for it goes (a lease it won then reads interrupted, not alive)
      this.lease.stop();
      if (this.lease.held) void this.#letGo(); // won, then failed (a read the store refused): others are told it runs nowhere
      this.lease.releaseLock();
      throw e;
    }
  }

  async #claimAndOpen(log: ConversationLog, answer: Answer | undefined): Promise<Journal> {
    // a turn this process could not run is not claimed (it would fail for good): refused with nothing written
    const runnable = (): void => checkModel(this.options.def, this.options.settings);
    this.#unkept = []; // (an earlier attempt's, written with its let-go or not at all: never under a newer claim)
    if (answer && !this.lease.held) {
      // answered and claimed in one append, on what the conversation's log reads now
      delete this.options.answer;
      this.#length = (await recordAnswer(log, this.turn, answer, this.lease, runnable)).length;
    }
    if (!this.lease.held) {
      runnable();
      const claim = this.#tailAt(this.#length);
      await this.lease.claim(claim);
      this.#length = claim.length;
    }
    // a turn just sent has recorded nothing yet: no need to read; one the conversation has read goes on from its records
    let records: ConversationRecord[] = [];
    if (!this.#fresh) {
      const walked = await log.turnRecords(this.turn);
      if (walked) [records, this.#length] = [walked.records, walked.length];
      else {
        records = await log.store.read(log.id).catch((e: unknown) => Promise.reject(markStoreFailure(e, log)));
        if (records.length > 0) this.#length = records[records.length - 1]!.seq;
      }
    }
    this.#fresh = false;
    const tail = (this.#tail = this.#tailAt(this.#length));
    const { attempt } = this.lease;
    const sink: JournalSink = {
      write: (batch, durable) =>
        tail.appendIf(({ fresh }) => (this.#fence(fresh, attempt), { append: batch, value: undefined }), durable ? KEPT : RIDING).catch(
          (e: unknown) => {
            // the store refused the batch: its paid replies are not dropped (see #unkept), unless the turn is another's now
            if (!(e instanceof LeaseLost)) for (const r of batch) if ((r as { kind?: unknown }).kind === "reply") this.#unkept.push(r);
            throw e;
          },
        ),
    };
    const journal = (this.#journal = new Journal({
      turn: this.turn,
      attempt,
      records,
      sink,
      clock: log.clock,
      ...(this.#family && { family: this.#family }),
    }));
    await this.lease.start(async (until) => {
      await journal.add({ kind: "lease", holder: this.holder, until });
      await journal.flush();
    });
    return journal;
  }

  beforeEffect(afterWait?: boolean): void | Promise<void> {
    const upstream = this.options.upstream;
    if (!upstream) return this.lease.check(afterWait);
    // the caller's first: a caller that lost its turn stops this one before it writes anything (its own renewal included)
    const up = upstream(afterWait);
    return up ? up.then(() => this.lease.check(afterWait)) : this.lease.check(afterWait);
  }

  async execute(runtime: TurnRuntime): Promise<unknown> {
    const { def, settings, inputs, history } = this.options;
    runtime.keepEnd = (end) => this.#keepEnd(end, runtime);
    runtime.interruptedBy = (e) => this.#letsGoOn(e);
    const value = await def.execute(rootFrame(runtime, def.name, settings), inputs, history);
    this.#checkAnswer(value);
    return value;
  }

  /**
   * The answer is kept in the turn's `ended` record: one JSON cannot say (a BigInt) failed as the store's
   * input-invalid when written, and the turn was left without its end; it is the answer that is wrong. A NaN or
   * ±Infinity is refused too (as in a tool's output): JSON keeps it as null, so a keyed retry, turn.value and the
   * next turn's history would read null where the live caller read a number.
   */
  #checkAnswer(value: unknown): void {
    const why = outputNotJson(value);
    if (why !== undefined)
      throw new FunctaiError("output-invalid", `${this.options.def.name}: its answer cannot be kept in the conversation (${why}); give an output JSON can hold`);
  }

  /** A failure the turn is let go on, not ended (see onEnd): its own store refused a write, and may take it again. */
  #letsGoOn(e: unknown): boolean {
    return isStoreFailure(e, this.conversation) && MAY_PASS.has(e.code);
  }

  /**
   * Keeps the run's end before the plugins' `turnEnd` hooks are told it (see TurnRuntime.keepEnd): its `ended` record,
   * durable. From here the run is over (a call its body left running acts no more), and what a hook keeps is written
   * after it, by onEnd, which writes no second end.
   */
  async #keepEnd(end: KeptEnd, runtime: TurnRuntime): Promise<void> {
    if (end.state === "done") this.#checkAnswer(end.result);
    runtime.end();
    this.lease.stop(); // (no renewal after the end)
    const journal = this.#journal ?? runtime.journal;
    await journal.add(endedBody(end, runtime.usage), true);
    this.#endKept = this.lease.attempt;
  }

  async onWait(approvals: Approval[]): Promise<void> {
    this.lease.stop();
    const journal = this.#journal!;
    void journal.add({ kind: "waiting", approvals: approvals.map(waitingOf) });
    try {
      await journal.flush(true);
    } catch (e) {
      // not kept: the turn stops here all the same (interrupted, not waiting), and its lock goes with it (its first try
      // at saying so awaited: a keyed retry at once finds it let go, with the paid replies the store refused)
      await this.#letGo();
      this.lease.releaseLock();
      throw e;
    }
    this.lease.releaseLock(); // only once the waiting record is kept
    this.lease.held = false;
    this.#length = this.#tail!.length;
  }

  async onEnd(end: TurnEnd, runtime: TurnRuntime): Promise<void> {
    this.lease.stop();
    // only the process that claimed the turn ends it: a failure before the claim (a refusal, a lost race) records nothing
    if (!this.lease.held) return this.lease.releaseLock();
    const journal = this.#journal ?? runtime.journal;
    if (this.#endKept === this.lease.attempt) {
      // kept before its turnEnd hooks were told (#keepEnd): only what they kept is left to write. A store that refuses
      // it rejects the call with its error; the turn ended all the same (nothing is let go after its end)
      try {
        await journal.flush(true);
      } finally {
        this.lease.releaseLock();
      }
      return;
    }
    if (end.state === "failed" && this.#letsGoOn(end.error)) {
      // the store refused the turn's own records: the turn stops here, but is not over. Written `failed`, a store that
      // came back a moment later would end it for good (a keyed retry told the old store error for ever, a person's yes
      // lost); let go instead, it reads interrupted and goes on when resumed (a tool that may have run stays unfinished).
      // Only an error of functai's own calls to this conversation's store (see store/failures.ts): a program or a tool that throws a store-io of its
      // own (its database is down) failed, and was read interrupted: a keyed retry ran its body again
      await this.#letGo();
      this.lease.releaseLock();
      throw end.error;
    }
    void journal.add(endedBody(end, end.usage));
    try {
      await journal.flush(true);
    } catch (e) {
      await this.#letGo();
      throw e;
    } finally {
      this.lease.releaseLock();
    }
  }

  watch(abort: (reason: LeaseLost) => void): void {
    this.lease.onLost = abort;
  }

  onInterrupt(error?: LeaseLost): void {
    this.lease.stop();
    // stopped here for a person (a tool that may have run, a delegated turn that waits): nobody runs it now, say so
    if (this.lease.lostToStore || error instanceof NeedsPerson) void this.#letGo();
    this.lease.releaseLock();
  }

  /**
   * Lets go of the turn here at once, as this process's exit would (a server
   * that closes): its tools' `ctx.signal` aborts, nothing more of it is
   * written here (a write of this attempt is refused from now, `lease-lost`),
   * and it reads `interrupted` (never `stopped`): any process may resume it,
   * and a tool that had started and not finished is `unfinished`, for a
   * person. The lease is given up (a run-out lease naming no process; with a
   * store whose lock tells liveness, the lock), so another process may claim
   * it at once, not after the lease's time. Resolves once that is said (or
   * the store refused it: then it is tried on in the background). A turn
   * not yet claimed is let go as soon as its claim is won; one that waits
   * for a person (nothing held) is left as it is.
   */
  letGo(lost: LeaseLost): Promise<void> {
    if (!this.lease.held) {
      this.#gone ??= { attempt: null, lost };
      return Promise.resolve();
    }
    if (this.#gone?.attempt === this.lease.attempt) return Promise.resolve();
    this.#gone = { attempt: this.lease.attempt, lost };
    this.lease.letGo(lost);
    const said = this.#letGo();
    this.lease.releaseLock();
    return said;
  }

  /**
   * The turn stops here without its end or its wait kept (the store failed
   * under it), its lease still standing and naming this process, which
   * lives: other processes would read it running (stalled, once the lease
   * runs out) for as long as this process lives. So, once the store takes
   * it, a lease that names no process and has run out says that nobody runs
   * it: they read it interrupted, and a person may resume it. Tried in the
   * background (after 1 s, doubling to 30 s, for LET_GO_FOR_MS); given up on
   * a newer claim, a stop or an end (the fence), or when the record that
   * failed got through after all. Stores whose lock tells liveness need none.
   */
  #letGo(): Promise<void> {
    // (a store whose lock tells liveness needs no let-go lease: only the paid replies it refused are written)
    const leaseToo = !this.conversation.store.liveness;
    if (!this.lease.held || (!leaseToo && this.#unkept.length === 0) || this.#saidGone === this.lease.attempt) return Promise.resolve();
    this.#saidGone = this.lease.attempt;
    const tail = this.#tail ?? this.#tailAt(this.#length); // (none yet: the claim's own length)
    const { turn, clock } = this;
    const { attempt } = this.lease;
    const holder = `${LET_GO}${this.holder}`;
    const giveUpAt = clock.now() + LET_GO_FOR_MS;
    const kept = (r: ConversationRecord): boolean => (r as { turn?: unknown }).turn === turn && (r.kind === "waiting" || r.kind === "ended");
    const attemptOnce = async (delay: number): Promise<void> => {
      const now = clock.now();
      try {
        await tail.appendIf(({ fresh }) => {
          this.#fence(fresh, attempt, true);
          if (fresh.some(kept)) return { append: [], value: undefined }; // its wait or end was written after all
          // the paid replies the store refused, but those it wrote after all (a reply lost on its way back)
          const replies = this.#unkept.filter((r) => !fresh.some((f) => sameReply(f, r)));
          // run out already when written (a reader in the same millisecond reads it run out too)
          const lease = leaseToo ? [makeRecord("lease", { turn, holder, until: isoAt(now - 1), attempt }, now)] : [];
          return { append: [...replies, ...lease], value: undefined };
        }, KEPT);
        this.#unkept = [];
      } catch (e) {
        if (e instanceof LeaseLost || now + delay > giveUpAt) return; // taken, stopped or ended meanwhile; or given up
        clock.after(delay, () => void attemptOnce(Math.min(delay * 2, 30_000))); // (the turn's clock: never keeps a process alive)
      }
    };
    return attemptOnce(1_000);
  }

  /** Appends the actor's persisted snapshot after the turn's records; best effort, never blocks the turn. */
  async note(snapshot: unknown): Promise<void> {
    const tail = this.#tail;
    if (!tail) return;
    const record = makeRecord("snapshot", { turn: this.turn, snapshot }, this.options.log.clock.now());
    await tail
      .appendIf(({ fresh }) => (this.#fence(fresh, this.lease.attempt), { append: [record], value: undefined }), {
        readFirst: false,
        durable: false,
        maxTries: 21,
      })
      .catch(() => undefined);
  }
}
