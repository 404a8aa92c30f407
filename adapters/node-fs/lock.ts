/**
 * A cross-process lock, held only for one append's synchronous write and
 * flush: a symbolic link created with `symlink(2)` (atomic,
 * fails with EEXIST when the lock is held) whose target names the holder:
 * `fl1:<pid>:<host>:<token>`, where `<host>` is a short hash of the host
 * name and pid namespace, and `<token>` is random. The target stays under 60 bytes, so the
 * file system keeps it inside the inode: taking the lock is one system call
 * that allocates no data block, and releasing it is one `unlink`. (A lock
 * file written with the holder's JSON costs three calls and a data block,
 * and every fsync of the conversation file then commits that too.)
 *
 * The link is made as a hard link (`link(2)`) to this process's holder link
 * in the same folder: a symbolic link `.holder-<host>-<pid>-<nonce>` naming
 * this process, made once (holderLink). Making a symbolic link allocates an
 * inode, and with many conversations flushing at once that waited on the
 * file system's journal, 76–230 µs a lock against 21–31 µs for the hard
 * link (200 files, each a dozen lock, write, unlock and fsync cycles,
 * 2026-12-02); the lock is the same symbolic link to every reader, of this
 * version or an earlier one. Where a hard link to a symbolic link cannot be
 * made (a link(2) that follows links, a file system without hard links),
 * each lock is a symbolic link of its own, as before.
 *
 * Waiters back off with jitter, and mark the lock wanted so that a process
 * appending without a pause steps aside for them. A lock older than `staleMs` whose holder is
 * dead (its pid is gone on this host, or it names no holder) is broken.
 * Lock files of the earlier format (a regular file holding `{ pid, host,
 * token, at }` JSON) are still read, so a lock left by an older version is
 * honoured and broken by the same rules.
 */
import { createHash, randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  linkSync,
  lstatSync,
  openSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { lstat, open, readdir, readlink, symlink, unlink } from "node:fs/promises";
import { hostname } from "node:os";
import { basename, dirname, join } from "node:path";
import { threadId } from "node:worker_threads";
import { procIsOurs } from "../../runtime/processes.node.js";
import { ConversationError } from "../../src/errors.js";
import { withRemedy } from "./files.js";

export interface LockOptions {
  /** Age after which a lock whose holder is dead may be broken. */
  staleMs: number;
  /** How long to wait for the lock before giving up with `store-io`. */
  timeoutMs: number;
}

/** Who holds a lock, as read back from it. */
export interface Holder {
  pid: number;
  /** 8 hex digits of sha256(host name, NUL, pid namespace); of the host name alone for older lock files. */
  host: string;
  /** The host name itself, when the lock recorded it (older lock files). */
  hostName?: string;
  /** "link": a symlink, which names its holder from the instant it exists; "file": the earlier format. */
  format: "link" | "file";
  token: string;
}

const HOST_NAME = hostname();
/**
 * Linux's pid namespace of this process: containers sharing a host name (and
 * a volume) number their processes apart, and a pid seen from one says
 * nothing of the other. Empty where there is no /proc.
 */
const PID_NAMESPACE = (() => {
  try {
    return readlinkSync("/proc/self/ns/pid");
  } catch {
    return "";
  }
})();
const hostId = (name: string): string => createHash("sha256").update(name).digest("hex").slice(0, 8);
/** Where a pid means this process's pids: the host name and the pid namespace. */
const HOST = hostId(`${HOST_NAME}\0${PID_NAMESPACE}`);
const TARGET = /^fl1:(\d{1,10}):([0-9a-f]{8}):([0-9a-f]{16})$/;

/** The symlink target naming this process as holder, with a fresh token. */
const target = (token: string): string => `fl1:${process.pid}:${HOST}:${token}`;
/** Whether /proc speaks of our pid namespace (runtime/processes.node.ts): else a tag or state read there is another process's. */
const PROC_IS_OURS = procIsOurs();

/**
 * This process, the same in each of its worker threads (each loads this
 * module) and unlike an earlier process that had its pid: on Linux, 8 hex
 * digits of a hash of its pid and start time (`/proc/self/stat`);
 * elsewhere random (there, each thread of a process looks like a process
 * of its own).
 */
const TOLD_TAG = tagOf(process.pid);
const PROCESS_TAG = TOLD_TAG ?? randomBytes(4).toString("hex");
/**
 * Whether tags here are read from /proc (as every process of this host and
 * pid namespace reads them): then a live process that has a lock's pid but
 * not its tag is not its holder.
 */
const TAGS_TOLD = TOLD_TAG !== undefined;

/** The tag of the process `pid` of this pid namespace (a hash of its pid and start time), or undefined where /proc does not tell. */
function tagOf(pid: number): string | undefined {
  const start = procStat(pid)?.[19]; // field 22, starttime
  return start !== undefined && /^\d+$/.test(start) ? createHash("sha256").update(`${pid}:${start}`).digest("hex").slice(0, 8) : undefined;
}

/** The fields of `/proc/<pid>/stat` after the name (the first is field 3, the state), or undefined where /proc does not tell (or is not ours). */
function procStat(pid: number): string[] | undefined {
  if (!PROC_IS_OURS) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" "); // the name (field 2) may hold spaces and parentheses
  } catch {
    return undefined; // no /proc, or no such process
  }
}
/** This thread among the process's (3 hex digits). */
const THREAD = (threadId % 0x1000).toString(16).padStart(3, "0");
/**
 * Tokens: the process, the thread, then a counter (16 hex digits in all).
 * Unique among this process's locks, and unlike an earlier process's that
 * had the same pid (that is all a token is for); a counter saves a call into
 * the random source per lock.
 */
const NONCE = PROCESS_TAG + THREAD;
let issued = 0;
const nextToken = (): string => NONCE + (issued++ % 0xfffff).toString(16).padStart(5, "0"); // (never fffff: the holder links')

/** Tokens of the locks this process holds: a lock with our pid but a token not here was left by a dead process that had our pid. */
const held = new Map<string, number>();
const hold = (token: string): void => void held.set(token, (held.get(token) ?? 0) + 1);
function letGo(token: string): void {
  const n = held.get(token)! - 1;
  if (n === 0) held.delete(token);
  else held.set(token, n);
}
/** The token the holder links name: every lock linked to them holds it (counted). */
const LINKED_TOKEN = `${NONCE}fffff`;
/** Same-process callers wait in line here first, so they do not spin on the lock file against each other. */
const lines = new Map<string, { busy: boolean; waiting: (() => void)[] }>();

/**
 * Runs `fn` holding the lock at `path`, and lets go before returning. `fn`
 * is synchronous on purpose: from the moment the lock is taken to the
 * moment it is let go, no other JavaScript of this process runs (no tool,
 * plugin, approve function or timer), so a slow or paused piece of user
 * code never keeps another process waiting. Only the wait for a lock held
 * elsewhere is asynchronous.
 *
 * @example
 * ```ts
 * await withLock("/data/conversations/sam.jsonl.lock", { staleMs: 5000, timeoutMs: 30000 }, () => {
 *   // only one process at a time runs this
 * });
 * ```
 */
export async function withLock<T>(path: string, options: LockOptions, fn: () => T): Promise<T> {
  if (!hot(path) || !wanted(path)) {
    const release = tryCreate(path); // the usual case: free, taken without waiting
    if (release !== undefined) return runThenRelease(fn, release);
  } else await yieldTo(path); // another process waits for it: let it in first
  const key = lockKey(path); // (one lock reached by two paths: one line)
  let line = lines.get(key);
  if (line === undefined) lines.set(key, (line = { busy: false, waiting: [] }));
  else if (line.busy) await new Promise<void>((go) => line!.waiting.push(go));
  line.busy = true;
  try {
    return runThenRelease(fn, await acquire(path, options));
  } finally {
    // hand the line to the next caller here, or leave it
    const next = line.waiting.shift();
    if (next !== undefined) next();
    else {
      line.busy = false;
      if (lines.get(key) === line) lines.delete(key);
    }
  }
}

/**
 * A waiter in another process marks `<lock>.want` (a symbolic link, like the
 * lock) while it waits; a process about to take the lock again sees the mark
 * and steps aside until the waiter took it (the mark is gone) or `YIELD_MS`
 * passed, so a process appending without a pause cannot starve the others.
 */
const WANT = ".want";
const YIELD_MS = 100;

/**
 * When this process let go of each lock it took again soon after (a burst):
 * only a burst can starve a waiter, so only then is the `.want` mark looked
 * at. A lock let go longer ago than HOT_MS was free for that long, and a
 * waiter (backing off at most 50 ms, with jitter) had its chance to take it.
 * A forgotten entry only costs one look.
 */
const released = new Map<string, number>();
const HOT_MS = 20;
const hot = (path: string): boolean => {
  const at = released.get(path);
  return at !== undefined && performance.now() - at < HOT_MS;
};
function noteRelease(path: string): void {
  if (released.size >= 4096) released.clear();
  released.delete(path); // (kept in order of release)
  released.set(path, performance.now());
}

/** True when a waiter marked the lock as wanted (one `lstat`; no error object made for the usual answer). */
function wanted(path: string): boolean {
  try {
    return lstatSync(`${path}${WANT}`, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}

/** Waits until the waiter took the lock (its mark is gone), at most YIELD_MS; a mark left longer is removed (its waiter died or gave up). */
async function yieldTo(path: string): Promise<void> {
  const until = performance.now() + YIELD_MS; // (a monotonic clock: a wall clock set back would stretch the wait)
  while (wanted(path)) {
    if (performance.now() >= until) return unlinkQuietly(`${path}${WANT}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

/** Marks the lock as wanted (a hint: a missing or stale mark costs only time). */
function markWanted(path: string): void {
  try {
    symlinkSync(target(nextToken()), `${path}${WANT}`);
  } catch {
    // marked already, or links cannot be made here
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // gone already
  }
}

function runThenRelease<T>(fn: () => T, release: () => void): T {
  try {
    return fn();
  } finally {
    release();
  }
}

/** Takes the lock at `path` (waiting as needed); resolves to its release. */
export async function acquire(path: string, options: LockOptions): Promise<() => void> {
  // Measured on a monotonic clock: a wall clock set back an hour would keep the append waiting an hour, one set
  // forward would give up at once and blame a holder that had the lock for a moment.
  const deadline = performance.now() + options.timeoutMs;
  for (let attempt = 0; ; attempt++) {
    const release = tryCreate(path);
    if (release !== undefined) {
      if (attempt > 0) unlinkQuietly(`${path}${WANT}`);
      return release;
    }
    markWanted(path);
    const broken = await breakIfStale(path, options.staleMs).catch((e: unknown) => {
      unlinkQuietly(`${path}${WANT}`);
      throw e;
    });
    if (broken) continue;
    if (performance.now() >= deadline) {
      unlinkQuietly(`${path}${WANT}`);
      throw new ConversationError("store-io", `${path}: ${await timedOut(path, options.timeoutMs)}`);
    }
    // Exponential back-off, 1 ms to 50 ms, with jitter so that waiters do not move in step.
    const ms = Math.min(50, 2 ** Math.min(attempt, 6)) * (0.5 + Math.random());
    await new Promise((r) => setTimeout(r, Math.min(ms, Math.max(1, deadline - performance.now()))));
  }
}

/** Errors of a file system (or OS) that makes no symbolic links: the lock is then a regular file. */
const NO_SYMLINKS = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS"]);

/** This process's holder link in each folder it locks in (by {@link folderOf}), or null where locks cannot be hard links to it. */
const holderLinks = new Map<string, string | null>();
/** The folders locked in, by the path they were reached by: their device and inode (see folderOf). */
const folderIds = new Map<string, string>();

/**
 * The folder `dir` is (its device and inode), not the path it was given by:
 * one process opening one store folder by two paths (a link to it) made a
 * holder link for each path under the one name, each removed the other's,
 * and every lock fell back to a symbolic link of its own. Looked up once per
 * path (forgotten when the folder's holder link is gone: removed, made again);
 * the path itself where it cannot be looked at (the lock's own error says why).
 */
function folderOf(dir: string): string {
  let id = folderIds.get(dir);
  if (id !== undefined) return id;
  try {
    const st = statSync(dir, { bigint: true });
    id = `${st.dev}:${st.ino}`;
  } catch {
    return dir;
  }
  if (folderIds.size >= 4096) folderIds.clear(); // (a bound: looked up again when needed)
  folderIds.set(dir, id);
  return id;
}

/** A lock by the folder it is in (see folderOf) and its name: the same lock by whichever path. */
const lockKey = (path: string): string => `${folderOf(dirname(path))}/${basename(path)}`;
const HOLDER_NAME = /^\.holder-([0-9a-f]{8})-(\d{1,10})-([0-9a-f]{11})(\.probe)?$/;
let exitHooked = false;

/**
 * This process's holder link in `dir`, made the first time: a symbolic link
 * naming this process with LINKED_TOKEN. Null when a hard link to it would
 * not be a symbolic link itself (checked once, on a probe) or cannot be made.
 * A process's holder links are removed when it exits; those of processes
 * that died on this host are swept when a process makes its own.
 */
function holderLink(dir: string): string | null {
  const folder = folderOf(dir);
  const known = holderLinks.get(folder);
  if (known !== undefined) return known;
  const link = join(dir, `.holder-${HOST}-${process.pid}-${NONCE}`);
  try {
    symlinkSync(target(LINKED_TOKEN), link);
  } catch (e) {
    // no symbolic links here: never (each lock is then made as a file); else (the folder gone) not now
    const code = (e as NodeJS.ErrnoException).code ?? "";
    if (NO_SYMLINKS.has(code)) holderLinks.set(folder, null);
    else if (code === "EEXIST") unlinkQuietly(link); // ours (our pid and nonce) from an earlier try: made again next time
    return null;
  }
  let usable = false;
  try {
    const probe = `${link}.probe`;
    linkSync(link, probe);
    usable = lstatSync(probe).isSymbolicLink(); // (a link(2) that follows links made a link to its target)
    unlinkSync(probe);
  } catch {
    // no hard links here
  }
  if (!usable) {
    unlinkQuietly(link);
    holderLinks.set(folder, null);
    return null;
  }
  holderLinks.set(folder, link);
  if (!exitHooked) process.once("exit", removeHolderLinks);
  exitHooked = true;
  void sweepHolderLinks(dir);
  return link;
}

function removeHolderLinks(): void {
  for (const link of holderLinks.values()) if (link !== null) unlinkQuietly(link);
}

/**
 * Removes the holder links that processes of this host left when they died
 * (a lock still linked to one stays, and is broken as any dead holder's).
 * Links with this process's pid are left alone: worker threads of this
 * process make their own (each its own nonce), and one left by an earlier
 * process with our pid goes once we are gone too.
 */
async function sweepHolderLinks(dir: string): Promise<void> {
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names) {
    const m = HOLDER_NAME.exec(name);
    if (!m || m[1] !== HOST) continue;
    const pid = Number(m[2]);
    if (pid !== process.pid && isDead({ pid, host: HOST, token: m[3]!, format: "link" })) await unlink(join(dir, name)).catch(() => undefined);
  }
}

/**
 * Takes the lock as a hard link to this process's holder link: its release,
 * undefined when another holder has it, or null when that cannot be done
 * here (the lock is then made as a symbolic link of its own).
 */
function tryLink(path: string): (() => void) | undefined | null {
  const dir = dirname(path);
  const holder = holderLink(dir);
  if (holder === null) return null;
  try {
    linkSync(holder, path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return undefined;
    // our holder link removed (made again next time), or the folder: this lock is made the other way, which says what is wrong
    unlinkQuietly(holder);
    holderLinks.delete(folderOf(dir));
    folderIds.delete(dir); // (perhaps another folder by that path now)
    return null;
  }
  hold(LINKED_TOKEN);
  return () => {
    letGo(LINKED_TOKEN);
    noteRelease(path);
    // Nobody breaks a lock whose holder lives, so the link is still ours.
    unlinkQuietly(path);
  };
}

/**
 * Creates the lock (synchronously on purpose: one `link`, or one `symlink`,
 * that touches no data block, cheaper than a thread-pool round trip); its
 * release, or undefined when another holder has it.
 */
function tryCreate(path: string): (() => void) | undefined {
  const linked = tryLink(path);
  if (linked !== null) return linked;
  const token = nextToken();
  try {
    symlinkSync(target(token), path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? "";
    if (code === "EEXIST") return undefined;
    if (!NO_SYMLINKS.has(code))
      throw new ConversationError("store-io", withRemedy(`${path}: cannot create the lock (${(e as Error).message})`, e), { cause: e });
    if (!createFile(path, token)) return undefined; // held (as a file)
  }
  hold(token);
  return () => {
    letGo(token);
    noteRelease(path);
    // Nobody breaks a lock whose holder lives, so the link is still ours.
    try {
      unlinkSync(path);
    } catch {
      // gone already
    }
  };
}

/**
 * The lock as a regular file holding the holder's JSON (the earlier format),
 * where symbolic links cannot be made. False when it exists already.
 */
function createFile(path: string, token: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, "wx", 0o600);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw new ConversationError("store-io", withRemedy(`${path}: cannot create the lock file (${(e as Error).message})`, e), { cause: e });
  }
  try {
    writeFileSync(fd, JSON.stringify({ pid: process.pid, host: HOST_NAME, token, at: new Date().toISOString() }));
  } catch (e) {
    unlinkSync(path);
    throw new ConversationError("store-io", `${path}: cannot write the lock file (${(e as Error).message})`, { cause: e });
  } finally {
    closeSync(fd);
  }
  return true;
}

/** The holder a lock names: a symlink's target, or an older lock file's JSON. */
export async function readHolder(path: string): Promise<Holder | undefined> {
  let text: string;
  try {
    text = await readlink(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EINVAL") return undefined; // gone
    return readLegacy(path); // a regular file: the earlier format
  }
  return parseTarget(text);
}

/** Parses a lock symlink's target; undefined unless it is exactly `fl1:<pid>:<host>:<token>`. */
export function parseTarget(text: string): Holder | undefined {
  const m = TARGET.exec(text);
  if (!m) return undefined;
  const pid = Number(m[1]);
  return Number.isSafeInteger(pid) && pid > 0 ? { pid, host: m[2]!, token: m[3]!, format: "link" } : undefined;
}

async function readLegacy(path: string): Promise<Holder | undefined> {
  try {
    // never through a link planted meanwhile: only the lock file itself is read
    const file = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
    const text = await file.readFile("utf8").finally(() => file.close());
    const h = JSON.parse(text) as { pid?: unknown; host?: unknown; token?: unknown };
    return typeof h.pid === "number" && typeof h.host === "string" && typeof h.token === "string"
      ? { pid: h.pid, host: hostId(h.host), hostName: h.host, token: h.token, format: "file" }
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
  try {
    await symlink(target(nextToken()), breaker);
  } catch (e) {
    // Not for want of permission: a folder this process may read but not write, holding a lock a dead process left,
    // was taken for "another process is breaking it", and the append waited its whole lockTimeoutMs (for ever with
    // Infinity) for a break that never came, then blamed a live holder. Waiting would not change it.
    const code = (e as NodeJS.ErrnoException).code ?? "";
    if (code !== "EEXIST" && !NO_SYMLINKS.has(code)) unbreakable(path, e);
    // Another process is breaking it. A breaker lock this old, whose breaker is dead (or cannot be looked up from
    // here), was left by a breaker that died mid-break. One whose breaker lives is never taken: a breaker paused
    // (SIGSTOP, a suspended VM) just before its unlink would wake and remove the lock taken since, live, and two
    // appends would then write at the same offset.
    const st = await lstat(breaker).catch(() => undefined);
    if (st === undefined) return false;
    const holder = await readHolder(breaker);
    // A link names its breaker from its first instant: one whose process is dead (another process's: a breaker of
    // this process may be mid-break) is left at any age, as a dead holder's lock is; else only once it is this old.
    const deadLink = holder?.format === "link" && holder.pid !== process.pid && isDead(holder);
    if (deadLink || (Date.now() - st.mtimeMs > staleMs && (holder === undefined || !sameHost(holder) || isDead(holder)))) {
      await unlink(breaker).catch(() => undefined);
    }
    return false;
  }
  try {
    const again = await look(path, staleMs);
    // Only breakers remove a dead holder's lock, and we are the only breaker: it is still the stale one.
    if (again === "stale") await unlink(path).catch((e: unknown) => unremovable(path, e));
    return again !== "live";
  } finally {
    await unlink(breaker).catch(() => undefined);
  }
}

/**
 * A stale lock that cannot be removed (a folder there, or a file the
 * process may not remove): waiting would not change that, and trying again
 * at once would spin until the process ends, so the append fails now.
 */
function unremovable(path: string, e: unknown): void {
  if ((e as NodeJS.ErrnoException).code === "ENOENT") return; // gone meanwhile: free
  throw new ConversationError(
    "store-io",
    withRemedy(
      `${path}: no live process holds this lock, but it cannot be removed (${(e as Error).message}). ` +
        "It is not a lock this store leaves (a folder, or a file it may not remove): move it away by hand.",
      e,
    ),
    { cause: e },
  );
}

/** A stale lock this process may not break (it may not make the `.break` lock beside it): refused now, never waited on. */
function unbreakable(path: string, e: unknown): never {
  throw new ConversationError(
    "store-io",
    withRemedy(`${path}: no live process holds this lock, but this process cannot break it (${(e as Error).message})`, e),
    { cause: e },
  );
}

/** What the lock at `path` is now: gone, live, or stale (breakable). */
async function look(path: string, staleMs: number): Promise<"gone" | "live" | "stale"> {
  let st;
  try {
    st = await lstat(path); // lstat: the link itself (its target is a name, not a file)
  } catch {
    return "gone"; // released meanwhile
  }
  const holder = await readHolder(path);
  // A link names its holder from its first instant: a dead holder's link is stale at any age.
  // (An older lock file is written after it is made, so only its age tells a dead holder from a new one.)
  if (holder?.format === "link" && isDead(holder)) return "stale";
  if (Date.now() - st.mtimeMs < staleMs) return "live";
  // No holder named in `staleMs`: a lock file that never got its holder written, or garbage.
  return holder === undefined || isDead(holder) ? "stale" : "live";
}

/** Whether `pid` can be a process's (kill(2) takes a positive int: Linux's pid_max is at most 2^22). */
const MAYBE_PID = (pid: number): boolean => Number.isInteger(pid) && pid > 0 && pid <= 0x7fff_ffff;

/** Whether the holder's pids are ours to look up (this host, this pid namespace). */
const sameHost = (holder: Holder): boolean => (holder.format === "file" ? holder.hostName === HOST_NAME : holder.host === HOST); // (older lock files name the host only)

function isDead(holder: Holder): boolean {
  if (!sameHost(holder)) return false; // another machine's (or container's) process: we cannot tell, so never break it
  if (holder.pid === process.pid) {
    if (!holder.token.startsWith(PROCESS_TAG)) return true; // an earlier process that had our pid
    if (!holder.token.startsWith(NONCE)) return false; // another thread of this process: alive while we are
    return !held.has(holder.token);
  }
  // A pid past what kill(2) takes (a lock not made by a store) names no process; process.kill would throw a TypeError.
  if (!MAYBE_PID(holder.pid)) return true;
  try {
    process.kill(holder.pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "ESRCH"; // EPERM: it exists (another user's)
  }
  // A holder killed (SIGKILL, the OOM killer) whose parent has not reaped it yet still answers signal 0, for as
  // long as that parent lets it be (a shell that went on to exec another program: for ever). It runs no code.
  const state = procStat(holder.pid)?.[0];
  if (state === "Z" || state === "X") return true;
  // The pid runs, but perhaps as another program: a lock left before a reboot (or long ago) names a pid that a
  // process started since may have. A lock made as a link carries its holder's tag: another tag, another process.
  if (holder.format !== "link" || !TAGS_TOLD) return false;
  const tag = tagOf(holder.pid);
  return tag !== undefined && !holder.token.startsWith(tag);
}

/**
 * Why an append gave up waiting: who holds the lock and what to do. Never
 * says to delete it: a holder that is alive (or that this host cannot look
 * up) still writes under it, and a lock whose holder died is broken by the
 * next append on its own host.
 */
async function timedOut(path: string, timeoutMs: number): Promise<string> {
  const [holder, st] = await Promise.all([readHolder(path), lstat(path).catch(() => undefined)]);
  const waited = `another process kept this conversation's lock for all of the ${timeoutMs} ms this append waited`;
  if (holder === undefined || st === undefined) return `${waited}. Try again later.`;
  // (the inode's last change: a lock linked to a holder link shares that link's inode, made when its process first locked here)
  const since = new Date(Math.max(st.mtimeMs, st.ctimeMs)).toISOString();
  if (!sameHost(holder)) {
    return (
      `${waited} (held by pid ${holder.pid} on ${holder.hostName ?? "another host"} since ${since}). ` +
      "Whether that process lives cannot be told from here, so the lock is never broken from here: it is let go when that process's append ends."
    );
  }
  return (
    `${waited} (held by pid ${holder.pid} on this host since ${since}; that process is alive, only slow or paused). ` +
    "Try again later: the lock is let go when its append ends, and broken at once if that process dies."
  );
}
