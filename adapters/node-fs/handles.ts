/** The conversation files an fs store keeps open between appends. */
import { closeFd } from "./files.js";

/** An open conversation file and the inode it was opened at (a file replaced since is opened anew). */
export interface Handle {
  fd: number;
  ino: number;
}

/**
 * At most `max` open files, the most recently appended to; all closed after
 * `idleMs` without an append, and on `dropAll`. A handle is only used under
 * the lock, after an `lstat` of its path shows the same inode. `max` should
 * exceed the conversations that write at once: beyond it, every append of a
 * round-robin of conversations reopens its file (open, fstat, close).
 */
export class HandlePool {
  readonly #open = new Map<string, Handle>();
  /** Descriptors with an fsync in flight after the lock (see flush.ts), and how many: never closed under it. */
  readonly #pins = new Map<number, number>();
  readonly #closeWhenDone = new Set<number>();
  #idle: ReturnType<typeof setTimeout> | undefined;
  #used = false;

  constructor(
    readonly max = 256,
    readonly idleMs = 2_000,
  ) {}

  get(conversation: string): Handle | undefined {
    return this.#open.get(conversation);
  }

  /** Closes a conversation's file, if open. */
  drop(conversation: string): void {
    const h = this.#open.get(conversation);
    if (h === undefined) return;
    this.#open.delete(conversation);
    this.close(h.fd);
  }

  /** Closes `fd` now, or when its flushes in flight are done (a descriptor number is never reused under an fsync). */
  close(fd: number): void {
    if (this.#pins.has(fd)) this.#closeWhenDone.add(fd);
    else closeFd(fd);
  }

  pin(fd: number): void {
    this.#pins.set(fd, (this.#pins.get(fd) ?? 0) + 1);
  }

  unpin(fd: number): void {
    const left = (this.#pins.get(fd) ?? 1) - 1;
    if (left > 0) return void this.#pins.set(fd, left);
    this.#pins.delete(fd);
    if (this.#closeWhenDone.delete(fd)) closeFd(fd);
  }

  /** Closes every kept file no append is using (the process ran out of descriptors). */
  dropUnused(): void {
    for (const [id, h] of [...this.#open]) if (!this.#pins.has(h.fd)) this.drop(id);
  }

  dropAll(): void {
    for (const id of [...this.#open.keys()]) this.drop(id);
    if (this.#idle !== undefined) clearTimeout(this.#idle);
    this.#idle = undefined;
  }

  /** Keeps `fd` open as the most recently used (the least recently used beyond `max` is closed). */
  keep(conversation: string, fd: number, ino: number): void {
    this.#open.delete(conversation);
    this.#open.set(conversation, { fd, ino });
    for (const [id] of this.#open) {
      if (this.#open.size <= this.max) break;
      this.drop(id);
    }
    this.#used = true;
    if (this.#idle === undefined) this.#arm();
  }

  #arm(): void {
    this.#idle = setTimeout(() => {
      this.#idle = undefined;
      if (!this.#used) return this.dropAll();
      this.#used = false;
      this.#arm();
    }, this.idleMs);
    this.#idle.unref?.();
  }
}
