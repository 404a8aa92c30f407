/**
 * Group commit for appends: while a store's append statement is out, the
 * appends that come meanwhile (other conversations' turns) wait here and
 * then go together as ONE statement: one round trip and one commit for all
 * of them. An append that finds nothing out goes at once, alone, so a lone
 * turn waits for nothing.
 *
 * Each append keeps its own outcome (its length, conflict or fence result).
 * When the server refuses the shared statement (an error it answered with:
 * the statement's transaction is rolled back, nothing of it was written),
 * each append is sent again alone, so one append's error is its own and
 * never another conversation's. When the outcome is not known (the
 * connection was lost), every append of the group gets that error, as a
 * single one would: none is sent twice.
 */

import { type Call, Grouped } from "./grouped.js";

/** One append: the arguments of the `append` SQL function. */
export interface GroupedAppend {
  readonly conversation: string;
  /** The records as a JSON array. */
  readonly json: string;
  readonly count: number;
  readonly expect: number | null;
  readonly fence: { readonly text: string; readonly session: readonly [number, number] } | null;
}

export interface AppendSender {
  /** One append in a statement of its own: its result (the `append` function's). */
  one(item: GroupedAppend): Promise<number>;
  /** Several appends in one statement, in the order given: their results in that order. */
  many(items: readonly GroupedAppend[]): Promise<number[]>;
}

/** Whether the server answered the statement with an error: its transaction was rolled back (a lost connection is not that). */
const refusedWhole = (e: unknown): boolean => (e as { severity?: unknown } | null)?.severity === "ERROR";

/**
 * The appends waiting for the next statement, ordered for it: by
 * conversation (a stable sort, so one conversation's appends keep their
 * order), so that every host's grouped statements take the rows' locks in
 * one order and never wait on each other in a circle.
 */
function ordered<T extends { item: GroupedAppend }>(calls: readonly T[]): T[] {
  return calls
    .map((c, i) => ({ c, i }))
    .sort((a, b) => (a.c.item.conversation < b.c.item.conversation ? -1 : a.c.item.conversation > b.c.item.conversation ? 1 : a.i - b.i))
    .map(({ c }) => c);
}

/** Sends the appends of one statement and settles each (see the top of this file). */
async function sendAppends(send: AppendSender, calls: Call<GroupedAppend, number>[]): Promise<void> {
  if (calls.length === 1) {
    const [c] = calls as [Call<GroupedAppend, number>];
    await send.one(c.item).then(c.resolve, c.reject);
    return;
  }
  const sorted = ordered(calls);
  let lengths: number[];
  try {
    lengths = await send.many(sorted.map((c) => c.item));
  } catch (e) {
    if (!refusedWhole(e)) throw e; // the outcome is not known: each fails with it
    // nothing was written: each again on its own, one after another (one conversation's keep their order)
    for (const c of sorted) await send.one(c.item).then(c.resolve, c.reject);
    return;
  }
  if (lengths.length !== sorted.length) throw new Error(`the grouped append answered ${lengths.length} results for ${sorted.length} appends`);
  sorted.forEach((c, i) => c.resolve(lengths[i]!));
}

/** Appends through `send`, at most `lanes` statements out at once; the appends that come meanwhile go together. */
export class AppendGroup {
  readonly #grouped: Grouped<GroupedAppend, number>;

  constructor(send: AppendSender, lanes: number) {
    this.#grouped = new Grouped(lanes, (calls) => sendAppends(send, calls));
  }

  append(item: GroupedAppend): Promise<number> {
    return this.#grouped.run(item);
  }
}
