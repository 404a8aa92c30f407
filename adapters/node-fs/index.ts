/**
 * `functai/node-fs`: conversations as JSONL files, one per conversation, at
 * `<dir>/conversations/<id>.jsonl`. Every append takes a cross-process lock,
 * writes its batch with one write and fsyncs before it resolves.
 */
import { constants, fstatSync, fsyncSync, ftruncateSync, openSync, writeSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { readdir, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { checkConversationId, checkRecords, storeConflict } from "../../src/store/memory.js";
import type { ConversationRecord } from "../../src/records/types.js";
import type { Store } from "../../src/store/types.js";
import { isConversationId } from "../../src/store/types.js";
import { closeFd, fsyncFd, io, makeDir, openFdIfExists, readAt, scanFd, statOrUndefined, syncDir, syncDirNow, unchanged, type Known } from "./files.js";
import { encodeBatch, recordBody, Scanner } from "./jsonl.js";
import { withLock, type Held } from "./lock.js";

/**
 * Options of the file store.
 *
 * @example
 * const store = fsStore(".functai/chats", { flush: "pool" });
 */
export interface FsStoreOptions {
  /** Called once per fsync of a conversation file (benchmarks count flushes). */
  onFlush?: () => void;
  /**
   * Where an append waits for its fsync. `"auto"` (the default): in this
   * thread while recent flushes took under 1 ms, else in libuv's thread pool.
   * A fast flush blocks the event loop for less than the two thread hand-offs
   * of a pooled one cost (measured inside a turn: a pooled fsync adds ~40% to
   * each durable step); a slow disk sends flushes to the pool after the
   * first slow one, so it never stalls the event loop for long. `"thread"`:
   * always in this thread; `"pool"`: always in the pool.
   */
  flush?: "auto" | "thread" | "pool";
  /** A lock older than this whose holder is dead may be broken (default 5000 ms). */
  lockStaleMs?: number;
  /** An append gives up with `store-io` after waiting this long for the lock (default 30000 ms). */
  lockTimeoutMs?: number;
  /** How often `wait` looks at the file's size (default 20 ms). */
  pollMs?: number;
  /**
   * `read` keeps the records it parsed (frozen) for conversations whose files
   * add up to at most this many bytes (default 16 MiB; 0 keeps none), and
   * next time parses only what was appended since.
   */
  readCacheBytes?: number;
  /**
   * `scan` streams a conversation file this many bytes at a time (default
   * 1 MiB), keeping no record. A file of up to 4 MiB that the read cache may
   * keep is read whole and kept instead (its turn is often resumed next).
   */
  scanChunkBytes?: number;
}

/** Conversation files a store keeps open between appends, and for how long without one. */
const HANDLES = 8;
const IDLE_MS = 2_000;
/** Under `flush: "auto"`, flushes stay in this thread while they average less than this. */
const FAST_FLUSH_MS = 1;
/** `scan` reads conversation files this many bytes at a time… */
const SCAN_CHUNK = 1 << 20;
/** …except files of up to this many bytes: read whole, and kept in the read cache (as `read` does). */
const SCAN_WHOLE = 4 << 20;

/**
 * A store on the file system (durability `"disk"`): owner-only files
 * (0o600) and directories (0o700), a lock per append across processes, the
 * batch on disk (fsync) before `append` resolves. A torn last line left by a
 * crash is ignored by `read` and cut by the next append; damage before the
 * last line is refused with `store-corrupt`, never skipped.
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
  const root = join(resolve(dir), "conversations");
  const lock = { staleMs: options.lockStaleMs ?? 5_000, timeoutMs: options.lockTimeoutMs ?? 30_000 };
  const pollMs = options.pollMs ?? 20;
  const scanChunk = Math.max(1, Math.floor(options.scanChunkBytes ?? SCAN_CHUNK));
  const flushIn = options.flush ?? "auto";
  if (flushIn !== "auto" && flushIn !== "thread" && flushIn !== "pool") {
    throw new TypeError(`fsStore: flush must be "auto", "thread" or "pool", not ${JSON.stringify(flushIn)}.`);
  }
  let flushMs = 0; // moving average of recent flushes (auto)
  let pooled = 0; // flushes in the thread pool now
  const inThread = (): boolean => flushIn === "thread" || (flushIn === "auto" && pooled === 0 && flushMs < FAST_FLUSH_MS);
  /** One fsync of a conversation file, in this thread (then it returns nothing to wait for) or the pool (see `flush`). */
  const flush = (fd: number): Promise<void> | undefined => {
    const t0 = performance.now();
    const took = (): void => void (flushMs = 0.75 * flushMs + 0.25 * (performance.now() - t0));
    if (inThread()) {
      fsyncSync(fd);
      took();
      return undefined;
    }
    pooled++;
    return fsyncFd(fd).finally(() => {
      pooled--;
      took();
    });
  };
  const known = new Map<string, Known>(); // written only under the lock
  const me = {}; // this store, as the `writer` of a lock it holds
  // Records `read` parsed, by conversation (least recently read first). Valid
  // while the file has the same inode and is not shorter than `end`: the file
  // is append-only and a repair only cuts a torn tail after the last committed
  // line, so the bytes before `end` are the ones parsed (the rule `known` uses).
  const parsed = new Map<string, Known & { records: ConversationRecord[] }>();
  // Where the last `scan` of a conversation ended (nothing of it kept): a read after it reads on from there.
  const marks = new Map<string, Known>();
  const cacheMax = options.readCacheBytes ?? 16 * 2 ** 20;
  let cachedBytes = 0;
  const forget = (conversation: string): void => {
    const c = parsed.get(conversation);
    if (c === undefined) return;
    parsed.delete(conversation);
    cachedBytes -= c.end;
  };
  const wakers = new Set<() => void>();
  let dirReady: Promise<void> | undefined;
  let dirMade = false; // (then no await before the lock)
  let closed = false;

  const fileOf = (conversation: string): string => {
    checkConversationId(conversation); // never a path from an unchecked id
    return join(root, `${conversation}.jsonl`);
  };

  const count = async (conversation: string, file: string): Promise<number> => {
    const fd = openFdIfExists(file, "r");
    if (fd === undefined) return 0;
    try {
      return (await scanFd(fd, file, known.get(conversation))).count;
    } catch (e) {
      throw io(file, e);
    } finally {
      closeFd(fd);
    }
  };

  // Conversation files this store appended to, kept open between appends
  // (at most HANDLES, all closed after IDLE_MS without an append and on
  // `close`). Used only under the lock, after a `stat` of the path shows the
  // same inode: a file removed or replaced meanwhile is opened anew.
  const handles = new Map<string, { fd: number; ino: number }>();
  // A handle an append is using (another conversation's, under its own lock) is never closed under it:
  // dropped meanwhile, it is closed when that append lets go of it (a closed number could be reused by
  // the next open, and the append's bytes land in another file).
  const busy = new Set<number>();
  const doomed = new Set<number>();
  let idle: ReturnType<typeof setTimeout> | undefined;
  let used = false;
  const drop = (conversation: string): void => {
    const h = handles.get(conversation);
    if (h === undefined) return;
    handles.delete(conversation);
    if (busy.has(h.fd)) doomed.add(h.fd);
    else closeFd(h.fd);
  };
  const dropAll = (): void => {
    for (const id of [...handles.keys()]) drop(id);
    if (idle !== undefined) clearTimeout(idle);
    idle = undefined;
  };
  const keep = (conversation: string, fd: number, ino: number): void => {
    handles.delete(conversation); // re-added as the most recently used
    handles.set(conversation, { fd, ino });
    for (const [id] of handles) {
      if (handles.size <= HANDLES) break;
      drop(id);
    }
    used = true;
    if (idle === undefined) {
      const tick = (): void => {
        if (used) {
          used = false;
          idle = setTimeout(tick, IDLE_MS);
          idle.unref?.();
        } else dropAll();
      };
      idle = setTimeout(tick, IDLE_MS);
      idle.unref?.();
    }
  };

  // Under the lock, an append is: a stat of the path (a cached descriptor is
  // reused when the inode is the same; no stat at all when this store wrote
  // last and the lock never left this process since), a write, then one
  // fsync (see `flush`). All but a pooled fsync are synchronous: they only
  // touch the page cache, and a thread-pool round trip costs more than the
  // call. The file is read only when its size is not what this store last
  // wrote (another process appended).
  const appendLocked = async (conversation: string, file: string, bodies: string[], expect: number | undefined, held: Held) => {
    // This store wrote last, and the lock never left this process since: the file is as it left it.
    const mine = held.writer === me ? handles.get(conversation) : undefined;
    const last = mine !== undefined ? known.get(conversation) : undefined;
    const st = last !== undefined ? { ino: mine!.ino, size: last.end } : statOrUndefined(file);
    let reused = handles.get(conversation);
    if (reused !== undefined && reused.ino !== st?.ino) {
      drop(conversation); // removed or replaced since: opened anew
      reused = undefined;
    }
    const created = st === undefined;
    if (created) {
      // Refuse before creating: a refused append leaves no empty file behind.
      if (expect !== undefined && expect !== 0) throw storeConflict(conversation, expect, 0);
      if (bodies.length === 0) return 0;
    }
    let fd: number;
    if (reused !== undefined) fd = reused.fd;
    else {
      // No O_TRUNC: under the lock nobody else creates it, but never risk cutting records.
      try {
        fd = openSync(file, constants.O_RDWR | constants.O_CREAT, 0o600);
      } catch (e) {
        throw io(file, e);
      }
    }
    let ok = false;
    busy.add(fd);
    try {
      // A file only this store wrote since it last looked needs no read: no await before the write.
      const seen = (reused !== undefined ? unchanged(st!, known.get(conversation)) : undefined) ?? (await scanFd(fd, file, known.get(conversation)));
      known.set(conversation, { ino: seen.ino, end: seen.end, count: seen.count });
      if (expect !== undefined && expect !== seen.count) {
        ok = true;
        throw storeConflict(conversation, expect, seen.count);
      }
      if (bodies.length === 0) {
        ok = true;
        return seen.count;
      }
      // Cut a torn tail first, so the new batch is never glued to half a line.
      if (seen.torn) ftruncateSync(fd, seen.end);
      const data = encodeBatch(bodies, seen.count + 1);
      try {
        for (let done = 0; done < data.length; ) done += writeSync(fd, data, done, data.length - done, seen.end + done);
        const pending = flush(fd);
        if (pending !== undefined) await pending;
        options.onFlush?.();
        if (created) {
          if (inThread()) syncDirNow(root); // (where flushes go: a directory's fsync is one too)
          else await syncDir(root);
        }
      } catch (e) {
        // all or none: take back whatever part of the batch reached the file.
        known.delete(conversation);
        try {
          ftruncateSync(fd, seen.end);
          await fsyncFd(fd);
        } catch {
          // the next append cuts a torn tail anyway
        }
        throw e;
      }
      known.set(conversation, { ino: seen.ino, end: seen.end + data.length, count: seen.count + bodies.length });
      held.writer = me;
      ok = true;
      return seen.count + bodies.length;
    } finally {
      busy.delete(fd);
      doomed.delete(fd); // (still open: kept again below, or closed)
      // Kept open for the next append unless something went wrong with it.
      if (ok && !closed) keep(conversation, fd, known.get(conversation)?.ino ?? -1);
      else if (handles.get(conversation)?.fd === fd) drop(conversation);
      else closeFd(fd);
    }
  };

  const store: Store = {
    durability: "disk",

    async append(conversation, records, opts) {
      const file = fileOf(conversation);
      checkRecords(conversation, records);
      const bodies = records.map((r, i) => recordBody(conversation, r, i)); // before the lock: may throw, nothing written
      if (!dirMade) {
        dirReady ??= makeDir(root).then(
          () => void (dirMade = true),
          (e: unknown) => {
            dirReady = undefined;
            throw e;
          },
        );
        await dirReady;
      }
      let length: number;
      try {
        length = await withLock(`${file}.lock`, lock, (held) => appendLocked(conversation, file, bodies, opts?.expect, held));
      } catch (e) {
        throw io(file, e);
      }
      if (bodies.length > 0) for (const wake of [...wakers]) wake();
      return length;
    },

    async read(conversation, after = 0) {
      const file = fileOf(conversation);
      const from = Math.max(0, after);
      const fd = openFdIfExists(file, "r");
      if (fd === undefined) {
        forget(conversation);
        marks.delete(conversation);
        return [];
      }
      try {
        const mark = marks.get(conversation);
        if (mark !== undefined && from >= mark.count && !parsed.has(conversation)) {
          // Reading on after a scan: only the bytes after it (all of them when the file changed otherwise).
          const seen = await scanFd(fd, file, mark, from, true);
          marks.set(conversation, { ino: seen.ino, end: seen.end, count: seen.count });
          return seen.records;
        }
        if (cacheMax <= 0) return (await scanFd(fd, file, undefined, from)).records;
        const cached = parsed.get(conversation);
        forget(conversation); // re-added below, as the most recently read
        // Only the bytes after what was parsed before are read and parsed (all of them when the file changed otherwise).
        const seen = await scanFd(fd, file, cached, 0, true);
        const fresh = seen.records;
        for (const r of fresh) Object.freeze(r); // shared by every later read: nobody edits the journal
        const reused = cached !== undefined && seen.base === cached.end;
        const records = reused ? cached.records : [];
        for (const r of fresh) records.push(r);
        const entry = { ino: seen.ino, end: seen.end, count: seen.count, records };
        if (entry.end <= cacheMax) {
          parsed.set(conversation, entry);
          cachedBytes += entry.end;
          for (const [id] of parsed) {
            if (cachedBytes <= cacheMax) break;
            forget(id);
          }
        }
        return from === 0 ? records.slice() : records.slice(from);
      } catch (e) {
        throw io(file, e);
      } finally {
        closeFd(fd);
      }
    },

    async scan(conversation, after, visit) {
      const file = fileOf(conversation);
      const small = statOrUndefined(file);
      if (small !== undefined && small.size <= Math.min(cacheMax, SCAN_WHOLE)) {
        // A short conversation is read whole and kept, as `read` keeps it (its turn is often resumed next).
        const records = await store.read(conversation);
        for (const r of records) if (r.seq > after) visit(r);
        return records.length > 0 ? records.at(-1)!.seq : 0;
      }
      const fd = openFdIfExists(file, "r");
      if (fd === undefined) {
        marks.delete(conversation);
        return 0;
      }
      let failed: { error: unknown } | undefined; // what `visit` threw: passed on as it is
      const emit = (r: ConversationRecord): void => {
        try {
          visit(Object.freeze(r));
        } catch (error) {
          failed = { error };
          throw error;
        }
      };
      try {
        const { ino, size } = fstatSync(fd);
        // Up to the size seen now, SCAN_CHUNK bytes at a time; a line longer than that grows the buffer.
        const scanner = new Scanner({ file, base: 0, before: 0, after: Math.max(0, after) }, emit);
        let buf = Buffer.allocUnsafe(Math.min(scanChunk, Math.max(size, 1)));
        let carry = 0;
        let position = 0;
        while (position < size) {
          if (carry === buf.length) buf = Buffer.concat([buf, Buffer.allocUnsafe(buf.length)]);
          const n = await readAt(fd, buf, carry, Math.min(buf.length - carry, size - position), position);
          if (n === 0) break; // cut meanwhile
          position += n;
          const filled = carry + n;
          const used = scanner.push(buf.subarray(0, filled));
          buf.copy(buf, 0, used, filled);
          carry = filled - used;
        }
        const seen = scanner.finish(position);
        marks.set(conversation, { ino, end: seen.end, count: seen.count });
        return seen.count;
      } catch (e) {
        if (failed !== undefined && e === failed.error) throw e;
        throw io(file, e);
      } finally {
        closeFd(fd);
      }
    },

    async length(conversation) {
      return count(conversation, fileOf(conversation));
    },

    async wait(conversation, after, timeoutMs) {
      const file = fileOf(conversation);
      const deadline = Date.now() + timeoutMs;
      let lastSize = -1;
      for (;;) {
        // Cheap poll: only scan when the size moved.
        const size = await stat(file).then((s) => s.size, () => 0);
        if (size !== lastSize) {
          lastSize = size;
          if ((await count(conversation, file)) > after) return true;
        }
        const left = deadline - Date.now();
        if (left <= 0 || closed) return false;
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
        names = await readdir(root);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === "ENOENT") return [];
        throw io(root, e);
      }
      return names
        .filter((n) => n.endsWith(".jsonl"))
        .map((n) => n.slice(0, -".jsonl".length))
        .filter(isConversationId)
        .sort();
    },

    async close() {
      closed = true;
      dropAll();
      for (const wake of [...wakers]) wake();
      known.clear();
      parsed.clear();
      marks.clear();
      cachedBytes = 0;
    },
  };
  return store;
}
