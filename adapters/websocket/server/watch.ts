/**
 * What waits for a person, across a store: found by polling (`lengths()`
 * where the store has it, else `list()` and each conversation's length)
 * because the Store contract has no change feed yet. A conversation is
 * read again only when it grew, or when one of its running turns' leases
 * runs out (it may now be interrupted), or, where the store's liveness
 * tells a dead holder at once, every LIVENESS_RECHECK_MS while it has a
 * running turn.
 */
import { approvalOf } from "../../../src/conversation/waiting.js";
import { FunctaiError, isFunctaiError } from "../../../src/errors.js";
import { pool } from "../../../src/evaluate/pool.js";
import { unfinishedOf } from "../../../src/records/keys.js";
import { ConversationLog } from "../../../src/conversation/log.js";
import type { ConversationState, TurnInfo } from "../../../src/records/read-conversation.js";
import { systemClock, type Clock } from "../../../src/runtime/clock.js";
import type { Store } from "../../../src/store/types.js";
import type { WaitingEntry } from "../shared/protocol.js";

interface Seen {
  /** The conversation as walked so far (kept for the READERS conversations that changed last). */
  log: ConversationLog | undefined;
  /** Its length when last read (whether or not its reader is kept). */
  length: number;
  entries: WaitingEntry[];
  /** When a running turn's lease runs out (or its liveness is asked again): read again then. */
  recheckAt: number;
}

/**
 * How often a running turn is read again on a store whose liveness tells a
 * dead holder at once (a Postgres session's lock, a tab's Web Lock): its
 * turn reads interrupted then, whatever its lease says, and nothing is
 * appended to say so.
 */
export const LIVENESS_RECHECK_MS = 2_000;

/** How many conversations a scan reads at once (a store that groups reads sends them together). */
const SCAN_AT_ONCE = 16;

/** How many conversations keep their reader (the ones that changed last); another is walked anew when it changes. */
const READERS = 256;

/** How long an answered turn may stay unclaimed before it is offered for a resume (a lease's life). */
export const ANSWERED_GRACE_MS = 30_000;

/** When the last answer of a waiting turn whose approvals are all answered was given (NaN when none). */
const answeredAt = (info: TurnInfo): number => Date.parse(info.answers.at(-1)?.at ?? "");

/** A recorded program name as it is listed (a server's: its served name, see names.ts). */
export type ShownName = (recorded: string | null) => string | null;

/**
 * The waiting entries of one conversation's state. A turn answered but never
 * run on (its answerer died in between) is offered as interrupted once the
 * grace has passed: `resume` goes on with it.
 */
export function entriesOf(
  conversation: string,
  state: ConversationState,
  now: number,
  graceMs = ANSWERED_GRACE_MS,
  shown: ShownName = (p) => p,
): WaitingEntry[] {
  const out: WaitingEntry[] = [];
  for (const info of state.turns.values()) {
    const program = shown(state.programs.get(info.program)?.name ?? null);
    const unfinished = unfinishedOf(info);
    if (info.state === "waiting" && info.waiting.length > 0)
      out.push({ conversation, turn: info.id, program, state: "waiting", approvals: info.waiting.map(approvalOf), unfinished });
    else if (info.state === "interrupted" || (info.state === "waiting" && now - answeredAt(info) >= graceMs))
      out.push({ conversation, turn: info.id, program, state: "interrupted", approvals: [], unfinished });
  }
  return out;
}

export class WaitingWatcher {
  readonly #seen = new Map<string, Seen>();
  /** Conversations the server touched (for stores without `list`). */
  readonly #known = new Set<string>();
  readonly #listeners = new Set<(all: readonly WaitingEntry[]) => void>();
  #all: readonly WaitingEntry[] = [];
  #json = "[]";
  #scan: Promise<void> | null = null;
  #again = false;
  /** Scans begun, and the calls of `refresh` waiting for the scan of a number (the first to begin after they were made). */
  #begun = 0;
  #refreshes: { scan: number; resolve: (failure: unknown) => void }[] = [];
  #timer: ReturnType<typeof setTimeout> | null = null;
  #closed = false;

  constructor(
    readonly store: Store,
    readonly intervalMs: number,
    readonly onError: (e: unknown) => void,
    readonly graceMs = ANSWERED_GRACE_MS,
    readonly clock: Clock = systemClock,
    /** How each turn's program is listed (default: as recorded). */
    readonly shown: ShownName = (p) => p,
  ) {}

  get all(): readonly WaitingEntry[] {
    return this.#all;
  }

  /** Tells `fn` of every change; returns the unsubscribe. */
  onChange(fn: (all: readonly WaitingEntry[]) => void): () => void {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }

  know(conversation: string): void {
    this.#known.add(conversation);
  }

  start(): Promise<void> {
    const first = this.refresh();
    const tick = (): void => {
      if (this.#closed) return;
      this.#timer = setTimeout(() => void this.refresh().finally(tick), this.intervalMs);
      this.#timer.unref?.();
    };
    void first.finally(tick);
    return first.then(() => undefined);
  }

  /** Stops polling; resolves once the scan in flight, if any, has ended (it reads no further conversation). */
  stop(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    if (!this.#scan) this.#settle(Number.POSITIVE_INFINITY);
    return this.#scan ?? Promise.resolve();
  }

  /**
   * Scans now (after the scan in flight, if any); resolves when the list is
   * current: once a scan that began after this call has ended, not after
   * every scan asked for meanwhile (a busy server's requests each ask for
   * one: a caller waiting for all of them would wait as long as they come).
   * Resolves with why that scan failed (the store could not list its
   * conversations: the list is as last read), else `undefined`.
   */
  refresh(): Promise<unknown> {
    const done = new Promise<unknown>((resolve) => this.#refreshes.push({ scan: this.#begun + 1, resolve }));
    if (this.#closed) this.#settle(Number.POSITIVE_INFINITY);
    else if (this.#scan) this.#again = true;
    else
      this.#scan = (async () => {
        try {
          do {
            this.#again = false;
            const scan = ++this.#begun;
            let failure: unknown;
            try {
              await this.#scanAll();
            } catch (e) {
              failure = e;
              this.onError(e);
            }
            this.#settle(scan, failure);
          } while (this.#again && !this.#closed);
        } finally {
          this.#scan = null;
          if (this.#closed) this.#settle(Number.POSITIVE_INFINITY);
        }
      })();
    return done;
  }

  /** Resolves the calls of `refresh` that waited for scan `scan` or an earlier one, with why it failed (if it did). */
  #settle(scan: number, failure?: unknown): void {
    if (this.#refreshes.length === 0) return;
    const waiting = this.#refreshes;
    this.#refreshes = waiting.filter((r) => r.scan > scan);
    for (const r of waiting) if (r.scan <= scan) r.resolve(failure);
  }

  async #scanAll(): Promise<void> {
    // every length in a few requests where the store can (a database: one statement a page, not one per conversation)
    const lengths = this.store.lengths ? await this.store.lengths() : undefined;
    const ids = new Set([...(lengths ? lengths.keys() : this.store.list ? await this.store.list() : []), ...this.#known]);
    if (this.#closed) return;
    for (const id of [...this.#seen.keys()]) if (!ids.has(id)) this.#seen.delete(id);
    const order = [...ids].sort();
    // SCAN_AT_ONCE conversations read at once (a store groups reads that come together: one round trip for many);
    // none begun once the server closes (its store may be closed next)
    await pool(
      order.length,
      SCAN_AT_ONCE,
      async (i) => {
        const id = order[i]!;
        try {
          await this.#scanOne(id, lengths ? (lengths.get(id) ?? 0) : undefined);
        } catch (e) {
          // one conversation that cannot be read (damaged records, a file it may not open) is told and left as last
          // read: thrown on, it would stop every scan here, and no conversation after it would be listed or updated
          this.onError(
            new FunctaiError(
              isFunctaiError(e) ? e.code : "store-io",
              `conversation ${id} could not be read: ${e instanceof Error ? e.message : String(e)}`,
              { cause: e },
            ),
          );
          await this.#skipUntilChanged(id);
        }
      },
      { enough: () => this.#closed },
    );
    if (this.#closed) return;
    const all = [...this.#seen.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).flatMap(([, s]) => s.entries); // by conversation id
    const json = JSON.stringify(all);
    if (json === this.#json) return;
    this.#json = json;
    this.#all = all;
    for (const fn of this.#listeners) fn(all);
  }

  /** Remembers an unreadable conversation's length (when the store tells it): it is read again, and told again, only once it changed. */
  async #skipUntilChanged(id: string): Promise<void> {
    const length = await this.store.length?.(id).catch(() => undefined);
    if (length === undefined) return;
    const seen = this.#seen.get(id);
    this.#seen.set(id, { log: undefined, length, entries: seen?.entries ?? [], recheckAt: Number.POSITIVE_INFINITY });
  }

  /** Reads one conversation again when it grew (`length`: as the store's `lengths` gave it, else asked here) or a recheck is due. */
  async #scanOne(id: string, length: number | undefined): Promise<void> {
    const seen = this.#seen.get(id);
    const now = this.clock.now();
    const due = seen === undefined || now >= seen.recheckAt;
    if (!due && (length ?? (await this.store.length?.(id))) === seen.length) return;
    // each conversation is walked once; later scans walk only what was appended since
    const log = seen?.log ?? new ConversationLog(this.store, id, this.clock);
    const state = await log.read();
    if (!due && state.length === seen.length) return;
    let recheckAt = Number.POSITIVE_INFINITY;
    const liveness = this.store.liveness ? now + LIVENESS_RECHECK_MS : Number.POSITIVE_INFINITY;
    for (const info of state.turns.values()) {
      if (info.state === "running" && info.leaseUntil) recheckAt = Math.min(recheckAt, Date.parse(info.leaseUntil) + 1, liveness);
      if (info.state === "waiting" && info.waiting.length === 0) recheckAt = Math.min(recheckAt, answeredAt(info) + this.graceMs);
    }
    this.#seen.delete(id); // (re-added last: the conversations that changed last keep their readers)
    this.#seen.set(id, { log, length: state.length, entries: entriesOf(id, state, now, this.graceMs, this.shown), recheckAt });
    let keep = READERS;
    for (const s of [...this.#seen.values()].reverse()) if (s.log !== undefined && --keep < 0) s.log = undefined;
  }
}
