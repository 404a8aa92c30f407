/**
 * A cross-process lock: a lock file created with `open(path, "wx")`
 * (exclusive create), holding the holder's pid, host and a random token.
 * Waiters back off with jitter. A lock older than `staleMs` whose holder is
 * dead (its pid is gone on this host, or it never wrote its pid) is broken.
 */
import { randomUUID } from "node:crypto";
import { closeSync, openSync, unlinkSync, writeSync } from "node:fs";
import { open, readFile, stat, unlink } from "node:fs/promises";
import { hostname } from "node:os";
import { ConversationError } from "../../src/errors.js";

export interface LockOptions {
  /** Age after which a lock whose holder is dead may be broken. */
  staleMs: number;
  /** How long to wait for the lock before giving up with `store-io`. */
  timeoutMs: number;
}

interface Holder {
  pid: number;
  host: string;
  token: string;
  at: string;
}

const HOST = hostname();
/** Tokens of the locks this process holds: a lock with our pid but a token not here was left by a dead process that had our pid. */
const held = new Set<string>();
/** Same-process callers queue here first, so they do not spin on the lock file against each other. */
const queues = new Map<string, Promise<unknown>>();

/**
 * Runs `fn` holding the lock at `path`; releases it however `fn` ends.
 *
 * @example
 * ```ts
 * await withLock("/data/conversations/sam.jsonl.lock", { staleMs: 5000, timeoutMs: 30000 }, async () => {
 *   // only one process at a time runs this
 * });
 * ```
 */
export function withLock<T>(path: string, options: LockOptions, fn: () => Promise<T>): Promise<T> {
  const previous = queues.get(path) ?? Promise.resolve();
  const run = previous.then(async () => {
    const release = await acquire(path, options);
    try {
      return await fn();
    } finally {
      release();
    }
  });
  const tail = run.catch(() => undefined);
  queues.set(path, tail);
  void tail.then(() => {
    if (queues.get(path) === tail) queues.delete(path);
  });
  return run;
}

/** Takes the lock at `path` (waiting as needed); resolves to its release. */
export async function acquire(path: string, options: LockOptions): Promise<() => void> {
  const deadline = Date.now() + options.timeoutMs;
  const me: Holder = { pid: process.pid, host: HOST, token: randomUUID(), at: new Date().toISOString() };
  for (let attempt = 0; ; attempt++) {
    if (await tryCreate(path, me)) {
      held.add(me.token);
      return () => {
        held.delete(me.token);
        // Nobody breaks a lock whose holder lives, so the file is still ours.
        try {
          unlinkSync(path);
        } catch {
          // gone already
        }
      };
    }
    if (await breakIfStale(path, options.staleMs)) continue;
    if (Date.now() >= deadline) {
      const holder = await readHolder(path);
      throw new ConversationError(
        "store-io",
        `${path}: could not take the lock in ${options.timeoutMs} ms` +
          (holder ? ` (held by pid ${holder.pid} on ${holder.host} since ${holder.at})` : "") +
          ". If no process holds it, delete the file.",
      );
    }
    // Exponential back-off, 1 ms to 50 ms, with jitter so that waiters do not move in step.
    const ms = Math.min(50, 2 ** Math.min(attempt, 6)) * (0.5 + Math.random());
    await new Promise((r) => setTimeout(r, Math.min(ms, Math.max(1, deadline - Date.now()))));
  }
}

/**
 * Creates the lock file with our holder in it. Synchronous on purpose: an
 * exclusive create, a write of ~150 bytes and a close never touch the disk
 * (no fsync), and doing them in this thread saves three thread-pool round
 * trips per append (most of an append's cost besides its fsync).
 */
async function tryCreate(path: string, me: Holder): Promise<boolean> {
  let fd: number;
  try {
    fd = openSync(path, "wx", 0o600);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw new ConversationError("store-io", `${path}: cannot create the lock file (${(e as Error).message})`, { cause: e });
  }
  try {
    const data = Buffer.from(JSON.stringify(me));
    for (let done = 0; done < data.length; ) done += writeSync(fd, data, done, data.length - done, done);
  } catch (e) {
    try {
      closeSync(fd);
    } catch {
      // already failed
    }
    await unlink(path).catch(() => undefined);
    throw new ConversationError("store-io", `${path}: cannot write the lock file (${(e as Error).message})`, { cause: e });
  }
  closeSync(fd);
  return true;
}

async function readHolder(path: string): Promise<Holder | undefined> {
  try {
    const h = JSON.parse(await readFile(path, "utf8")) as Partial<Holder>;
    return typeof h.pid === "number" && typeof h.host === "string" && typeof h.token === "string"
      ? (h as Holder)
      : undefined;
  } catch {
    return undefined;
  }
}

/** True when the lock is gone or was broken (try again at once). */
async function breakIfStale(path: string, staleMs: number): Promise<boolean> {
  const seen = await look(path, staleMs);
  if (seen !== "stale") return seen === "gone";
  // Break under a second lock, and look again under it: two breakers who both
  // saw the dead lock must not remove the fresh lock a third process took since.
  const breaker = `${path}.break`;
  let handle;
  try {
    handle = await open(breaker, "wx", 0o600);
  } catch {
    // Another process is breaking it. A breaker lock this old means that breaker died mid-break.
    const st = await stat(breaker).catch(() => undefined);
    if (st !== undefined && Date.now() - st.mtimeMs > staleMs) await unlink(breaker).catch(() => undefined);
    return false;
  }
  try {
    const again = await look(path, staleMs);
    // Only breakers remove a dead holder's file, and we are the only breaker: it is still the stale one.
    if (again === "stale") await unlink(path).catch(() => undefined);
    return again !== "live";
  } finally {
    await handle.close().catch(() => undefined);
    await unlink(breaker).catch(() => undefined);
  }
}

async function look(path: string, staleMs: number): Promise<"gone" | "live" | "stale"> {
  let st;
  try {
    st = await stat(path);
  } catch {
    return "gone"; // released meanwhile
  }
  if (Date.now() - st.mtimeMs < staleMs) return "live";
  const holder = await readHolder(path);
  // No holder written in `staleMs`: it died between creating the file and writing it.
  return holder === undefined || isDead(holder) ? "stale" : "live";
}

function isDead(holder: Holder): boolean {
  if (holder.host !== HOST) return false; // another machine's process: we cannot tell, so never break it
  if (holder.pid === process.pid) return !held.has(holder.token);
  try {
    process.kill(holder.pid, 0);
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "ESRCH"; // EPERM: it exists (another user's)
  }
}
