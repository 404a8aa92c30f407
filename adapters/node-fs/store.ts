/**
 * `functai/node-fs`: conversations as JSONL files, one per conversation, at
 * `<dir>/conversations/<id>.jsonl`. Every append takes a cross-process lock,
 * writes its batch with one write, fsyncs, and lets the lock go before it
 * resolves (append.ts); reads take no lock (reads.ts).
 */
import { lstat, readdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import { FunctaiError, describeValue } from "../../src/errors.js";
import { MAX_TIMER_MS } from "../../src/runtime/clock.js";
import { checkAfter, checkConversationId, checkExpect, checkRecords, checkTimeout, checkVisit, isDurable } from "../../src/store/checks.js";
import type { Store } from "../../src/store/types.js";
import { isConversationId } from "../../src/store/types.js";
import { appendLocked, type Appender } from "./append.js";
import { caseTwin, caseTwinRefused, checkDir, io, isFolder, makeDir, statOrUndefined, symlinkRefused, type Known } from "./files.js";
import { Flushes } from "./flush.js";
import { HandlePool } from "./handles.js";
import { recordBody } from "./jsonl.js";
import { withLock } from "./lock.js";
import { FileReads, SCAN_CHUNK } from "./reads.js";
import { isRecord, POSTGRES_URL } from "../../src/runtime/values.js";

/** Files `list` looks into at once (a folder of many conversations: never a descriptor each). */
const LIST_AT_ONCE = 16;

/**
 * The file store's options: lock waits and staleness, how often `wait`
 * looks, and how much it reads and keeps at a time.
 *
 * @example
 * const options: FsStoreOptions = { lockTimeoutMs: 10_000, readCacheBytes: 0, openFiles: 64 };
 * const store = fsStore("desk-chats/", options);
 */
export interface FsStoreOptions {
  /** Called once per fsync of a conversation file (benchmarks count flushes). */
  onFlush?: () => void;
  /** A lock older than this whose holder is dead may be broken (default 5000 ms). */
  lockStaleMs?: number;
  /**
   * An append gives up with `store-io` after waiting this long for a lock
   * another process holds (default 30000 ms). Locks are held only for one
   * append's write and flush, so a long wait means a paused or very slow
   * holder; one whose holder died is broken at once on its own host.
   */
  lockTimeoutMs?: number;
  /**
   * Conversation files kept open between appends, the most recently
   * appended to (default 256; all are closed after 2 s without an append).
   * More conversations than this writing at once reopen their files on every
   * append. Out of descriptors, the store closes them and opens once more.
   */
  openFiles?: number;
  /** How often `wait` looks at the file (its size and change times: a new count only when they moved; default 20 ms). */
  pollMs?: number;
  /**
   * `read` keeps the lines of the records it read and checked for
   * conversations whose files add up to at most this many bytes (default
   * 16 MiB; 0 keeps none), and next time reads and checks only what was
   * appended since. Each read still parses the records it gives from the
   * kept lines: they are its own (keys frozen), as the memory store's are.
   */
  readCacheBytes?: number;
  /**
   * `scan` streams a conversation file this many bytes at a time (default
   * 1 MiB), keeping no record. A file of up to 4 MiB that the read cache may
   * keep is read whole and kept instead (its turn is often resumed next).
   */
  scanChunkBytes?: number;
}

/**
 * Refuses (input-invalid) an option that is not a number of the kind it
 * takes: a NaN lock timeout would wait for ever (no time is past NaN), a
 * poll of 0 or NaN would spin, a chunk of NaN would fail every scan with a
 * TypeError. `Infinity` is kept where it means something (wait for ever,
 * keep every file's records).
 */
function checkOptions(dir: string, options: FsStoreOptions): void {
  const wrong = (option: string, what: string, value: unknown): FunctaiError =>
    new FunctaiError("input-invalid", `fsStore "${dir}": ${option} is ${what}, not ${describeValue(value, 40)}.`);
  const counts: [keyof FsStoreOptions, number, boolean, string][] = [
    // option, least value, Infinity allowed, what it is
    ["lockTimeoutMs", 0, true, "a number of milliseconds, 0 or more"],
    ["lockStaleMs", 0, true, "a number of milliseconds, 0 or more"],
    ["readCacheBytes", 0, true, "a number of bytes, 0 or more"],
    ["openFiles", 1, true, "a number of files, 1 or more"],
    ["scanChunkBytes", 1, false, "a number of bytes, 1 or more"],
  ];
  for (const [option, least, infinite, what] of counts) {
    const value = options[option];
    if (value === undefined) continue;
    if (typeof value !== "number" || !(value >= least) || (!infinite && value === Number.POSITIVE_INFINITY)) throw wrong(option, what, value);
  }
  const { pollMs, onFlush } = options;
  if (pollMs !== undefined && (typeof pollMs !== "number" || !(pollMs > 0) || pollMs > MAX_TIMER_MS)) {
    throw wrong("pollMs", "a number of milliseconds above 0", pollMs);
  }
  if (onFlush !== undefined && typeof onFlush !== "function") throw wrong("onFlush", "a function", onFlush);
}

/**
 * A store on the file system (durability `"disk"`): owner-only files
 * (0o600) and directories (0o700), a lock per append across processes, the
 * batch on disk (fsync) before `append` resolves. The lock is taken, used
 * and let go in one synchronous stretch (the write, and the fsync too when
 * one conversation writes at a time), so no tool or other code of the
 * process ever runs while it is held; while several conversations write at
 * once, each fsync runs after its lock in libuv's pool, so flushes overlap. A torn last line left by a crash (no newline at its end) is
 * ignored by `read` and cut by the next append; any complete line that is
 * not the record expected there is refused with `store-corrupt`, never
 * skipped or overwritten. Files are opened without following symbolic links:
 * a link where a conversation file or the `conversations` folder should be
 * is refused (`store-symlink`). A `conversations` folder removed while the
 * store is open is made again by the next append, as a new store would.
 *
 * @example
 * ```ts
 * import { fsStore } from "functai/node-fs";
 * const store = fsStore("desk-chats/");
 * const n = await store.length!("sam");
 * await store.append("sam", [{ functai_conversation: 1, kind: "note", at: new Date().toISOString() }], { expect: n });
 * ```
 */
export function fsStore(dir: string, options: FsStoreOptions = {}): Store {
  // "" would be the working directory, an object "[object Object]": another folder than meant, silently.
  if (typeof dir !== "string" || dir === "") {
    throw new FunctaiError("input-invalid", `fsStore: the folder is a non-empty string (a path), not ${describeValue(dir, 40)}.`);
  }
  // A postgres:// URL (the Postgres store's location, a DATABASE_URL) made the folder "./postgres:/user:password@host…":
  // the password in a path on disk, the conversations kept there while the app took them for kept in its database.
  if (POSTGRES_URL.test(dir)) {
    throw new FunctaiError(
      "settings-invalid",
      'fsStore "postgres://…": a postgres:// URL names the PostgreSQL store, not a folder (here it would be the folder ' +
        '"./postgres:/…" under the working directory, the URL\'s password in its path). For the Postgres store give the URL as ' +
        'the store option (store: "postgres://…") or use postgresStore from "functai/postgres"; for a folder of that name write "./postgres:/…".',
    );
  }
  // (null or a string would fail later as a TypeError, or be read as no options)
  if (!isRecord(options as unknown))
    throw new FunctaiError(
      "input-invalid",
      `fsStore "${dir}": its options are an object such as { lockTimeoutMs: 5000 }, not ${describeValue(options, 40)}.`,
    );
  checkOptions(dir, options);
  const root = join(resolve(dir), "conversations");
  const lock = { staleMs: options.lockStaleMs ?? 5_000, timeoutMs: options.lockTimeoutMs ?? 30_000 };
  const pollMs = options.pollMs ?? 20;
  const known = new Map<string, Known>(); // written only under the lock
  const handles = new HandlePool(Math.max(1, Math.floor(options.openFiles ?? 256)));
  let closed = false;
  /** How many times `close` was called: a wait ends (false) at a close that came after it began, never at one before. */
  let closes = 0;
  const reads = new FileReads(known, options.readCacheBytes ?? 16 * 2 ** 20, Math.max(1, Math.floor(options.scanChunkBytes ?? SCAN_CHUNK)), () =>
    handles.dropUnused(),
  );
  // The files whose names were looked at (conversation → inode): on a folder blind to case, "Sam" must not open sam's file.
  const namesChecked = new Map<string, number>();
  const checkName = (conversation: string, file: string, ino: number): void => {
    if (namesChecked.get(conversation) === ino) return;
    const twin = caseTwin(file);
    if (twin !== undefined) throw caseTwinRefused(conversation, file, twin);
    if (namesChecked.size >= 10_000) namesChecked.clear(); // (a bound: looked at again when needed)
    namesChecked.set(conversation, ino);
  };
  const appender: Appender = {
    checkName,
    root,
    known,
    handles,
    flushes: new Flushes(),
    closed: () => closed,
    onFlush: options.onFlush,
    lastRead: (id) => reads.seen(id),
  };
  const wakers = new Set<() => void>();
  let dirReady: Promise<void> | undefined;
  let dirMade = false; // (then no await before the lock)

  const fileOf = (conversation: string): string => {
    checkConversationId(conversation); // never a path from an unchecked id
    return join(root, `${conversation}.jsonl`);
  };
  /**
   * The file of a conversation to read. O_NOFOLLOW only guards a path's last
   * part: a `conversations` folder that is a link would be read through, and
   * a turn would be shown a history from elsewhere that its next append then
   * refuses. So reads refuse the link as appends do (one lstat, no disk access).
   */
  const readable = (conversation: string): string => {
    const file = fileOf(conversation);
    if (statOrUndefined(root)?.isSymbolicLink()) throw symlinkRefused(root);
    const st = statOrUndefined(file);
    if (st !== undefined) checkName(conversation, file, st.ino);
    return file;
  };
  /** Makes the folder once (and refuses a link there); later appends go straight to the lock. */
  const ensureDir = (): Promise<void> | undefined => {
    if (dirMade) return undefined;
    // a folder already there (a conversation read before its first append here): one lstat, no thread-pool round trips
    if (dirReady === undefined && isFolder(root)) return void (dirMade = true);
    dirReady ??= makeDir(root)
      .then(() => checkDir(root))
      .then(
        () => void (dirMade = true),
        (e: unknown) => {
          dirReady = undefined;
          throw e;
        },
      );
    return dirReady;
  };

  /** Whether an append failed for a path that is not there (its folder's, as the store made it before). */
  const notFound = (e: unknown): boolean => ((e instanceof FunctaiError ? e.cause : e) as NodeJS.ErrnoException | undefined)?.code === "ENOENT";

  const store: Store = {
    durability: "disk",

    async append(conversation, records, opts) {
      const file = fileOf(conversation);
      const batch = checkRecords(conversation, records); // (the batch as it is now)
      checkExpect(conversation, opts?.expect);
      const bodies = batch.map((r, i) => recordBody(conversation, r, i)); // before the lock: may throw, nothing written
      const once = async (): Promise<number> => {
        const made = ensureDir();
        if (made !== undefined) await made;
        const written = await withLock(`${file}.lock`, lock, () => appendLocked(appender, conversation, file, bodies, opts?.expect, isDurable(opts)));
        return typeof written === "number" ? written : appender.flushes.finish(appender, written, (undo) => withLock(`${file}.lock`, lock, undo));
      };
      let length: number;
      try {
        try {
          length = await once();
        } catch (e) {
          if (!notFound(e)) throw e;
          // The folder was removed while the store was open (a clean-up, a person): nothing was written (there was
          // nowhere to write). Made again, as a new store would make it (unless another append did), and tried once more.
          if (!isFolder(root)) [dirMade, dirReady] = [false, undefined];
          length = await once();
        }
      } catch (e) {
        throw io(file, e);
      }
      if (bodies.length > 0) for (const wake of [...wakers]) wake();
      return length;
    },

    read: async (conversation, after = 0) => {
      const file = readable(conversation);
      checkAfter(conversation, after);
      return reads.read(conversation, file, after);
    },

    scan: async (conversation, after, visit) => {
      const file = readable(conversation);
      checkAfter(conversation, after);
      checkVisit(conversation, visit); // (else a TypeError from the first record, or nothing at all where there is no record to visit)
      return reads.scan(conversation, file, after, visit);
    },

    length: async (conversation) => reads.count(conversation, readable(conversation)), // (async: a bad id rejects, never throws at the call)

    async wait(conversation, after, timeoutMs) {
      const file = readable(conversation);
      checkAfter(conversation, after);
      checkTimeout(conversation, timeoutMs);
      // (NaN, negative: look once; Infinity: until an append or close)
      // (a monotonic clock: the wall clock set back would stretch the wait, set forward would end it early)
      // biome-ignore lint/complexity/useMathMinMax: Math.max(0, NaN) is NaN, which would poll for ever
      const deadline = performance.now() + (timeoutMs > 0 ? timeoutMs : 0);
      // A close ends the waits pending at it; one begun after it waits as any does (the store still reads and appends
      // after its close). Answered false at once, a caller that waits in a loop (a send queued behind a running turn)
      // spun: wait, false, read again, wait …
      const begun = closes;
      let lastLook: string | undefined;
      for (;;) {
        // Cheap poll: only count when the file changed. Its size alone does not say so: an append that cuts a
        // crash's torn tail can leave the file as long as it was (or a file made anew can be as long as the old).
        const look = await lstat(file, { bigint: true }).then(
          (s) => `${s.ino}:${s.birthtimeNs}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`,
          () => "none",
        );
        if (look !== lastLook) {
          lastLook = look;
          // (a file made since the wait began: on a folder blind to case, perhaps another conversation's)
          const st = look === "none" ? undefined : statOrUndefined(file);
          if (st !== undefined) checkName(conversation, file, st.ino);
          if ((await reads.count(conversation, file)) > after) return true;
        }
        const left = deadline - performance.now();
        if (left <= 0 || closes !== begun) return false;
        await new Promise<void>((done) => {
          const wake = (): void => {
            clearTimeout(timer);
            wakers.delete(wake);
            done();
          };
          const timer = setTimeout(wake, Math.min(pollMs, left));
          wakers.add(wake); // our own appends wake us at once; other processes' are polled
        });
      }
    },

    async list() {
      let names: string[];
      try {
        if (statOrUndefined(root)?.isSymbolicLink()) throw symlinkRefused(root);
        names = await readdir(root);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === "ENOENT") return [];
        throw io(root, e);
      }
      const ids = names
        .filter((n) => n.endsWith(".jsonl"))
        .map((n) => n.slice(0, -".jsonl".length))
        .filter(isConversationId)
        .sort();
      // A file a process killed inside the conversation's first append left empty (or with a torn first batch)
      // is no conversation: a read gives nothing, and every other store lists only conversations written to.
      const holds = new Array<boolean>(ids.length);
      let next = 0;
      const worker = async (): Promise<void> => {
        while (next < ids.length) {
          const i = next++;
          holds[i] = await reads.holdsAny(ids[i]!, join(root, `${ids[i]}.jsonl`));
        }
      };
      await Promise.all(Array.from({ length: Math.min(LIST_AT_ONCE, ids.length) }, worker));
      return ids.filter((_, i) => holds[i]);
    },

    async close() {
      closed = true;
      closes++;
      handles.dropAll();
      for (const wake of [...wakers]) wake();
      known.clear();
      reads.clear();
      namesChecked.clear();
    },
  };
  return store;
}
