/**
 * `functai/node-fs`: conversations as JSONL files, one per conversation, at
 * `<dir>/conversations/<id>.jsonl`. Every append takes a cross-process lock,
 * writes its batch with one write and fsyncs before it resolves.
 */
import { constants, ftruncateSync, openSync, writeSync } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { checkConversationId, checkRecords, storeConflict } from "../../src/store/memory.js";
import type { ConversationRecord } from "../../src/records/types.js";
import type { Store } from "../../src/store/types.js";
import { isConversationId } from "../../src/store/types.js";
import { closeFd, fsyncFd, io, makeDir, openFdIfExists, scanFd, syncDir, type Known } from "./files.js";
import { encodeBatch, recordBody } from "./jsonl.js";
import { withLock } from "./lock.js";

export interface FsStoreOptions {
  /** Called once per fsync of a conversation file (benchmarks count flushes). */
  onFlush?: () => void;
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
}

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
  const known = new Map<string, Known>(); // written only under the lock
  // Records `read` parsed, by conversation (least recently read first). Valid
  // while the file has the same inode and is not shorter than `end`: the file
  // is append-only and a repair only cuts a torn tail after the last committed
  // line, so the bytes before `end` are the ones parsed (the rule `known` uses).
  const parsed = new Map<string, Known & { records: ConversationRecord[] }>();
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

  // Under the lock, an append is: open, fstat, write (all synchronous: they
  // only touch the page cache, and a thread-pool round trip costs more than
  // the call), then one asynchronous fsync, then close. The file is read only
  // when its size is not what this store last wrote (another process appended).
  const appendLocked = async (conversation: string, file: string, bodies: string[], expect: number | undefined) => {
    const existing = openFdIfExists(file, "r+");
    const created = existing === undefined;
    if (created) {
      // Refuse before creating: a refused append leaves no empty file behind.
      if (expect !== undefined && expect !== 0) throw storeConflict(conversation, expect, 0);
      if (bodies.length === 0) return 0;
    }
    let fd: number;
    if (existing !== undefined) fd = existing;
    else {
      // No O_TRUNC: under the lock nobody else creates it, but never risk cutting records.
      try {
        fd = openSync(file, constants.O_RDWR | constants.O_CREAT, 0o600);
      } catch (e) {
        throw io(file, e);
      }
    }
    try {
      const seen = await scanFd(fd, file, known.get(conversation));
      known.set(conversation, { ino: seen.ino, end: seen.end, count: seen.count });
      if (expect !== undefined && expect !== seen.count) throw storeConflict(conversation, expect, seen.count);
      if (bodies.length === 0) return seen.count;
      // Cut a torn tail first, so the new batch is never glued to half a line.
      if (seen.torn) ftruncateSync(fd, seen.end);
      const data = encodeBatch(bodies, seen.count + 1);
      try {
        for (let done = 0; done < data.length; ) done += writeSync(fd, data, done, data.length - done, seen.end + done);
        await fsyncFd(fd);
        options.onFlush?.();
        if (created) await syncDir(root);
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
      return seen.count + bodies.length;
    } finally {
      closeFd(fd);
    }
  };

  return {
    durability: "disk",

    async append(conversation, records, opts) {
      const file = fileOf(conversation);
      checkRecords(conversation, records);
      const bodies = records.map((r, i) => recordBody(conversation, r, i)); // before the lock: may throw, nothing written
      dirReady ??= makeDir(root).catch((e: unknown) => {
        dirReady = undefined;
        throw e;
      });
      await dirReady;
      let length: number;
      try {
        length = await withLock(`${file}.lock`, lock, () => appendLocked(conversation, file, bodies, opts?.expect));
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
        return [];
      }
      try {
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
      for (const wake of [...wakers]) wake();
      known.clear();
      parsed.clear();
      cachedBytes = 0;
    },
  };
}
