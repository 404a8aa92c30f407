/**
 * Group commit for appends (on grouped.ts): while a store's append
 * statements are out (at most `lanes`), the appends that come meanwhile
 * (other conversations' turns) wait and then go together as ONE statement:
 * one round trip and one commit for all of them. An append that finds a
 * lane free goes at once, alone, so a lone turn waits for nothing. Each
 * append keeps its own outcome (its length, conflict or fence result);
 * what a refused group or one of unknown outcome means is `oneOrMany`'s.
 * A group goes in conversation order (`ordered`).
 */

import { type Call, Grouped, type OneOrMany, oneOrMany } from "./grouped.js";

/** One append: the arguments of the `append` SQL function. */
export interface GroupedAppend {
  readonly conversation: string;
  /** The records as a JSON array. */
  readonly json: string;
  readonly count: number;
  readonly expect: number | null;
  readonly fence: { readonly text: string; readonly session: readonly [number, number] } | null;
  /** Need not be durable when it resolves (`durable: false`): committed without waiting for the WAL flush. */
  readonly relaxed?: boolean;
}

/** One append alone, or several in one statement (their results, the `append` function's, in the order given). */
export type AppendSender = OneOrMany<GroupedAppend, number>;

/**
 * The appends waiting for the next statement, ordered for it: by
 * conversation (a stable sort, so one conversation's appends keep their
 * order), so that every host's grouped statements take the rows' locks in
 * one order and never wait on each other in a circle.
 */
function ordered(calls: Call<GroupedAppend, number>[]): Call<GroupedAppend, number>[] {
  return calls
    .map((c, i) => ({ c, i }))
    .sort((a, b) => (a.c.item.conversation < b.c.item.conversation ? -1 : a.c.item.conversation > b.c.item.conversation ? 1 : a.i - b.i))
    .map(({ c }) => c);
}

/** Appends through `send`, at most `lanes` statements out at once; the appends that come meanwhile go together, in conversation order. */
export const appendGroup = (send: AppendSender, lanes: number): Grouped<GroupedAppend, number> => new Grouped(lanes, oneOrMany(send, ordered));
