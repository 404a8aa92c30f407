import { waitTimerMs } from "../../src/store/checks.js";
import type { Db } from "./db.js";

/** How long a waiter's row asks appends to notify it (a longer wait renews it every half of this). */
const WATCH_MS = 86_400_000;

interface Waiter {
  after: number;
  /** Re-reads the length (after a reconnect: notifications were lost). */
  recheck(): void;
  done(value: boolean): void;
}

/** What `Wakeups` asks of the database besides listening. */
export interface Watch {
  /** Says that `token` waits on `conversation` for about `seconds`, and reads its length (one statement: see schema.ts). */
  watch(conversation: string, token: string, seconds: number): Promise<number>;
  /** Says it waits no more (best effort: a waiter left behind runs out by itself). */
  unwatch(conversation: string, token: string): void;
  lengthOf(conversation: string): Promise<number>;
}

/**
 * `wait` on one LISTEN connection per store. A waiter listens, then says in
 * the database that it waits while reading the length, then waits: an
 * append commits either before that read (seen by it) or after (it sees the
 * waiter and notifies), never lost. Appends notify only while someone waits
 * on their conversation. Notifications carry the new length, so a wake
 * needs no read.
 */
export class Wakeups {
  readonly #waiters = new Map<string, Set<Waiter>>();
  #listening: Promise<() => Promise<void>> | null = null;
  #closed = false;
  #tokens = 0;

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
      started.catch(() => {
        if (this.#listening === started) this.#listening = null; // the next wait tries again
      });
    }
    return this.#listening;
  }

  #notified(payload: string): void {
    const space = payload.lastIndexOf(" ");
    const conversation = payload.slice(0, space);
    const length = Number(payload.slice(space + 1));
    for (const w of [...(this.#waiters.get(conversation) ?? [])]) if (length > w.after) w.done(true);
  }

  #reconnected(): void {
    for (const set of this.#waiters.values()) for (const w of [...set]) w.recheck();
  }

  /** Resolves true once `conversation` holds more than `after` records, false after `timeoutMs` or on close. */
  async wait(conversation: string, after: number, timeoutMs: number): Promise<boolean> {
    if (this.#closed) return (await this.watch.lengthOf(conversation)) > after;
    await this.#listen();
    if (this.#closed) return (await this.watch.lengthOf(conversation)) > after; // closed while it started listening: no waiter is told any more
    const token = `${++this.#tokens}-${Math.random().toString(36).slice(2, 10)}`;
    return new Promise<boolean>((resolve, reject) => {
      let set = this.#waiters.get(conversation);
      if (set === undefined) this.#waiters.set(conversation, (set = new Set()));
      const waiters = set;
      let settled = false;
      /** Why the waiter's own statement failed: the wait fails with it (a false would read as a timeout). */
      let failed: { error: unknown } | null = null;
      let renew: ReturnType<typeof setInterval> | undefined;
      const waiter: Waiter = {
        after,
        recheck: () => {
          this.watch.lengthOf(conversation).then(
            (length) => length > after && waiter.done(true),
            () => undefined, // still reconnecting: the timeout or the next notification answers
          );
        },
        done: (value) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          clearInterval(renew);
          this.watch.unwatch(conversation, token);
          waiters.delete(waiter);
          if (waiters.size === 0 && this.#waiters.get(conversation) === waiters) this.#waiters.delete(conversation);
          if (failed) reject(failed.error);
          else resolve(value);
        },
      };
      const ms = waitTimerMs(timeoutMs);
      const timer = ms === null ? undefined : setTimeout(() => waiter.done(false), ms);
      waiters.add(waiter);
      // the waiter's row says until when appends must notify: a day at most, renewed while a longer wait goes on
      const seconds = Math.min(ms ?? WATCH_MS, WATCH_MS) / 1000;
      const found = (length: number): false | void => length > after && waiter.done(true);
      this.watch.watch(conversation, token, seconds).then(found, (e: unknown) => {
        failed = { error: e };
        waiter.done(false); // settled already (woken, timed out, closed): that answer stands
      });
      if (ms === null || ms > WATCH_MS) renew = setInterval(() => void this.watch.watch(conversation, token, seconds).then(found, () => undefined), WATCH_MS / 2);
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const set of [...this.#waiters.values()]) for (const w of [...set]) w.done(false);
    const listening = this.#listening;
    this.#listening = null;
    if (listening) await (await listening.catch(() => null))?.();
  }
}
