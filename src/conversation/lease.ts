/**
 * A turn's lease: who runs it (the holder, the attempt), until when, the
 * claim that makes one claimant of many win, the renewal while it runs,
 * the fence that stops it on a newer claim or a stop, and (browsers) the
 * Web Lock that proves the holder alive.
 */
import { LeaseLost } from "../engine/runtime.js";
import { ConversationError, describeError } from "../errors.js";
import { makeRecord } from "../records/make.js";
import type { ConversationRecord } from "../records/types.js";
import { isoAt, type ClockTimer } from "../runtime/clock.js";
import { checkLease } from "../settings.js";
import { leaseHolder, runsHere } from "./holder.js";
import { WEB_LOCK, type ConversationLog } from "./log.js";

export const DEFAULT_RENEW_MS = 10_000;
export const DEFAULT_TTL_MS = 30_000;

/** The lease timing a turn runs with (`lease: { renewMs, ttlMs }`, defaults for what is not given), checked as every setting is (`checkLease`). */
export function leaseTiming(lease: unknown): { renewMs: number; ttlMs: number } {
  checkLease(lease);
  const { renewMs = DEFAULT_RENEW_MS, ttlMs = DEFAULT_TTL_MS } = (lease ?? {}) as { renewMs?: number; ttlMs?: number };
  return { renewMs, ttlMs };
}

/** Throws when `fresh` holds a newer claim of `turn` than `attempt`, a stop, or its end (a person abandoned it while it stalled). */
export function fence(fresh: readonly ConversationRecord[], turn: string, attempt: number): void {
  for (const r of fresh) {
    const rec = r as { kind: string; turn?: string; attempt?: number };
    if (rec.turn !== turn) continue;
    if (rec.kind === "lease" && (rec.attempt ?? 0) > attempt)
      throw new LeaseLost(`turn ${turn} was claimed by another process (attempt ${rec.attempt})`);
    if (rec.kind === "stop") throw new LeaseLost(`turn ${turn} was stopped`, true);
    if (rec.kind === "ended") throw new LeaseLost(`turn ${turn} was ended by another process`);
  }
}

/**
 * The liveness lock of a turn not yet written, asked for before the
 * conversation is read: its key is a turn id nobody else knows yet, so it
 * stands in nobody's way, and its round trip (a database session's lock, a
 * Web Lock) overlaps the read instead of following it. The first lease to
 * `take` it owns it; `drop` lets go of one nobody took.
 */
export class EarlyLock {
  readonly #asked: Promise<{ release: () => void } | { error: unknown }>;
  #taken = false;

  constructor(liveness: NonNullable<ConversationLog["store"]["liveness"]>, conversation: string, turn: string) {
    // never rejects by itself: a failure is thrown to whoever takes it, or dropped with it
    this.#asked = liveness.hold(conversation, turn).then(
      (release) => ({ release }),
      (error: unknown) => ({ error }),
    );
  }

  /** The lock's release, once (later calls: undefined, and the caller asks anew); throws why it could not be had. */
  async take(): Promise<(() => void) | undefined> {
    if (this.#taken) return undefined;
    this.#taken = true;
    const got = await this.#asked;
    if ("error" in got) throw got.error;
    return got.release;
  }

  /** Lets go of the lock, unless a lease took it. */
  drop(): void {
    if (this.#taken) return;
    this.#taken = true;
    void this.#asked.then((got) => ("release" in got ? got.release() : undefined));
  }
}

export class Lease {
  readonly holder: string;
  attempt: number;
  /** Whether this process holds the lease now. */
  held: boolean;
  #until = 0;
  #timer: ClockTimer | null = null;
  #release: (() => void) | null = null;
  #lost: LeaseLost | null = null;
  #renewing: Promise<void> | null = null;
  /** Whether the lease was lost because the store refused a renewal (not to a newer claim, a stop or an end). */
  lostToStore = false;
  /** Told when a renewal finds the lease lost (the turn's host aborts its running tools' signal). */
  onLost: ((lost: LeaseLost) => void) | null = null;

  constructor(
    readonly log: ConversationLog,
    readonly turn: string,
    attempt: number,
    held: boolean,
    readonly timing: { renewMs: number; ttlMs: number },
    holder?: string,
  ) {
    // a holder that keeps a Web Lock says so: readers may then trust the lock over a (throttled) lease
    this.holder = holder ?? (log.store.liveness ? `${leaseHolder()}${WEB_LOCK}` : leaseHolder());
    this.attempt = attempt;
    this.held = held;
    if (held) {
      this.#until = log.clock.now() + timing.ttlMs;
      runsHere(this.holder, true);
    }
  }

  /** A lease record for this holder, from now. */
  record(attempt: number): object {
    const now = this.log.clock.now();
    return makeRecord("lease", { turn: this.turn, holder: this.holder, until: isoAt(now + this.timing.ttlMs), attempt }, now);
  }

  /** Claims the turn: a conditional append of a lease with `attempt` + 1. Of many claimants, one wins. */
  async claim(log: ConversationLog): Promise<void> {
    const attempt = this.attempt + 1;
    await log.appendIf(
      ({ fresh }) => {
        for (const r of fresh) {
          const rec = r as { kind: string; turn?: string; attempt?: number };
          if (rec.turn === this.turn && rec.kind === "lease" && (rec.attempt ?? 0) >= attempt)
            throw new LeaseLost(`turn ${this.turn} was claimed by another process first`, false, "turn-claimed");
          // ended with no newer claim before it: nobody else runs it (a person abandoned it meanwhile): say what it is
          if (rec.turn === this.turn && rec.kind === "ended")
            throw new ConversationError(
              "turn-state",
              `turn ${this.turn} is ${String((r as { state?: unknown }).state)}: it ended before it could be claimed here, and does not go on`,
            );
          // asked to stop meanwhile (stop from anywhere): a turn asked to stop is stopped once nobody runs it, never run again
          if (rec.turn === this.turn && rec.kind === "stop")
            throw new ConversationError(
              "turn-state",
              `turn ${this.turn} was stopped before it could be claimed here: it is stopped, and does not go on`,
            );
        }
        return { append: [this.record(attempt)], value: undefined };
      },
      { readFirst: false, maxTries: 50 },
    );
    this.won(attempt);
  }

  /** This holder's lease record of `attempt` was appended (by `claim`, or with a person's answer): the turn is its own. */
  won(attempt: number): void {
    this.attempt = attempt;
    this.#until = this.log.clock.now() + this.timing.ttlMs;
    this.held = true;
    runsHere(this.holder, true);
  }

  /**
   * Takes the turn's Web Lock (browsers) before any lease is written, so a
   * lease of this holder never stands without the lock: a tab that closes
   * frees it at once, and readers find the turn interrupted. A new turn's
   * lock may already be on its way (`early`): then that one is taken.
   */
  async holdLock(early?: EarlyLock): Promise<void> {
    const liveness = this.log.store.liveness;
    if (!liveness || this.#release) return;
    const taken = await early?.take();
    if (taken) {
      this.#release = taken;
      return;
    }
    // (a hold that refuses at once while another holds the turn says so itself: no need to ask first)
    if (!this.held && !liveness.refusesAtOnce && (await liveness.isHeld(this.log.id, this.turn)))
      throw new LeaseLost(`turn ${this.turn} is running in another tab`, false, "turn-claimed");
    this.#release = await liveness.hold(this.log.id, this.turn);
  }

  /** Lets go of the turn here: its liveness lock, and (this process's holders) its place among the turns running here. */
  releaseLock(): void {
    runsHere(this.holder, false);
    this.#release?.();
    this.#release = null;
  }

  /** Renews the lease every `renewMs` through `write` (the turn's own journal, so renewals keep its order). */
  async start(write: (until: string) => Promise<void>): Promise<void> {
    this.stop();
    this.#lost = null;
    this.#write = write;
    await this.holdLock();
    this.#timer = this.log.clock.every(this.timing.renewMs, () => void this.#renew());
  }

  #write: ((until: string) => Promise<void>) | null = null;

  stop(): void {
    this.#timer?.cancel();
    this.#timer = null;
  }

  /** Renews the lease; a renewal still on its way is waited for, not doubled (a slow store is not piled up). */
  #renew(): Promise<void> {
    this.#renewing ??= this.#renewOnce().finally(() => (this.#renewing = null));
    return this.#renewing;
  }

  async #renewOnce(): Promise<void> {
    if (!this.#write || this.#lost) return;
    try {
      const until = this.log.clock.now() + this.timing.ttlMs;
      await this.#write(isoAt(until));
      this.#until = until;
    } catch (e) {
      // a renewal that fails or finds another holder stops the turn before its next side effect
      this.#lose(e, "could not be renewed");
    }
  }

  /** This process lets the turn go (see ConversationHost.letGo): as a lost lease, it stops before its next record or side effect, and its tools' signal aborts. */
  letGo(lost: LeaseLost): void {
    if (!this.#lost) this.#lose(lost, "was let go");
  }

  #lose(e: unknown, why: string): void {
    if (!(e instanceof LeaseLost)) this.lostToStore = true;
    const lost = (this.#lost = e instanceof LeaseLost ? e : new LeaseLost(`the lease of turn ${this.turn} ${why}: ${describeError(e)}`));
    this.stop();
    this.onLost?.(lost);
  }

  /**
   * Before a side effect: throws when the lease was lost; a lease about to run
   * out is renewed first, never acted on after it lapsed. `afterWait`: asked
   * again after the wait just before the effect (the durable `started`
   * write), where a holder paused may wake with the turn taken: a liveness
   * whose hold can be lost while its holder lives (a database session) is
   * asked too (`confirm`).
   */
  check(afterWait = false): void | Promise<void> {
    if (this.#lost) throw this.#lost;
    const liveness = afterWait ? this.log.store.liveness : undefined;
    if (liveness?.confirm)
      return liveness.confirm(this.log.id, this.turn).then(
        // taken again after it was lost: another may have run the turn meanwhile, which a renewal (a conditional
        // append of this holder's lease) finds in the journal
        (retaken) => (retaken ? this.#renew().then(() => this.check()) : this.check()),
        (e: unknown) => {
          if (!this.#lost) this.#lose(e, "could not be confirmed");
          throw this.#lost;
        },
      );
    if (this.log.clock.now() > this.#until - this.timing.ttlMs / 3)
      return this.#renew().then(() => {
        if (this.#lost) throw this.#lost;
      });
    return undefined;
  }
}
