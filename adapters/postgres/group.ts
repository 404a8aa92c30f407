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

interface Waiting {
  readonly item: GroupedAppend;
  resolve(length: number): void;
  reject(e: unknown): void;
}

/** Whether the server answered the statement with an error: its transaction was rolled back (a lost connection is not that). */
const refusedWhole = (e: unknown): boolean => (e as { severity?: unknown } | null)?.severity === "ERROR";

/**
 * The appends waiting for the next statement, ordered for it: by
 * conversation (a stable sort, so one conversation's appends keep their
 * order), so that every host's grouped statements take the rows' locks in
 * one order and never wait on each other in a circle.
 */
function ordered(waiting: readonly Waiting[]): Waiting[] {
  return waiting
    .map((w, i) => ({ w, i }))
    .sort((a, b) => (a.w.item.conversation < b.w.item.conversation ? -1 : a.w.item.conversation > b.w.item.conversation ? 1 : a.i - b.i))
    .map(({ w }) => w);
}

export class AppendGroup {
  #out = 0;
  #waiting: Waiting[] = [];

  /** `lanes`: how many statements may be out at once (the rest wait and go together). */
  constructor(
    readonly send: AppendSender,
    readonly lanes: number,
  ) {}

  append(item: GroupedAppend): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      this.#waiting.push({ item, resolve, reject });
      this.#next();
    });
  }

  #next(): void {
    if (this.#out >= this.lanes || this.#waiting.length === 0) return;
    const group = this.#waiting;
    this.#waiting = [];
    this.#out++;
    void this.#run(group).finally(() => {
      this.#out--;
      this.#next();
    });
  }

  async #run(group: Waiting[]): Promise<void> {
    if (group.length === 1) {
      const [w] = group as [Waiting];
      await this.send.one(w.item).then(w.resolve, w.reject);
      return;
    }
    const sorted = ordered(group);
    let lengths: number[];
    try {
      lengths = await this.send.many(sorted.map((w) => w.item));
    } catch (e) {
      if (!refusedWhole(e)) {
        for (const w of sorted) w.reject(e);
        return;
      }
      // nothing was written: each again on its own, one after another (one conversation's keep their order)
      for (const w of sorted) await this.send.one(w.item).then(w.resolve, w.reject);
      return;
    }
    if (lengths.length !== sorted.length) {
      const e = new Error(`the grouped append answered ${lengths.length} results for ${sorted.length} appends`);
      for (const w of sorted) w.reject(e);
      return;
    }
    sorted.forEach((w, i) => w.resolve(lengths[i]!));
  }
}
