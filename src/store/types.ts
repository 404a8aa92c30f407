import type { ConversationRecord } from "../records/types.js";

/**
 * Where conversations are kept: an append-only list of records per
 * conversation. Every adapter (memory, node-fs, IndexedDB) passes the same
 * contract suite (test/store/contract.ts).
 *
 * @example
 * const store: Store = memoryStore();
 * await store.read("sam"); // [] for a conversation never written
 */
export interface Store {
  /**
   * Appends all of `records` or none. The store gives each its `seq`
   * (1-based position). With `expect`, appends only if the conversation
   * holds exactly that many records, else throws
   * `ConversationError("store-conflict")`. Returns the new length.
   * Durable unless told `durable: false` (in every adapter): kept on disk
   * before it resolves. `durable: false`: a store may resolve once every
   * reader sees the records, and keeps them with the next durable append at
   * the latest.
   */
  append(conversation: string, records: readonly object[], opts?: { expect?: number; durable?: boolean }): Promise<number>;
  /** The records with `seq > after` (all when `after` is 0 or left out), in order. */
  read(conversation: string, after?: number): Promise<ConversationRecord[]>;
  /**
   * Calls `visit` with each record with `seq > after`, in order, keeping
   * none of them (a long conversation is walked in little memory); resolves
   * to the conversation's length. Optional: `read` serves where it is absent.
   * A `visit` that throws ends the scan with its error.
   */
  scan?(conversation: string, after: number, visit: (record: ConversationRecord) => void): Promise<number>;
  /**
   * Resolves true once the conversation holds more than `after` records,
   * false after `timeoutMs` (NaN or 0 or less: it looks once; `Infinity`:
   * no timeout; any finite timeout ends, however long, even one past a
   * timer's 2^31−1 ms). A timeout that is not a number ("60000", undefined)
   * is refused, `input-invalid`, in every store.
   *
   * With `close`: a close ends the waits pending at it (false). A wait
   * begun after the close is never answered false at once (a caller that
   * waits in a loop, such as a send queued behind a running turn, would
   * spin): a store that still reads and appends after its close (memory,
   * node-fs, whose close only releases handles and timers) lets it wait as
   * any wait, for an append or its timeout; a store whose close ends its
   * connections (IndexedDB, PostgreSQL) refuses it with `store-io`, as it
   * refuses every call then.
   */
  wait?(conversation: string, after: number, timeoutMs: number): Promise<boolean>;
  /** The conversations this store holds. */
  list?(): Promise<string[]>;
  /** How many records a conversation holds, without reading them. */
  length?(conversation: string): Promise<number>;
  /**
   * Every conversation `list` gives, with its length, in a few requests (a
   * database's one statement a page): what a watcher of many conversations
   * polls (`serve`'s waiting list), where `list` and then `length` for each
   * would ask once per conversation.
   */
  lengths?(): Promise<Map<string, number>>;
  readonly durability?: "memory" | "disk";
  /**
   * Liveness beyond leases (browsers: Web Locks). A running turn holds
   * `hold(conversation, turn)` for its lifetime; `isHeld` tells another
   * process or tab that the holder is alive even when its lease lapsed.
   */
  readonly liveness?: {
    /** Holds the turn's liveness until the returned function is called. */
    hold(conversation: string, turn: string): Promise<() => void>;
    /** Whether a live process or tab holds the turn. */
    isHeld(conversation: string, turn: string): Promise<boolean>;
    /**
     * True when `hold` never waits for another holder: it refuses at once
     * (`turn-claimed`) while one holds the turn (a database's try-lock). A
     * claim then holds without asking `isHeld` first, one round trip less;
     * otherwise (a Web Lock request waits for its holder) it asks first.
     */
    readonly refusesAtOnce?: boolean;
    /**
     * After a wait before a side effect (the durable `started` write): rejects
     * with `lease-lost` when this process's hold on the turn was lost
     * meanwhile and another holds it; resolves true when the hold was lost
     * and taken again (another may have run the turn and let it go: the
     * caller must look at the journal), false when nothing was lost (cheap).
     * For a liveness whose hold can be lost while its holder lives (a
     * database session the server ended); absent where only the holder's end
     * frees it.
     */
    confirm?(conversation: string, turn: string): Promise<boolean>;
  };
  /** Releases handles and timers (optional); ends the waits pending at it (see `wait`). */
  close?(): Promise<void>;
}

/** Conversation ids: 1–200 of ASCII letters, digits, `.`, `_`, `-`, starting with a letter or digit. Never a path. */
export const CONVERSATION_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

/**
 * Whether a string may name a conversation in every store (letters, digits, `-`, `_`, `.`; not a path).
 *
 * @example
 * isConversationId("sam");      // true
 * isConversationId("../etc");   // false (never a path: it starts with a letter or digit and holds no slash)
 * isConversationId("v1..2");    // true
 */
export const isConversationId = (id: unknown): id is string =>
  typeof id === "string" && CONVERSATION_ID.test(id);
