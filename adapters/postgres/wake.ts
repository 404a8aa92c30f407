import { waitTimer, waitTimerMs } from "../../src/store/checks.js";
import type { Db } from "./db.js";
import { withDeadline } from "./deadline.js";

/** How long a waiter's row asks appends to notify it (a longer wait renews it every half of this). */
const WATCH_MS = 86_400_000;

const noop = (): void => undefined;

/** How long a wait's last look at the length, at its timeout, may take before the wait answers false. */
const LAST_LOOK_MS = 1_000;

/** A waiter's re-read that was refused is tried again after this, doubling to REREAD_MAX_MS. */
const REREAD_MS = 100;
const REREAD_MAX_MS = 2_000;

interface Waiter {
  after: number;
  /** Re-reads the length (after a reconnect: notifications were lost), until a read answers or the wait settles. */
  recheck(): void;
  done(value: boolean): void;
}

/** What `Wakeups` asks of the database besides listening. */
export interface Watch {
  /** Says that `token` waits on `conversation` for about `seconds`, and reads its length (one statement: see schema.ts). */
  watch(conversation: string, token: string, seconds: number): Promise<number>;
  /** Says it waits no more (best effort, never rejects: a waiter left behind runs out by itself). */
  unwatch(conversation: string, token: string): Promise<void>;
  lengthOf(conversation: string): Promise<number>;
}

/**
 * `wait` on one LISTEN connection per store. A waiter listens, then says in
 * the database that it waits while reading the length, then waits: an
 * append commits either before that read (seen by it) or after (it sees the
 * waiter and notifies), never lost. Appends notify only while someone waits
 * on their conversation. Notifications carry the new length, so only
 * those that could wake a waiter have it read (#notified says why).
 */
export class Wakeups {
  readonly #waiters = new Map<string, Set<Waiter>>();
  #listening: Promise<() => Promise<void>> | null = null;
  /** What stops the listening, once it began. */
  #stop: (() => Promise<void>) | null = null;
  #closed = false;
  #tokens = 0;
  /** Waiters' rows being taken away: `close` waits for them (the store ends its connections next). */
  readonly #unwatching = new Set<Promise<void>>();
  /** Conversations whose length is read after a notification (`again`: another came meanwhile), and those reads: `close` waits for them. */
  readonly #looking = new Map<string, { again: boolean }>();
  readonly #reads = new Set<Promise<void>>();

  constructor(
    readonly db: Db,
    readonly channel: string,
    readonly watch: Watch,
  ) {}

  #listen(): Promise<unknown> {
    if (this.#listening === null) {
      const started = this.db.listen(
        this.channel,
        (payload) => this.#notified(payload),
        () => this.#reconnected(),
      );
      this.#listening = started;
      started.then(
        (stop) => {
          if (this.#listening === started) this.#stop = stop;
        },
        () => {
          if (this.#listening === started) this.#listening = null; // the next wait tries again
        },
      );
    }
    return this.#listening;
  }

  /**
   * A notification is a hint to look, never the answer: any role may NOTIFY
   * on the store's channel, with any payload, so one that names a
   * conversation a waiter waits on, with a length past its `after`, has the
   * length read again, and only a length read from the tables wakes a wait
   * (a forged one woke it true with no new record: a caller looping on
   * `wait` spun, and a send behind a running turn gave up in a second).
   */
  #notified(payload: string): void {
    const told = /^(.*) ([0-9]{1,10})$/s.exec(payload);
    if (told === null) return; // not what an append sends
    const [, conversation, length] = told as unknown as [string, string, string];
    const waiters = this.#waiters.get(conversation);
    if (waiters !== undefined && [...waiters].some((w) => Number(length) > w.after)) this.#look(conversation);
  }

  /**
   * Reads `conversation`'s length and wakes its waiters it is past. One read
   * out per conversation: notifications that come meanwhile (a burst of
   * appends, or a flood of forged ones) make one more read after it (it may
   * have read before their commits), never one each.
   */
  #look(conversation: string): void {
    const out = this.#looking.get(conversation);
    if (out !== undefined) {
      out.again = true;
      return;
    }
    const state = { again: false };
    this.#looking.set(conversation, state);
    const read = this.watch.lengthOf(conversation).then(
      (length) => {
        for (const w of [...(this.#waiters.get(conversation) ?? [])]) if (length > w.after) w.done(true);
      },
      // refused (no connection to be had now): each waiter reads again until one answers; dropped, the append it was
      // told of woke a wait only at its timeout, and one without a timeout never
      () => {
        for (const w of [...(this.#waiters.get(conversation) ?? [])]) w.recheck();
      },
    );
    const settled = read.then(() => {
      this.#looking.delete(conversation);
      this.#reads.delete(settled);
      if (state.again && !this.#closed && this.#waiters.has(conversation)) this.#look(conversation);
    });
    this.#reads.add(settled);
  }

  #reconnected(): void {
    for (const set of this.#waiters.values()) for (const w of [...set]) w.recheck();
  }

  /**
   * Resolves true once `conversation` holds more than `after` records, false
   * after `timeoutMs` or on close. The timer runs from the call, not from
   * when listening began: a listening connection still being made (a server
   * down or restarting, which the store keeps trying to reach) never holds a
   * wait past its timeout. A timeout of no time looks once.
   */
  async wait(conversation: string, after: number, timeoutMs: number): Promise<boolean> {
    const ms = waitTimerMs(timeoutMs);
    if (this.#closed || ms === 0) return (await this.watch.lengthOf(conversation)) > after;
    const token = `${++this.#tokens}-${Math.random().toString(36).slice(2, 10)}`;
    return new Promise<boolean>((resolve, reject) => {
      let set = this.#waiters.get(conversation);
      if (set === undefined) this.#waiters.set(conversation, (set = new Set()));
      const waiters = set;
      let settled = false;
      /** Why listening or the waiter's own statement failed: the wait fails with it (a false would read as a timeout). */
      let failed: { error: unknown } | null = null;
      /**
       * The statement writing (or renewing) the waiter's row, settled either way: its row is taken away once it
       * settled (a DELETE sent meanwhile would find none, and the row would come after it). Null: none was sent.
       */
      let watched: Promise<void> | null = null;
      let renew: ReturnType<typeof setInterval> | undefined;
      /** A re-read under way (or waiting to be tried again), and whether another was asked for meanwhile (it may have read before that append). */
      let rereading = false;
      let again = false;
      let retry: ReturnType<typeof setTimeout> | undefined;
      const reread = (delay: number): void => {
        rereading = true;
        again = false;
        this.watch.lengthOf(conversation).then(
          (length) => {
            rereading = false;
            if (length > after) waiter.done(true);
            else if (again && !settled) reread(REREAD_MS);
          },
          () => {
            // refused (a connection limit reached, a server still coming back): tried again while the wait goes on, or
            // an append the listener missed woke it only at its timeout, and a wait without a timeout never
            if (settled) return;
            retry = setTimeout(() => reread(Math.min(delay * 2, REREAD_MAX_MS)), delay);
            (retry as { unref?: () => void }).unref?.();
          },
        );
      };
      const waiter: Waiter = {
        after,
        recheck: () => {
          if (settled) return;
          if (rereading) again = true;
          else reread(REREAD_MS);
        },
        done: (value) => {
          if (settled) return;
          settled = true;
          cancel?.();
          clearInterval(renew);
          clearTimeout(retry);
          if (watched) {
            const gone = watched.then(() => this.watch.unwatch(conversation, token));
            this.#unwatching.add(gone);
            void gone.then(() => this.#unwatching.delete(gone));
          }
          waiters.delete(waiter);
          if (waiters.size === 0 && this.#waiters.get(conversation) === waiters) this.#waiters.delete(conversation);
          if (failed) reject(failed.error);
          else resolve(value);
        },
      };
      // at its timeout the length is read once more (for LAST_LOOK_MS at most: a server down is not waited for): a
      // wake-up the listener could not hear (its connection lost and not let back, a limit reached) is not answered
      // false, and a store that refuses the read says why
      const timedOut = (): void => {
        if (settled) return;
        const late = setTimeout(() => waiter.done(false), LAST_LOOK_MS);
        this.watch.lengthOf(conversation).then(
          (length) => {
            clearTimeout(late);
            waiter.done(length > after);
          },
          (e: unknown) => {
            clearTimeout(late);
            if (!settled) failed = { error: e };
            waiter.done(false);
          },
        );
      };
      // (past a timer's reach, 2^31−1 ms, in parts: a longer timeout ends too)
      const cancel = ms === null ? undefined : waitTimer(ms, timedOut);
      // a wait without end keeps the process alive as one with a timeout does (its timer): the store's connections do not
      clearInterval(renew);
      renew = ms === null ? setInterval(noop, WATCH_MS / 2) : undefined;
      // in the set before listening: a close meanwhile answers it (false), and a notification can only be a true one
      waiters.add(waiter);
      // the waiter's row says until when appends must notify: a day at most, renewed while a longer wait goes on
      const seconds = Math.min(ms ?? WATCH_MS, WATCH_MS) / 1000;
      const found = (length: number): false | void => length > after && waiter.done(true);
      const fail = (e: unknown): void => {
        failed = { error: e };
        waiter.done(false); // settled already (woken, timed out, closed): that answer stands
      };
      // listen first, then say it waits while reading the length: no wake-up lost in between
      this.#listen().then(() => {
        if (settled) return;
        const first = this.watch.watch(conversation, token, seconds);
        watched = first.then(noop, noop);
        first.then(found, fail);
        if (ms === null || ms > WATCH_MS) {
          clearInterval(renew);
          renew = setInterval(() => {
            const again = this.watch.watch(conversation, token, seconds);
            watched = Promise.all([watched, again.then(noop, noop)]).then(noop);
            again.then(found, noop);
          }, WATCH_MS / 2);
        }
      }, fail);
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const set of [...this.#waiters.values()]) for (const w of [...set]) w.done(false);
    await Promise.all([...this.#unwatching]);
    // (for LAST_LOOK_MS at most, as a wait's last look: a server that stopped answering does not hold a close)
    await withDeadline(Promise.all([...this.#reads]).then(noop), LAST_LOOK_MS, noop);
    const listening = this.#listening;
    this.#listening = null;
    const stop = this.#stop;
    this.#stop = null;
    if (stop) await stop();
    // still connecting (a server down or restarting): not waited for, or close would wait as long as the reconnecting goes on; the Db's close stops it
    else
      void listening?.then(
        (stop) => stop(),
        () => undefined,
      );
  }
}
