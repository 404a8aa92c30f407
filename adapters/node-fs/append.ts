/**
 * One append to a conversation file, under its lock, from start to end
 * without yielding: an `lstat` of the path, the file's new bytes when
 * another process appended (usually none), one write, one fsync (or, while
 * other conversations flush too, the fsync after the lock: flush.ts; none
 * for a batch that need not be durable, which the next fsync keeps).
 * Nothing here awaits, so no other code of the process (a tool, a plugin, a
 * timer) runs while the lock is held.
 */
import { fstatSync, fsyncSync, ftruncateSync, unlinkSync, writeSync } from "node:fs";
import { storeConflict } from "../../src/store/checks.js";
import { closeFd, notAFile, openForAppend, scanFdSync, statOrUndefined, symlinkRefused, syncDirNow, type Known } from "./files.js";
import type { Flushes, PendingFlush } from "./flush.js";
import type { HandlePool } from "./handles.js";
import { encodeBatch } from "./jsonl.js";

/** What appends of one store share. */
export interface Appender {
  /** The `conversations` folder. */
  readonly root: string;
  /** What this store last saw of each file (size, records), checked against the file under the lock. */
  readonly known: Map<string, Known>;
  /** What this store's reads last saw of a file (its records checked when parsed): where an append starts when `known` has nothing yet. */
  readonly lastRead: (conversation: string) => Known | undefined;
  readonly handles: HandlePool;
  readonly flushes: Flushes;
  /** True once the store is closed (then files are not kept open). */
  closed(): boolean;
  onFlush?: (() => void) | undefined;
  /**
   * Refuses (`conversation-id`) a file of inode `ino` opened by this
   * conversation's name that, on a folder blind to case, is another
   * conversation's ("sam.jsonl" opened as "Sam.jsonl"). Looks once per file.
   */
  checkName(conversation: string, file: string, ino: number): void;
}

/**
 * Appends `bodies` (records' JSON without `seq`) to `file`: the
 * conversation's new length, flushed, or the batch written with its flush
 * still to come after the lock (`Flushes.finish`). Call under the lock only.
 * Not `durable`: written and not flushed (the next flush of the file keeps
 * it), unless it makes the file (whose name a folder flush keeps).
 */
export function appendLocked(
  a: Appender,
  conversation: string,
  file: string,
  bodies: readonly string[],
  expect: number | undefined,
  durable = true,
): number | PendingFlush {
  const st = statOrUndefined(file);
  if (st?.isSymbolicLink()) throw symlinkRefused(file);
  let reused = a.handles.get(conversation);
  if (reused !== undefined && reused.ino !== st?.ino) {
    a.handles.drop(conversation); // removed or replaced since: opened anew
    reused = undefined;
  }
  const created = st === undefined;
  if (created) {
    // Refuse before creating: a refused append leaves no empty file behind.
    if (expect !== undefined && expect !== 0) throw storeConflict(conversation, expect, 0);
    if (bodies.length === 0) return 0;
  }
  const fd = reused?.fd ?? openChecked(a.root, file, () => a.handles.dropUnused());
  let ok = false;
  try {
    // (a turn resumed on a fresh store read the file first: its first append reads on from there, not the whole file again)
    const opened = reused !== undefined ? st! : fstatSync(fd);
    // (on a folder blind to case, "Sam" would append to sam's file: refused, nothing written)
    if (!created) a.checkName(conversation, file, opened.ino);
    const prior = a.known.get(conversation) ?? a.lastRead(conversation);
    const seen = scanFdSync(fd, file, prior, opened);
    a.known.set(conversation, { ino: seen.ino, born: seen.born, end: seen.end, count: seen.count });
    ok = true; // (the file is fine: refusals below keep it open)
    if (expect !== undefined && expect !== seen.count) throw storeConflict(conversation, expect, seen.count);
    if (bodies.length === 0) return seen.count;
    ok = false;
    // Cut a torn tail first, so the new batch is never glued to half a line.
    if (seen.torn) ftruncateSync(fd, seen.end);
    const data = encodeBatch(bodies, seen.count + 1);
    // The conversation's first records: its file's name must be on disk too, whether this append made the file or
    // found it empty (or with a torn first batch only) where a process killed inside its first append left it.
    const named = created || seen.count === 0;
    let pending: PendingFlush | undefined;
    try {
      for (let done = 0; done < data.length; ) done += writeSync(fd, data, done, data.length - done, seen.end + done);
      const length = seen.count + bodies.length;
      // (not durable: written, in the file for every reader and past this process's death; the next durable batch flushes it)
      if (durable || named) {
        if (a.flushes.overlap(conversation)) {
          pending = a.flushes.begin(a, { conversation, fd, from: seen.end, to: seen.end + data.length, length, created: named });
        } else {
          fsyncSync(fd);
          a.onFlush?.();
          if (named) syncDirNow(a.root, () => a.handles.dropUnused()); // the new file's name survives a crash too
        }
      }
    } catch (e) {
      // all or none: take back whatever part of the batch reached the file.
      a.known.delete(conversation);
      try {
        if (created) {
          // A file this append made (nobody else makes it while we hold the lock) goes again: left empty, it
          // would list as a conversation that holds nothing (a full disk fails the very first append).
          unlinkSync(file);
        } else {
          ftruncateSync(fd, seen.end);
          fsyncSync(fd);
        }
      } catch {
        // the next append cuts a torn tail anyway
      }
      throw e;
    }
    a.known.set(conversation, { ino: seen.ino, born: seen.born, end: seen.end + data.length, count: seen.count + bodies.length });
    ok = true;
    return pending ?? seen.count + bodies.length;
  } finally {
    // Kept open for the next append unless something went wrong with it.
    if (ok && !a.closed()) a.handles.keep(conversation, fd, a.known.get(conversation)?.ino ?? -1);
    else if (a.handles.get(conversation)?.fd === fd) a.handles.drop(conversation);
    else a.handles.close(fd);
  }
}

/**
 * Opens a conversation file anew: the folder must still be a folder (not a
 * link put there since the store made it), the file itself is never
 * followed as a link, and it must be a regular file. Out of descriptors,
 * the files kept open for later appends are closed (`full`) and the open
 * tried once more.
 */
function openChecked(root: string, file: string, full: () => void): number {
  const dir = statOrUndefined(root);
  if (dir?.isSymbolicLink()) throw symlinkRefused(root);
  const fd = openForAppend(file, full);
  if (!fstatSync(fd).isFile()) {
    closeFd(fd);
    throw notAFile(file);
  }
  return fd;
}
