/**
 * Statements that carry several calls each (group commit). A call goes at
 * once, alone, while fewer than `lanes` statements are out; the calls that
 * come meanwhile wait and go together in the next one. The sender gets the
 * calls of one statement in the order they came and settles each of them:
 * each call keeps its own outcome. (A call the sender left unsettled when
 * it throws gets that error.) A sender with a `one` form (oneOrMany's)
 * gets a call that goes alone straight through it: the outcome a statement
 * of that call alone would give, without a batch made around it.
 */
import { called } from "./called.js";
import { wasRefusedWhole } from "./errors.js";

export interface Call<I, R> {
  readonly item: I;
  resolve(result: R): void;
  reject(e: unknown): void;
}

/** What sends a {@link Grouped}'s statements: the calls of one statement; and, where it has one, a call alone. */
export type GroupSender<I, R> = ((calls: Call<I, R>[]) => Promise<void>) & { readonly one?: (item: I) => Promise<R> };

export class Grouped<I, R> {
  #out = 0;
  #waiting: Call<I, R>[] = [];
  /** A statement settled: its lane is free for the calls waiting. */
  readonly #settled = (): void => {
    this.#out--;
    this.#next();
  };

  constructor(
    readonly lanes: number,
    readonly send: GroupSender<I, R>,
  ) {}

  run(item: I): Promise<R> {
    const one = this.send.one;
    if (one !== undefined && this.#out < this.lanes && this.#waiting.length === 0) {
      // a lane is free and nothing waits: the call goes now, alone (most calls of a store that serves one turn)
      this.#out++;
      const sent = called(() => one(item));
      sent.then(this.#settled, this.#settled);
      return sent;
    }
    return new Promise<R>((resolve, reject) => {
      this.#waiting.push({ item, resolve, reject });
      this.#next();
    });
  }

  #next(): void {
    if (this.#out >= this.lanes || this.#waiting.length === 0) return;
    const calls = this.#waiting;
    this.#waiting = [];
    this.#out++;
    void this.send(calls)
      .catch((e: unknown) => {
        for (const c of calls) c.reject(e); // (a settled one stays as it was)
      })
      .finally(this.#settled);
  }
}

/** A grouped statement's two forms: one call alone, or several in one statement (their results in the order given). */
export interface OneOrMany<I, R> {
  one(item: I): Promise<R>;
  many(items: readonly I[]): Promise<R[]>;
}

/**
 * A grouped statement that could not be made, so nothing was sent: its
 * argument longer than a JavaScript string may be (appends of hundreds of
 * MB each, fine alone, together past V8's limit). Each call goes alone.
 */
export class NotSent extends Error {
  constructor(cause: unknown) {
    super(`a grouped statement could not be made (${cause instanceof Error ? cause.message : String(cause)}); nothing was sent`, { cause });
  }
}

/** Whether nothing of the statement took effect: the server answered it with an error (its transaction was rolled back; a lost connection is not that), or it was never sent. */
const refusedWhole = (e: unknown): boolean => e instanceof NotSent || wasRefusedWhole(e);

/**
 * The sender of a {@link Grouped} on a statement's two forms: one call goes
 * as `one`; several go as `many`, in `order`. When the server refuses that
 * statement whole, or it could not be made ({@link NotSent}), so that
 * nothing of it took effect, each call is sent again
 * alone, one after another, so one call's error is its own and never
 * another's (unless `resendRefused` is false: calls whose effects outlive
 * a rolled-back transaction, such as session-level advisory locks, then
 * fail with that error too). When its outcome is not known (the connection
 * was lost), each call fails with that error, and none is sent twice.
 */
export function oneOrMany<I, R>(
  send: OneOrMany<I, R>,
  order: (calls: Call<I, R>[]) => Call<I, R>[] = (calls) => calls,
  resendRefused = true,
): GroupSender<I, R> {
  const sender = async (calls: Call<I, R>[]): Promise<void> => {
    if (calls.length === 1) {
      const [c] = calls as [Call<I, R>];
      await send.one(c.item).then(c.resolve, c.reject);
      return;
    }
    const ordered = order(calls);
    let results: R[];
    try {
      results = await send.many(ordered.map((c) => c.item));
    } catch (e) {
      if (!resendRefused || !refusedWhole(e)) throw e;
      for (const c of ordered) await send.one(c.item).then(c.resolve, c.reject);
      return;
    }
    if (results.length !== ordered.length) throw new Error(`a grouped statement answered ${results.length} results for ${ordered.length} calls`);
    ordered.forEach((c, i) => c.resolve(results[i]!));
  };
  return Object.assign(sender, { one: (item: I) => send.one(item) });
}
