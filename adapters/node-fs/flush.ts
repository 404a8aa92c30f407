/**
 * Where an append's fsync runs. A store serving one conversation at a time
 * flushes in this thread, under the lock (no thread-pool round trip: the
 * cheapest durable step). When several conversations write at once (a
 * server), one thread flushing them one after another is the bottleneck:
 * then the batch is written under the lock, the lock is let go, and the
 * fsync runs in libuv's pool, where the flushes of different files overlap
 * and the disk can group them. `append` resolves after its own fsync
 * either way.
 */
import { fsync, ftruncateSync, fstatSync, fsyncSync } from "node:fs";
import { syncDir, type Known } from "./files.js";
import { FolderSync } from "./folder-sync.js";
import type { HandlePool } from "./handles.js";

/** What a late flush touches of its store (the store's appender has these). */
interface FlushTarget {
  readonly root: string;
  readonly known: Map<string, Known>;
  readonly handles: HandlePool;
  onFlush?: (() => void) | undefined;
}

/** A batch written under the lock, its fsync still to come (after the lock). */
export interface PendingFlush {
  readonly conversation: string;
  readonly fd: number;
  /** The file's end before and after the batch. */
  readonly from: number;
  readonly to: number;
  /** The conversation's length after the batch. */
  readonly length: number;
  /** The batch holds the conversation's first records: the file was made by it, or left empty by a killed process (its name needs a directory flush). */
  readonly created: boolean;
}

export class Flushes {
  #inFlight = 0;
  #last: string | undefined;
  /** The folder's flushes, grouped (made at the first file a late flush created: the store's one folder). */
  #folder: FolderSync | undefined;

  /** Whether an append to `conversation` should flush after the lock: another flush is in flight, or another conversation wrote last. */
  overlap(conversation: string): boolean {
    const other = this.#inFlight > 0 || (this.#last !== undefined && this.#last !== conversation);
    this.#last = conversation;
    return other;
  }

  /** Called under the lock, right after the batch was written; the descriptor stays open until {@link finish}. */
  begin(a: FlushTarget, p: PendingFlush): PendingFlush {
    this.#inFlight++;
    a.handles.pin(p.fd);
    return p;
  }

  /**
   * The fsync of a batch written under a lock now let go. If it fails, the
   * batch is taken back when it is still the file's last (under the lock
   * again, through `retake`), as a failed flush under the lock would be.
   */
  async finish(a: FlushTarget, p: PendingFlush, retake: (undo: () => void) => Promise<void>): Promise<number> {
    try {
      await new Promise<void>((done, fail) => fsync(p.fd, (e) => (e ? fail(e) : done())));
      a.onFlush?.();
      if (p.created) await (this.#folder ??= new FolderSync(() => syncDir(a.root, () => a.handles.dropUnused()))).after(); // shared with the files created alongside
      return p.length;
    } catch (e) {
      a.known.delete(p.conversation);
      await retake(() => {
        if (fstatSync(p.fd).size !== p.to) return; // others appended after it: it stays (its fate is the disk's)
        ftruncateSync(p.fd, p.from);
        fsyncSync(p.fd);
      }).catch(() => undefined); // the next append cuts a torn tail anyway
      if (a.handles.get(p.conversation)?.fd === p.fd) a.handles.drop(p.conversation);
      throw e;
    } finally {
      this.#inFlight--;
      a.handles.unpin(p.fd);
    }
  }
}
