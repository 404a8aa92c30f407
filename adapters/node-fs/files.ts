/** File helpers for the fs store: reading a conversation file, fsync of directories, error wrapping. */
import { type BigIntStats, closeSync, constants, fstatSync, fsyncSync, lstatSync, openSync, read, readdirSync, readSync, type Stats } from "node:fs";
import { lstat, mkdir, open } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { ConversationError, FunctaiError } from "../../src/errors.js";
import { scan, type Scan } from "./jsonl.js";

/** What the store remembers of a file it wrote, validated by size (and identity) under the lock. */
export interface Known {
  ino: number;
  /**
   * When the file was made (`birthtimeMs`; 0 where the file system does not
   * say). A file deleted and made again often gets the inode number the old
   * one had (ext4): then only this tells them apart.
   */
  born: number;
  /** Size of the file after our last write: always the end of a committed line. */
  end: number;
  count: number;
  /** The file's last bytes before `end`, when known (a read's last line); else {@link stillEnds} expects the line's `"seq":<count>}`. */
  tail?: Buffer | undefined;
  /**
   * The file's size and change times when a read took `known` (see
   * {@link settledStamp}): a file as long as `end` whose times moved since
   * was rewritten in place, not appended to. Unset for an append's (its own
   * write moved them).
   */
  stamp?: string | undefined;
}

/**
 * Scans an open conversation file (a file descriptor). When `known` still
 * describes it (the same file: inode and birth time; not shorter), only the bytes after `known.end`
 * are read: the file is append-only, and the only cut (a torn tail) never
 * goes below a committed line, so the bytes before `known.end` are unchanged.
 * The `fstat` is synchronous (no disk access: cheaper than a thread-pool
 * round trip); the read, when there is one, is not.
 */
export function scanFd(
  fd: number,
  file: string,
  known: Known | undefined,
  after?: number,
  /** Use `known` even when collecting records (`after` then counts from the start of the file). */
  resume = false,
  /** The file's inode and size when the caller just read them (a `stat` of its path), saving an `fstat`. */
  stat?: FileStat,
  /** Keep the line of each record collected too (`Scan.texts`). */
  texts = false,
): Promise<Scanned> {
  const st = stat ?? fstatSync(fd);
  const same = unchanged(st, known, after, resume);
  // (as long as it was, yet perhaps written anew in place since: then read again)
  return same !== undefined && stillEnds(fd, same) ? Promise.resolve(same) : readScan(fd, file, st, known, after, resume, texts);
}

export type Scanned = Scan & { ino: number; born: number; size: number; base: number } & Pick<Known, "tail" | "stamp">;

/** What a `stat` says of a file that matters here: which file it is, and its size. */
export interface FileStat {
  ino: number;
  birthtimeMs: number;
  size: number;
}

/** Whether `known` describes the file `st` is of (not one that had its name, or its inode number, before). */
export const sameFile = (known: Known | undefined, st: FileStat): known is Known =>
  known !== undefined && known.ino === st.ino && known.born === st.birthtimeMs;

/**
 * The scan of a file that `known` still describes to its last byte (what an
 * append to a file only this store writes finds): nothing to read. Else undefined.
 */
export function unchanged(st: FileStat, known: Known | undefined, after?: number, resume = false): Scanned | undefined {
  if (!sameFile(known, st) || st.size !== known.end || !(after === undefined || resume)) return undefined;
  const { count, end, tail, stamp } = known;
  return { count, end, torn: false, records: [], texts: [], ino: st.ino, born: st.birthtimeMs, size: st.size, base: end, tail, stamp };
}

async function readScan(
  fd: number,
  file: string,
  st: FileStat,
  known: Known | undefined,
  after: number | undefined,
  resume: boolean,
  texts: boolean,
): Promise<Scanned> {
  // Reads take no lock, and an append cuts a crash's torn tail before it writes in its place: a read racing that
  // append could get the first bytes of the torn line and the rest of the record written over it, one line that
  // parses as a record nobody wrote. Committed bytes never change and a torn tail is cut once, so bytes read while
  // the file did not change (its size and times the same before and after), or read alike twice running, are
  // what the file holds.
  let size = st.size;
  let last: Buffer | undefined;
  for (let tries = 1; ; tries++) {
    const before = fstatSync(fd, { bigint: true });
    const from = sameFile(known, st) && size >= known.end && (after === undefined || resume) && stillEnds(fd, known) ? known : undefined;
    const base = from?.end ?? 0;
    const buf = Buffer.allocUnsafe(Math.max(0, size - base));
    let got = 0;
    while (got < buf.length) {
      const bytesRead = await readAt(fd, buf, got, buf.length - got, base + got);
      if (bytesRead === 0) break; // cut meanwhile (a reader racing a repair): scan what we have
      got += bytesRead;
    }
    const bytes = got === buf.length ? buf : buf.subarray(0, got);
    const now = fstatSync(fd, { bigint: true });
    const still = Number(before.size) === size && stamp(before) === stamp(now);
    const alike = last?.subarray(0, bytes.length).equals(bytes.subarray(0, last.length)) === true;
    if (still || alike) {
      const result = scan(bytes, {
        file,
        base,
        before: from?.count ?? 0,
        texts,
        ...(after === undefined ? {} : { after: resume && from !== undefined ? Math.max(after, from.count) : after }),
      });
      return { ...result, ino: st.ino, born: st.birthtimeMs, size, base, stamp: still ? settledStamp(before) : RACY };
    }
    if (tries >= READ_TRIES) {
      throw new ConversationError("store-io", `${file}: the file changed under each of ${READ_TRIES} reads in a row; try again.`);
    }
    last = bytes;
    size = Number(now.size);
  }
}

/** How often a read is made again when the file keeps changing under it (see readScan): in practice twice at most. */
const READ_TRIES = 10;

/** A file's size and change times: changed by every write and cut. */
const stamp = (s: BigIntStats): string => `${s.size}:${s.mtimeNs}:${s.ctimeNs}`;

/**
 * Set in place of a stamp that cannot tell a later change (see
 * settledStamp): never a file's, so a file as long as then is read again.
 */
const RACY = "racy";

/**
 * {@link stamp} of a file read now, to tell later whether it was written in
 * place since ({@link stillEnds}); {@link RACY} while its last change is
 * too recent for that. A file's times move by the file system's clock tick
 * (a few ms; a second or two where they are whole seconds): written again
 * within the tick of its last change, they stay as they were, so a stamp
 * taken then cannot tell that change.
 */
function settledStamp(s: BigIntStats): string {
  // biome-ignore lint/complexity/useMathMinMax: Math.max takes no bigint
  const changed = s.ctimeNs > s.mtimeNs ? s.ctimeNs : s.mtimeNs;
  const tick = changed % 1_000_000_000n === 0n ? 2_500_000_000n : 50_000_000n;
  return BigInt(Date.now()) * 1_000_000n - changed > tick ? stamp(s) : RACY;
}

/** {@link stamp} of an open file now. */
export const stampOf = (fd: number): string => stamp(fstatSync(fd, { bigint: true }));

/**
 * {@link scanFd} without yielding (positioned reads in this thread), for use
 * under the lock: only what another process appended since this store last
 * looked is read, usually a few records.
 */
export function scanFdSync(fd: number, file: string, known: Known | undefined, st: FileStat): Scanned {
  // (as long as it was, yet perhaps cut and written again with fewer records: an append counting on would write a
  // seq the file does not follow on to, damaging it for every reader. One small read of a page just written.)
  const same = unchanged(st, known);
  if (same !== undefined && stillEnds(fd, same)) return same;
  const from = sameFile(known, st) && st.size >= known.end && stillEnds(fd, known) ? known : undefined;
  const base = from?.end ?? 0;
  const buf = Buffer.allocUnsafe(st.size - base);
  let got = 0;
  while (got < buf.length) {
    const n = readSync(fd, buf, got, buf.length - got, base + got);
    if (n === 0) break;
    got += n;
  }
  const result = scan(buf.subarray(0, got), { file, base, before: from?.count ?? 0 });
  return { ...result, ino: st.ino, born: st.birthtimeMs, size: st.size, base };
}

/**
 * Whether the file still ends a committed line at `known.end` as it did when
 * `known` was taken (one small read, in this thread): the bytes just before
 * it are `known.tail`, or the `"seq":<count>}` and newline the store ends
 * every batch with. Reading on from `known.end` is right only after appends;
 * a file cut by another program (emptied, a file copied over it: the same
 * inode and birth time) and written again to at least that length holds
 * other bytes there, and reading on from it read the middle of a line (the
 * healthy file refused as `store-corrupt`, for good) or, where the lines fell
 * alike, handed out records the file held before the cut.
 */
export function stillEnds(fd: number, known: Known): boolean {
  if (known.stamp !== undefined) {
    // A read's: unchanged since (the same times, the same size), or written anew in place (as long, other times).
    const now = fstatSync(fd, { bigint: true });
    if (stamp(now) === known.stamp) return true;
    if (Number(now.size) === known.end) return false;
  }
  if (known.end === 0) return true;
  const tail = known.tail ?? Buffer.from(`"seq":${known.count}}\n`);
  if (tail.length > known.end) return false;
  const buf = Buffer.allocUnsafe(tail.length);
  for (let got = 0; got < buf.length; ) {
    const n = readSync(fd, buf, got, buf.length - got, known.end - tail.length + got);
    if (n === 0) return false;
    got += n;
  }
  return buf.equals(tail);
}

/** A positioned read of an open file (asynchronous). */
export const readAt = (fd: number, buf: Buffer, offset: number, length: number, position: number): Promise<number> =>
  new Promise((resolve, reject) => read(fd, buf, offset, length, position, (e, n) => (e ? reject(e) : resolve(n))));

/** `lstat` of a path (synchronously: no disk access), or undefined when it does not exist. A link is seen as itself, never followed. */
export function statOrUndefined(file: string): Stats | undefined {
  try {
    return lstatSync(file, { throwIfNoEntry: false });
  } catch (e) {
    throw io(file, e);
  }
}

/** Never follows a symbolic link at the file itself (0 where the platform has no such flag). */
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/** Opening never waits (0 where the platform has no such flag): reads of a regular file are not changed by it. */
const NONBLOCK = constants.O_NONBLOCK ?? 0;

/**
 * Opens a conversation file for reading (synchronously: no disk access), or
 * undefined when it does not exist. A symbolic link there is refused
 * (`store-symlink`), never followed; so is anything but a regular file
 * (`store-io`): a named pipe opened for reading without O_NONBLOCK waits for
 * a writer, and this open would freeze the whole process until one came.
 */
export function openFdIfExists(file: string, full?: () => void): number | undefined {
  let fd: number;
  try {
    // (out of descriptors: the store's kept files are closed, as for an append, and the open tried once more)
    fd = orFreeing(() => openSync(file, constants.O_RDONLY | NOFOLLOW | NONBLOCK), full);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw io(file, e);
  }
  if (!fstatSync(fd).isFile()) {
    closeFd(fd);
    throw notAFile(file);
  }
  return fd;
}

/** The refusal of something other than a regular file (a folder, a pipe) where a conversation file goes. */
export const notAFile = (file: string): ConversationError =>
  new ConversationError("store-io", `${file} is not a regular file; the store keeps each conversation in a file of its own.`);

/** Opens (or creates, 0o600) a conversation file for appending, never through a symbolic link (`store-symlink`). */
export function openForAppend(file: string, full?: () => void): number {
  try {
    // No O_TRUNC: under the lock nobody else creates it, but never risk cutting records.
    // (O_NONBLOCK: a named pipe there is refused once open, never waited on; writes to a regular file do not change)
    return orFreeing(() => openSync(file, constants.O_RDWR | constants.O_CREAT | NOFOLLOW | NONBLOCK, 0o600), full);
  } catch (e) {
    throw io(file, e);
  }
}

const outOfDescriptors = (e: unknown): boolean => ["EMFILE", "ENFILE"].includes((e as NodeJS.ErrnoException)?.code ?? "");

/**
 * Runs `open`; out of descriptors, calls `full` (which closes the files the
 * store keeps open for later appends) and runs it once more.
 */
function orFreeing<T>(open: () => T, full: (() => void) | undefined): T {
  try {
    return open();
  } catch (e) {
    if (full === undefined || !outOfDescriptors(e)) throw e;
    full();
    return open();
  }
}

/** The refusal of a symbolic link where the store keeps its own files or folder. */
export function symlinkRefused(path: string): ConversationError {
  return new ConversationError(
    "store-symlink",
    `${path} is a symbolic link. The store never follows links where it keeps its own files (an append could write ` +
      "outside its folder): put the conversations folder itself there, or give fsStore the folder the link points to.",
  );
}

/** Refuses a `conversations` folder that is a symbolic link (or not a folder). */
export async function checkDir(dir: string): Promise<void> {
  const st = await lstat(dir).catch((e: unknown) => {
    throw io(dir, e);
  });
  if (st.isSymbolicLink()) throw symlinkRefused(dir);
  if (!st.isDirectory()) throw new ConversationError("store-io", `${dir} is not a folder.`);
}

/** Whether `dir` is a folder itself (not a link to one), in this thread; false when it is not there or cannot be looked at (`checkDir` then says why). */
export function isFolder(dir: string): boolean {
  try {
    return lstatSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/** Closes a file descriptor, ignoring errors (it is only read, or already synced). */
export function closeFd(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // nothing to do
  }
}

/** Makes `dir` (mode 0o700) and fsyncs the parents of what it created, so the new directories survive a crash. */
export async function makeDir(dir: string): Promise<void> {
  const made: string[] = [];
  try {
    await makeDirIn(dir, made);
  } catch (e) {
    throw io(dir, e);
  }
  for (const d of made) await syncDir(dirname(d));
}

/**
 * Makes `dir` and the folders it is in that are missing, one at a time (each made folder is pushed to `made`).
 * Not `mkdir(…, { recursive: true })`: where a parent is there and still answers "not found" for a folder in it
 * (a path under /proc), Node's recursive mkdir tries again for ever, and the append never settled (a thread of
 * libuv's pool spinning too). Here each folder is tried once more after its parent, then refused.
 */
async function makeDirIn(dir: string, made: string[]): Promise<void> {
  const once = (): Promise<void> =>
    mkdir(dir, { mode: 0o700 }).then(
      () => void made.push(dir),
      (e: unknown) => {
        if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e; // (something else there: checkDir says what)
      },
    );
  try {
    await once();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT" || dirname(dir) === dir) throw e;
    await makeDirIn(dirname(dir), made);
    await once();
  }
}

/** {@link syncDir} in this thread (three calls, no thread-pool round trips). */
export function syncDirNow(dir: string, full?: () => void): void {
  const fd = orFreeing(() => openSync(dir, "r"), full);
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** fsync of a directory: makes a file created in it (its name) durable. */
export async function syncDir(dir: string, full?: () => void): Promise<void> {
  const handle = await open(dir, "r").catch((e: unknown) => {
    if (full === undefined || !outOfDescriptors(e)) throw e;
    full();
    return open(dir, "r");
  });
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Wraps a file-system error as `store-io` (our own errors pass through; a link refused by O_NOFOLLOW is `store-symlink`). */
export function io(file: string, e: unknown): FunctaiError {
  if (e instanceof FunctaiError) return e;
  if ((e as NodeJS.ErrnoException)?.code === "ELOOP" && NOFOLLOW !== 0) return symlinkRefused(file);
  return new ConversationError("store-io", withRemedy(`${file}: ${(e as Error)?.message ?? String(e)}`, e), { cause: e });
}

/**
 * `message`, and what a person can do about `e` when it is a file-system
 * error the store cannot get past by itself (no permission, a read-only file
 * system, a full disk). A bare "EACCES: permission denied" said what failed,
 * not what to change.
 */
export function withRemedy(message: string, e: unknown): string {
  const fix = remedy(e);
  return fix === "" || message.endsWith(".") ? `${message}${fix}` : `${message}.${fix}`;
}

/** {@link withRemedy}'s sentence for `e` (with a space before it), or "". */
function remedy(e: unknown): string {
  switch ((e as NodeJS.ErrnoException | undefined)?.code) {
    case "EACCES":
    case "EPERM": {
      const uid = process.getuid?.();
      return (
        ` This process${uid === undefined ? "" : ` (user ${uid})`} may not do that there: give it read and write access to the ` +
        "store's folder and the files in it (the store makes them owner-only, 0700 and 0600: run it as the user that owns them), or give fsStore a folder it owns."
      );
    }
    case "EROFS":
      return " The file system is mounted read-only: give fsStore a folder on one it may write.";
    case "ENOSPC":
    case "EDQUOT":
      return " The disk (or this user's quota) is full: free some space, then try again (nothing of this append was kept).";
    default:
      return "";
  }
}

/**
 * On a folder that does not tell names apart by case (macOS, Windows), the
 * name the file `file` really has there when it differs from `file`'s only
 * in case: then it is another conversation's file ("sam.jsonl" opened as
 * "Sam.jsonl"). Else undefined. One `lstat` of the name in the other case
 * ("SAM.JSONL", a name the store never makes) tells whether the folder may be
 * such a one (it finds the file); only then is the folder listed. (Not by
 * inode: a network or FUSE file system may number one file differently under
 * each name.) The caller looks once per file (inode). Synchronous, so it can
 * run under the lock.
 */
export function caseTwin(file: string): string | undefined {
  const dir = dirname(file);
  const name = basename(file);
  const swapped = [...name].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join("");
  let names: string[];
  try {
    if (lstatSync(join(dir, swapped), { throwIfNoEntry: false }) === undefined) return undefined; // a folder that tells cases apart
    names = readdirSync(dir);
  } catch (e) {
    throw io(file, e);
  }
  if (names.includes(name)) return undefined;
  const lower = name.toLowerCase();
  return names.find((n) => n.toLowerCase() === lower) ?? swapped;
}

/** The refusal of a conversation id whose file, on a folder blind to case, is another conversation's (`twin`). */
export function caseTwinRefused(conversation: string, file: string, twin: string): ConversationError {
  return new ConversationError(
    "conversation-id",
    `"${conversation}": the folder ${dirname(file)} does not tell names apart by case, and the file of this id is ${twin}, ` +
      `another conversation's ("${twin.replace(/\.jsonl$/, "")}"). Ids that differ only in case would share one file: use ids that differ otherwise.`,
  );
}
