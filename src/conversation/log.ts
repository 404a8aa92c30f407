/**
 * A conversation's log, as this process sees it: the records read so far
 * (walked once, then only what was appended since), the liveness overlay
 * (a holder provably alive — its Web Lock held, its pid running — outranks
 * its lease; one provably gone does too), the history of a
 * given parent, and the one conditional append every write goes through.
 */
import type { EarlierTurn } from "../engine/ai-call.js";
import { ConversationError, isFunctaiError } from "../errors.js";
import { ConversationReader, doneOn, type ConversationState, type TurnInfo } from "../records/read-conversation.js";
import type { ConversationRecord } from "../records/types.js";
import { withSeq } from "../records/with-seq.js";
import { systemClock, type Clock } from "../runtime/clock.js";
import type { Store } from "../store/types.js";
import { holderAlive } from "./holder.js";
import { markStoreFailure } from "../store/failures.js";

/** The end of a holder id whose turn holds a Web Lock for as long as its lease says it runs. */
export const WEB_LOCK = ":wl";

/** What a decision is shown: what came since this log last looked, and (on demand) the whole state. */
export interface LogView {
  /** The records appended since this log last looked (by anyone): empty on a first try that did not read. */
  readonly fresh: readonly ConversationRecord[];
  /** The conversation's length as last seen: the `expect` of this try's append. */
  readonly length: number;
  /** The conversation's state as of `fresh` (walks the whole log once, the first time). */
  state(): Promise<ConversationState>;
}

/** What to append (nothing: no write), and what `appendIf` then resolves to. */
export interface Decision<T> {
  append: readonly object[];
  value: T;
}

export interface AppendIfOptions {
  /** Tries before giving up with `store-conflict` (default 20). */
  maxTries?: number;
  /** The records must be kept before this resolves (default true). */
  durable?: boolean;
  /** Read what is new before the first decision (default true); false tries first on what was last seen. */
  readFirst?: boolean;
}

const NOTHING: readonly ConversationRecord[] = Object.freeze([]);

/**
 * A conversation holding records of a kind this version knows that fail
 * their schema: refused, naming them. The pure reader skips them (and lists
 * them), but a conversation read without them is misread (a turn whose
 * `ended` record is skipped reads interrupted, and could run again), so
 * nothing is decided, sent or written on it until they are mended.
 */
function malformed(conversation: string, skipped: ConversationState["skipped"]): ConversationError {
  const first = skipped[0]!;
  const where = first.seq === null ? "a record without a seq" : `record ${first.seq}`;
  const more = skipped.length > 1 ? ` (and ${skipped.length - 1} more)` : "";
  return new ConversationError(
    "store-corrupt",
    `conversation ${conversation}: ${where} is not a valid record of its kind (${first.error})${more}; nothing is read, sent or written on it until it is mended.`,
  );
}

/** The earlier done turns of a branch, oldest first, ending at `parent`. */
export function historyOf(state: ConversationState, parent: string | null): EarlierTurn[] {
  const out: EarlierTurn[] = [];
  const seen = new Set<string>();
  for (let id = parent; id !== null && !seen.has(id); ) {
    seen.add(id);
    const info = state.turns.get(id);
    if (!info) break;
    if (info.state === "done" && info.ended) out.push({ inputs: info.inputs, value: info.ended.value });
    id = info.parent;
  }
  return out.reverse();
}

/** How many records `conversation` holds: asked of the store's `length` where it has one, never a read of all of them. */
export const lengthOf = async (store: Store, conversation: string): Promise<number> =>
  store.length ? store.length(conversation) : (await store.read(conversation)).length;

/**
 * One conversation's log. Reads and appends are taken one at a time (two at
 * once would walk the same new records twice).
 *
 * @example
 * const log = new ConversationLog(store, "sam");
 * await log.appendIf(async (view) => ({ append: [makeRecord("stop", { turn }, Date.now())], value: undefined }));
 */
export class ConversationLog {
  #reader: ConversationReader | null = null;
  #length: number;
  /** Turn ids by the `request_id` their turn records carry (as walked). */
  #requests = new Map<string, string>();
  /**
   * The records of each turn not ended, as walked (dropped at its `ended`),
   * when `keepsTurns`: a host that goes on with one journals from them
   * (`turnRecords`) instead of reading the whole conversation again.
   */
  #open = new Map<string, ConversationRecord[]>();
  #queue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly store: Store,
    readonly id: string,
    readonly clock: Clock = systemClock,
    /** A running turn's log: it appends after this known length and reads only what comes after (never the whole log). */
    tail?: number,
    /** Keeps the records of each turn not ended, for `turnRecords` (a conversation's own log; not a watcher's, which reads many). */
    readonly keepsTurns = false,
  ) {
    this.#tail = tail !== undefined;
    this.#length = tail ?? 0;
  }

  readonly #tail: boolean;

  /** The conversation's length as last seen. */
  get length(): number {
    return this.#length;
  }

  /** The turn sent for this request id, as last read. */
  requested(requestId: string): string | undefined {
    return this.#requests.get(requestId);
  }

  /** The conversation's state now (reads only what was appended since). */
  read(): Promise<ConversationState> {
    return this.#serial(async () => {
      await this.#catchUp();
      for (let looks = 1; ; looks++) {
        const { state, gone } = await this.#overlaid();
        // a holder lets go of its lock only once its last records are kept (its end, its wait): a lock found free after
        // the records were read may be one whose turn ended meanwhile, so what came since is read before the turn reads
        // interrupted (a few looks at most: a conversation appended to without a pause is not chased for ever)
        if (!gone || looks >= 3 || (await this.#catchUp()).length === 0) return state;
      }
    });
  }

  /**
   * The one conditional append: `decide` is shown what is new and returns
   * the records to append (or none) and a value; they are appended only if
   * the conversation still holds `view.length` records. A lost race reads
   * what came and decides again, at most `maxTries` times, then refuses
   * with `store-conflict`. A refusal is thrown by `decide` itself.
   */
  appendIf<T>(decide: (view: LogView) => Decision<T> | Promise<Decision<T>>, options: AppendIfOptions = {}): Promise<{ value: T; length: number }> {
    const { maxTries = 20, durable = true, readFirst = true } = options;
    return this.#serial(async () => {
      for (let tries = 1; ; tries++) {
        const fresh = tries > 1 || readFirst ? await this.#catchUp(tries > 1) : NOTHING;
        const expect = this.#length;
        const decision = decide({ fresh, length: expect, state: this.#stateNow });
        const { append, value } = decision instanceof Promise ? await decision : decision;
        if (append.length === 0) return { value, length: expect };
        let length: number;
        try {
          length = await this.store.append(this.id, append, { expect, durable });
        } catch (e) {
          if (!isFunctaiError(e, "store-conflict")) throw markStoreFailure(e, this);
          if (tries >= maxTries)
            throw markStoreFailure(
              new ConversationError(
                "store-conflict",
                `conversation ${this.id}: ${tries} appends in a row lost a race with other writers; nothing was written`,
                { cause: e },
              ),
              this,
            );
          continue;
        }
        this.#wrote(append, expect, length);
        return { value, length };
      }
    });
  }

  /** What `state` a decision is shown (one function for every decision). */
  readonly #stateNow = (): Promise<ConversationState> => this.#state();
  /** Reads and appends taken and not yet settled. */
  #taken = 0;
  /** One taken read or append settled (one function for all of them). */
  readonly #settled = (): void => void this.#taken--;

  #serial<T>(fn: () => Promise<T>): Promise<T> {
    // nothing taken: this one starts now (the common case of a turn's own appends), else after the last one taken
    const next = this.#taken++ === 0 ? fn() : this.#queue.then(fn);
    this.#queue = next.then(this.#settled, this.#settled);
    return next;
  }

  /** Our own records, appended at `expect`: walked without reading them back. */
  #wrote(records: readonly object[], expect: number, length: number): void {
    this.#length = length;
    if (this.#reader === null) return;
    if (length !== expect + records.length) return void (this.#reader = null); // not only ours: walk again at the next state
    records.forEach((r, i) => this.#walk(this.#reader!, withSeq(r as ConversationRecord, expect + i + 1)));
  }

  #walk(reader: ConversationReader, r: ConversationRecord): void {
    const rec = r as unknown as { kind: string; turn?: unknown; request_id?: unknown };
    if (rec.kind === "turn" && typeof rec.request_id === "string" && typeof rec.turn === "string" && !this.#requests.has(rec.request_id))
      this.#requests.set(rec.request_id, rec.turn);
    if (this.keepsTurns && typeof rec.turn === "string") {
      if (rec.kind === "ended") this.#open.delete(rec.turn);
      else {
        const list = this.#open.get(rec.turn);
        if (list) list.push(r);
        else if (rec.kind === "turn") this.#open.set(rec.turn, [r]); // from its first record only: never a part of a turn
      }
    }
    reader.addOne(r);
  }

  /**
   * A turn's records (not ended) and the conversation's length, read up to
   * now: what a host going on with the turn journals from. Null for a turn
   * this log has no records of (ended, unknown, a running turn's tail log, a
   * log that keeps none): the host then reads the store.
   */
  turnRecords(turn: string): Promise<{ records: ConversationRecord[]; length: number } | null> {
    if (this.#tail || !this.keepsTurns) return Promise.resolve(null);
    return this.#serial(async () => {
      await this.#catchUp();
      const reader = this.#reader ?? (await this.#walkAll()); // (what came was not the records after ours: walked again)
      // what came since the conversation was last read (a person's stray answer appended while the turn was claimed,
      // which the claim's lost race read on trust) is damage to the turn about to go on from it, as to any read
      const skipped = reader.skipped;
      if (skipped.length > 0) throw malformed(this.id, skipped);
      const records = this.#open.get(turn);
      return records ? { records: records.slice(), length: this.#length } : null;
    });
  }

  /**
   * Reads what was appended since this log last looked (a log that keeps the state walks the whole log the first time).
   * Its failures, as every store call's here, are marked as this conversation's own (store/failures.ts).
   */
  async #catchUp(lostRace = false): Promise<ConversationRecord[]> {
    try {
      return await this.#readNew(lostRace);
    } catch (e) {
      throw markStoreFailure(e, this);
    }
  }

  async #readNew(lostRace: boolean): Promise<ConversationRecord[]> {
    if (this.#reader === null && !this.#tail) {
      await this.#walkAll();
      return [];
    }
    const fresh = await this.store.read(this.id, this.#length);
    if (fresh.length === 0) {
      // a lost race with nothing new: the store is shorter than we thought (a torn tail cut away); a reader goes on
      // from what it holds. A running turn's log saw those records kept (its own appends, or read): they were removed
      // (by hand, a restore from an older backup), and its records written from there would belong to no turn
      if (lostRace) {
        const length = await lengthOf(this.store, this.id);
        if (length < this.#length && this.#tail)
          throw new ConversationError(
            "store-corrupt",
            `conversation ${this.id} holds ${length} records, fewer than the ${this.#length} this turn saw kept: records were removed (by hand, a restore from an older backup, or a database crash that lost records kept without waiting for the flush); the turn stops and writes nothing more`,
          );
        if (length < this.#length) [this.#length, this.#reader] = [length, null];
      }
      return fresh;
    }
    const reader = this.#reader;
    if (reader !== null) {
      if (fresh[0]!.seq !== reader.length + 1)
        this.#reader = null; // not the records after ours: walk it all again
      else for (const r of fresh) this.#walk(reader, r);
    }
    this.#length = fresh[fresh.length - 1]!.seq;
    return fresh;
  }

  async #walkAll(): Promise<ConversationReader> {
    try {
      return await this.#walkFromStart();
    } catch (e) {
      throw markStoreFailure(e, this);
    }
  }

  async #walkFromStart(): Promise<ConversationReader> {
    const walked = new ConversationReader();
    this.#requests = new Map();
    this.#open = new Map();
    const visit = (r: ConversationRecord): void => this.#walk(walked, r);
    // a store that can stream a long conversation is not asked for all of it at once
    if (this.store.scan) await this.store.scan(this.id, 0, visit);
    else for (const r of await this.store.read(this.id)) visit(r);
    this.#reader = walked;
    this.#length = walked.length;
    return walked;
  }

  /** The state as read so far, with the liveness overlay (walks the whole log the first time). */
  async #state(): Promise<ConversationState> {
    return (await this.#overlaid()).state;
  }

  /** The state with the liveness overlay, and whether a turn read running was found gone (its lock free). */
  async #overlaid(): Promise<{ state: ConversationState; gone: boolean }> {
    let gone = false;
    const reader = this.#reader ?? (await this.#walkAll());
    const state = reader.state(this.clock.now());
    if (state.skipped.length > 0) throw malformed(this.id, state.skipped);
    const liveness = this.store.liveness;
    for (const info of state.turns.values()) {
      if (info.state !== "running" && info.state !== "interrupted") continue;
      // a store that tells liveness (a tab's Web Lock, a database session's lock) outranks the holder's pid
      const alive = liveness ? await this.#held(info, liveness) : holderAlive(info.holder);
      if (alive === true && info.state === "interrupted") {
        // its holder is provably alive, whatever its (throttled, paused) lease says: it stalled, nobody may claim it
        info.state = "running";
        info.stalled = true;
        if (state.head === info.id) state.next = { waits: info.id };
      } else if (alive === false && info.state === "running") {
        // its holder is gone (a closed tab, a dead process): interrupted now, not when its lease runs out; a turn asked
        // to stop is stopped once nobody runs it (as the reader says of one whose lease ran out), never resumed
        info.state = info.stopped ? "stopped" : "interrupted";
        if (state.head === info.id) state.next = { parent: doneOn(state.turns, info.parent) };
        gone = true;
      }
    }
    return { state, gone };
  }

  /** Whether the turn's lock is held (true), free while its holder kept it for as long as it ran (false), or neither. */
  async #held(info: TurnInfo, liveness: NonNullable<Store["liveness"]>): Promise<boolean | undefined> {
    if (await liveness.isHeld(this.id, info.id)) return true;
    return info.holder?.endsWith(WEB_LOCK) ? false : undefined;
  }
}
