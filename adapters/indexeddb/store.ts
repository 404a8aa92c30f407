import type { IDBPTransaction } from "idb";
import { ConversationError, FunctaiError, describeError, describeValue } from "../../src/errors.js";
import type { ConversationRecord } from "../../src/records/types.js";
import { withSeq } from "../../src/records/with-seq.js";
import {
  checkAfter as checkAfterOf,
  checkConversationId,
  checkExpect,
  checkRecords,
  checkTimeout,
  isDurable,
  recordJson,
  storeConflict,
  waitTimer,
  waitTimerMs,
} from "../../src/store/checks.js";
import { isConversationId, type Store } from "../../src/store/types.js";
import { MAX_TIMER_MS } from "../../src/runtime/clock.js";
import { isRecord, namedKeys, POSTGRES_URL, postgresInBrowser, unknownKeys } from "../../src/runtime/values.js";
import { checkedRecords, corrupt, storedLength } from "./damage.js";
import { defaultLocks, webLockLiveness } from "./liveness.js";
import { openStoreDB, type StoreDB, type StoreSchema } from "./schema.js";
import { Wakeups } from "./wake.js";

/**
 * Options of the IndexedDB store.
 *
 * @example
 * indexedDBStore("desk", { locks: null, pollMs: 500 });
 */
export interface IndexedDBStoreOptions {
  /**
   * The Web Locks API for `liveness` (default `navigator.locks`); `null`
   * leaves `liveness` out. Where there is none, `liveness` is absent.
   */
  locks?: LockManager | null;
  /**
   * Where BroadcastChannel is missing, how often `wait` reads the length
   * instead (ms, default 250). Where it is there, `wait` also reads the
   * length every 2 s (or `pollMs`, if longer): a tab closed between its
   * append and its notice takes the notice along.
   */
  pollMs?: number;
  /**
   * How long an operation waits for the database to open before it fails
   * with `store-io` (ms, default 10 000). An open waits while another tab
   * keeps the database open through a deletion or upgrade it blocks.
   */
  openTimeoutMs?: number;
}

/** How often a `wait` reads the length where BroadcastChannel wakes it (a notice lost with a tab closed after its commit). */
const BACKSTOP_MS = 2_000;

/** The default `openTimeoutMs`: far past a slow disk's open, short enough for a person to be told. */
const OPEN_TIMEOUT_MS = 10_000;

/** The keys `IndexedDBStoreOptions` has: any other (a slip, `openTimeout`, `lock`) would be left out without a word. */
const OPTION_KEYS = ["locks", "pollMs", "openTimeoutMs"];

/**
 * Refuses (input-invalid) options that are not an object (null was a TypeError, a string read as none), a key the
 * store does not take, and a `locks` that is not a Web Locks API (taken, it failed the first turn with a bare
 * TypeError about `request`). `pollMs` and `openTimeoutMs` are checked where they are read.
 */
function checkOptions(name: string, options: unknown): asserts options is IndexedDBStoreOptions {
  if (!isRecord(options)) {
    throw new FunctaiError(
      "input-invalid",
      `indexedDBStore "${name}": its options are an object such as { openTimeoutMs: 30000 }, not ${describeValue(options, 40)}.`,
    );
  }
  const extra = unknownKeys(Object.keys(options), OPTION_KEYS);
  if (extra.length > 0) {
    throw new FunctaiError(
      "input-invalid",
      `indexedDBStore "${name}": ${namedKeys(extra, "is not an option", "are not options")}; its options are ${OPTION_KEYS.join(", ")}.`,
    );
  }
  const { locks } = options as { locks?: unknown };
  if (locks === undefined || locks === null) return;
  const api = locks as { request?: unknown; query?: unknown };
  if (typeof locks !== "object" || typeof api.request !== "function" || typeof api.query !== "function") {
    throw new FunctaiError(
      "input-invalid",
      `indexedDBStore "${name}": locks is a Web Locks API (navigator.locks: request and query), or null for none, not ${describeValue(locks, 40)}.`,
    );
  }
}

/**
 * How many levels of objects and arrays a record may nest (the record itself is the first). The browser writes deeper
 * ones and reads them back as null (Chromium: past ~2,500 levels in a page, ~1,260 in a worker, whose stack is
 * smaller), or its write throws (~5,000): kept, such a record would make its conversation unreadable in every tab.
 * No record of a conversation comes near: a model's output, a tool's input or result nested hundreds deep is a bug.
 */
const MAX_RECORD_DEPTH = 512;

/** Refuses (input-invalid) a record nested more than MAX_RECORD_DEPTH levels deep: before anything of its batch is written. */
function checkDepth(name: string, conversation: string, record: object, index: number): void {
  const stack: [unknown, number][] = [[record, 1]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!;
    if (typeof value !== "object" || value === null) continue;
    if (depth > MAX_RECORD_DEPTH) {
      throw new FunctaiError(
        "input-invalid",
        `indexedDBStore "${name}", ${conversation}: record ${index + 1} of the batch is nested more than ${MAX_RECORD_DEPTH} levels deep, ` +
          "deeper than a browser reads back from IndexedDB (it would read as null, and the conversation could not be read again).",
      );
    }
    for (const item of Array.isArray(value) ? value : Object.values(value)) stack.push([item, depth + 1]);
  }
}

/**
 * What to do, said after a failure the browser gave as QuotaExceededError (its message is often empty): the origin's
 * storage quota, or the disk under it, is full. The browser aborted the whole transaction, so nothing of it was kept.
 */
function quotaRemedy(e: unknown): string {
  if ((e as { name?: unknown } | null)?.name !== "QuotaExceededError") return "";
  return (
    " This site's storage quota in this browser is full (or the device's disk is), so nothing of it was kept. " +
    "Free some space: delete conversations or databases this site no longer needs, or clear data of other sites; " +
    "or ask the browser to keep this site's data (navigator.storage.persist()). Then try again."
  );
}

/** Whether this environment has IndexedDB (Node has none, nor have some sandboxed frames and privacy modes). */
const hasIndexedDB = (): boolean => {
  const idb = (globalThis as { indexedDB?: unknown }).indexedDB;
  return typeof idb === "object" && idb !== null;
};

type AppendTx = IDBPTransaction<StoreSchema, ("records" | "lengths")[], "readwrite">;

/**
 * A store in IndexedDB (database `name`), shared by every tab of the origin.
 * Appends are one transaction that checks the length and writes every record
 * (all or none); other tabs hear of them on the BroadcastChannel
 * `functai-store:<name>`; a running turn's Web Lock (`liveness`) tells other
 * tabs that its tab is alive even when its throttled timers let the lease lapse.
 * `liveness.hold` waits while another holder has the lock; `close` frees the
 * locks this handle holds and withdraws its waiting holds. What it reads is
 * checked (see damage.ts): a length or record it did not write so is
 * `store-corrupt`, never misread, and an append never overwrites a record.
 *
 * @example
 * ```ts
 * import { indexedDBStore } from "functai/indexeddb";
 * const store = indexedDBStore("desk-chats");
 * const chat = desk.conversation("sam", { store, approve: "changes" });
 * // another tab: wake when the conversation grows past 12 records, or give up after 30 s
 * await store.wait!("sam", 12, 30_000);
 * ```
 *
 * @example
 * const store = indexedDBStore("desk");
 * const chat = desk.conversation("sam", { store });
 */
export function indexedDBStore(name = "functai", options: IndexedDBStoreOptions = {}): Store {
  // A name that is not a string would be turned into one ("[object Object]", "42"): another database than meant.
  if (typeof name !== "string") {
    throw new FunctaiError("input-invalid", `indexedDBStore: the database name is a string, not ${describeValue(name, 40)}.`);
  }
  // A postgres:// URL names the Postgres store (Node only): taken as a name, it made a database named after it, the
  // URL's password in its name, and kept the conversations in this browser. Refused as every store option is (values.ts).
  if (POSTGRES_URL.test(name)) throw postgresInBrowser();
  checkOptions(name, options);
  const pollMs = options.pollMs ?? 250;
  // 0, a negative or NaN would poll as fast as timers run; Infinity and past a timer's reach, once a millisecond.
  if (typeof pollMs !== "number" || !(pollMs > 0) || pollMs > MAX_TIMER_MS) {
    throw new FunctaiError(
      "input-invalid",
      `indexedDBStore "${name}": pollMs is a number of milliseconds above 0, not ${describeValue(pollMs, 40)}.`,
    );
  }
  const openTimeoutMs = options.openTimeoutMs ?? OPEN_TIMEOUT_MS;
  if (typeof openTimeoutMs !== "number" || !(openTimeoutMs > 0) || openTimeoutMs > MAX_TIMER_MS) {
    throw new FunctaiError(
      "input-invalid",
      `indexedDBStore "${name}": openTimeoutMs is a number of milliseconds above 0, not ${describeValue(openTimeoutMs, 40)}.`,
    );
  }
  const wakeups = new Wakeups(`functai-store:${name}`);
  let db: Promise<StoreDB> | undefined;
  let closed = false;
  const closing = new AbortController(); // aborted by close: ends the waits for an open
  let settledOpen: Promise<StoreDB> | undefined; // the last open that settled

  const fail = (what: string, e: unknown): FunctaiError =>
    e instanceof FunctaiError
      ? e
      : new ConversationError("store-io", `IndexedDB store "${name}": ${what} failed: ${describeError(e)}${quotaRemedy(e)}`, { cause: e });

  const closedError = (): ConversationError => new ConversationError("store-io", `IndexedDB store "${name}" is closed.`);

  /**
   * Another tab (or the browser, clearing the site's data) deleted the database under this handle: what it held is
   * gone, and a turn that goes on would write its later records into a new, empty database where no reader can
   * place them. This handle refuses from then on; a new handle (`indexedDBStore(name)`) starts a new database.
   */
  let deleted = false;
  /** Whether this handle has opened the database: from then on, finding none means it was deleted (see openStoreDB). */
  let known = false;
  const deletedError = (): ConversationError =>
    new ConversationError(
      "store-io",
      `IndexedDB store "${name}": the database was deleted under this handle (by another tab, or the browser clearing this site's data); ` +
        "what it held is gone, and this handle writes nothing more. Open the store again (indexedDBStore) to start anew.",
    );

  // (Node without fake-indexeddb, a server render, a sandboxed frame, a privacy mode that removes it)
  const missingError = (): ConversationError =>
    new ConversationError("store-io", `IndexedDB store "${name}": this environment has no IndexedDB (globalThis.indexedDB is missing).`);

  const check: (conversation: string) => void = checkConversationId;

  // (input-invalid, as every store says it)
  const checkAfter = (after: number, conversation = ""): void => checkAfterOf(conversation, after);

  const slowOpenError = (): ConversationError =>
    new ConversationError(
      "store-io",
      `IndexedDB store "${name}": its database did not open within ${openTimeoutMs} ms. Most likely another tab or window of this site ` +
        "keeps it open and will not let go (a page of an older version of this app, or one that opens the database itself), so a " +
        "deletion or upgrade of it waits, and every open after it. Close or reload that tab, then try again.",
    );

  /**
   * The open database, opened again after another tab's upgrade or the browser closed it (when it is still there:
   * one gone since, see openStoreDB, is refused as deleted). The browser lets an open
   * wait for ever behind another tab's connection: each caller waits openTimeoutMs at most, while the open itself
   * goes on, so a later call gets the database once that tab lets go.
   */
  const open = (): Promise<StoreDB> => {
    if (closed) return Promise.reject(closedError());
    if (deleted) return Promise.reject(deletedError());
    if (!hasIndexedDB()) return Promise.reject(missingError());
    if (db === undefined) {
      const opening: Promise<StoreDB> = openStoreDB(
        name,
        (gone) => {
          if (gone) deleted = true;
          if (db === opening) db = undefined;
          wakeups.rouse(); // a wait pending learns it now (store-io), not at its next look at the length
        },
        known,
      );
      db = opening;
      opening.then(
        (opened) => {
          settledOpen = opening;
          known = true;
          // Opened after this handle closed (close did not wait for it): let go of it at once.
          if (closed) opened.close();
        },
        () => {
          settledOpen = opening;
          if (db === opening) db = undefined;
        },
      );
    }
    const opening = db;
    return new Promise<StoreDB>((resolve, reject) => {
      // A close while the open waits ends the wait too: the caller is told the store closed, not kept waiting.
      // An open already done is not a wait: an append given the database before the close still commits.
      const onClose = (): void => {
        if (settledOpen !== opening) end(() => reject(closedError()));
      };
      const timer = setTimeout(() => end(() => reject(slowOpenError())), openTimeoutMs);
      const end = (settle: () => void): void => {
        clearTimeout(timer);
        closing.signal.removeEventListener("abort", onClose);
        settle();
      };
      closing.signal.addEventListener("abort", onClose, { once: true });
      opening.then(
        (opened) => end(() => resolve(opened)),
        (e: unknown) => end(() => reject(deleted ? deletedError() : e)),
      );
    });
  };

  const length = async (conversation: string): Promise<number> => {
    check(conversation);
    try {
      return storedLength(name, conversation, await (await open()).get("lengths", conversation));
    } catch (e) {
      throw fail("length", e);
    }
  };

  const append: Store["append"] = async (conversation, records, given) => {
    const opts = given ?? {}; // (null too: no options, as the other stores take it, never a TypeError)
    check(conversation);
    const batch = checkRecords(conversation, records); // (the batch as it is now)
    checkExpect(conversation, opts.expect);
    // kept as their JSON reads back, as the other stores keep them: a BigInt or a cycle is refused before anything is
    // written (input-invalid), and a Date, Map or NaN is never kept as itself (structured clone would keep it)
    const kept = batch.map((r, i) => JSON.parse(recordJson(conversation, r, i)) as object);
    kept.forEach((r, i) => checkDepth(name, conversation, r, i));
    const { expect } = opts;
    const durable = isDurable(opts);
    const begin = async (): Promise<AppendTx> =>
      (await open()).transaction(["records", "lengths"], "readwrite", { durability: durable ? "strict" : "relaxed" });
    const tx = await begin().catch((e: unknown) => Promise.reject(fail("append", e)));
    // Every request's promise, and tx.done, gets a handler: an abort rejects them all.
    const pending: Promise<unknown>[] = [tx.done];
    let newLength: number;
    try {
      const before = storedLength(name, conversation, await tx.objectStore("lengths").get(conversation));
      // The check and the writes share one transaction: no other append (any tab) runs between them.
      if (expect !== undefined && expect !== before) {
        throw storeConflict(conversation, expect, before);
      }
      // (the records written, never `records`: changed since, perhaps)
      newLength = before + kept.length;
      if (kept.length === 0) {
        tx.abort(); // nothing to write
        pending.forEach((p) => p.catch(() => {}));
        return before;
      }
      const store = tx.objectStore("records");
      kept.forEach((r, i) => {
        const seq = before + i + 1;
        // A record that cannot be cloned throws here, synchronously. `add`, not `put`: a record already
        // standing past the length (damage) fails the append instead of being overwritten.
        pending.push(store.add(withSeq(r, seq) as ConversationRecord, [conversation, seq]));
      });
      pending.push(tx.objectStore("lengths").put(newLength, conversation));
      await Promise.all(pending);
    } catch (caught) {
      // A request of a transaction the browser aborted (quota exceeded, …) fails with only "AbortError":
      // why it was aborted is the transaction's own error.
      const e = (caught as { name?: unknown } | null)?.name === "AbortError" && tx.error ? tx.error : caught;
      // all or none: the transaction aborts on any failure, taking every queued write with it.
      pending.forEach((p) => p.catch(() => {}));
      try {
        tx.abort();
      } catch {
        // already aborted (a failed request aborts it) or finished
      }
      if ((e as { name?: unknown } | null)?.name === "ConstraintError") {
        throw corrupt(name, conversation, "a record already stands past its stored length");
      }
      throw fail("append", e);
    }
    // Committed: now, and only now, tell waiters here and in other tabs.
    wakeups.announce({ conversation, length: newLength });
    return newLength;
  };

  const read: Store["read"] = async (conversation, after = 0) => {
    check(conversation);
    checkAfter(after, conversation);
    if (after === Infinity) return [];
    try {
      const db = await open(); // first: where there is no IndexedDB, there is no IDBKeyRange either
      const range = IDBKeyRange.bound([conversation, after], [conversation, Infinity], true, false);
      // The length and the records in one transaction: a record missing or past the length is seen, not misread.
      const tx = db.transaction(["records", "lengths"], "readonly");
      const [stored, records] = await Promise.all([tx.objectStore("lengths").get(conversation), tx.objectStore("records").getAll(range), tx.done]);
      return checkedRecords(name, conversation, after, storedLength(name, conversation, stored), records);
    } catch (e) {
      throw fail("read", e);
    }
  };

  const wait = async (conversation: string, after: number, timeoutMs: number): Promise<boolean> => {
    check(conversation);
    checkAfter(after, conversation);
    checkTimeout(conversation, timeoutMs);
    if (closed) throw closedError();
    return new Promise<boolean>((resolve, reject) => {
      let cancel: (() => void) | undefined;
      let poll: ReturnType<typeof setInterval> | undefined;
      let done = false;
      const finish = (end: () => void): void => {
        if (done) return;
        done = true;
        cancel?.();
        clearInterval(poll);
        stop();
        end();
      };
      const settle = (grew: boolean): void => finish(() => resolve(grew));
      // A length that cannot be read (damage, a newer version's database) is refused, as read refuses it, never
      // taken for "nothing appended"; once this handle closed, the close has already settled the wait false.
      const failed = (e: unknown): void => finish(() => reject(e));
      const recheck = (): Promise<void> => length(conversation).then((n) => (n > after ? settle(true) : undefined));
      // A notice only makes the wait read the length: any script of the origin can post on the channel (another
      // program, an older build, DevTools), and the wait answers true only for a length the database holds.
      const stop = wakeups.listen(conversation, after, (grew) => (grew ? void recheck().catch(failed) : settle(false))); // listen first, then look
      recheck().catch(failed);
      // without BroadcastChannel, polled; with it, looked at now and then all the same: a writer tab closed between its
      // commit and its notice takes the notice along, and a wait with no deadline would never wake
      poll = setInterval(() => void recheck().catch(failed), wakeups.crossTab ? Math.max(pollMs, BACKSTOP_MS) : pollMs);
      const ms = waitTimerMs(timeoutMs); // NaN and negatives: look once, then answer; Infinity: none; past a timer's reach: in parts
      if (ms !== null) {
        // At the deadline, the length itself decides: a notice lost (a writer that died before posting) costs nothing.
        cancel = waitTimer(ms, () => void length(conversation).then((n) => settle(n > after), failed));
      }
    });
  };

  const list = async (): Promise<string[]> => {
    try {
      // Only conversation ids: a key another program of the origin put there names no conversation of ours.
      return (await (await open()).getAllKeys("lengths")).filter(isConversationId);
    } catch (e) {
      throw fail("list", e);
    }
  };

  const locks = options.locks === undefined ? defaultLocks() : (options.locks ?? undefined);
  const live = locks ? webLockLiveness(locks, name, check) : undefined;

  const close = async (): Promise<void> => {
    if (closed) return;
    const opened = db;
    closed = true;
    db = undefined;
    closing.abort();
    wakeups.close();
    live?.releaseAll();
    // Transactions already started still commit (a connection closes once they end). An open still waiting
    // (behind another tab) is not waited for: its connection is closed when it comes (see open).
    if (opened !== undefined && settledOpen === opened) (await opened.catch(() => undefined))?.close();
  };

  return {
    durability: "disk",
    append,
    read,
    wait,
    list,
    length,
    close,
    ...(live ? { liveness: live.liveness } : {}),
  };
}
