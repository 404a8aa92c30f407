/**
 * Reading conversation files: `read` (with a cache of parsed records) and
 * `scan` (streamed in chunks, keeping nothing), and counting. No lock: a
 * file is append-only, and the only cut (a torn tail) never goes below a
 * committed line, so bytes once read as committed never change.
 */
import { fstatSync } from "node:fs";
import type { ConversationRecord } from "../../src/records/types.js";
import { ConversationError } from "../../src/errors.js";
import { closeFd, io, openFdIfExists, readAt, sameFile, scanFd, stampOf, statOrUndefined, stillEnds, type Known } from "./files.js";
import { Scanner } from "./jsonl.js";

/**
 * A kept record as a read hands it out: parsed anew, its keys frozen, as the
 * memory store gives it. Records shared between reads (frozen at their own
 * keys only) let a reader's edit of something nested in one (a tool's input
 * on a resumed turn) change what every later read gave.
 */
const readBack = (text: string): ConversationRecord => Object.freeze(JSON.parse(text) as ConversationRecord);

/** Freezes the keys of records a read hands out (each read's own: a caller cannot add or change a key by mistake). */
const frozen = (records: ConversationRecord[]): ConversationRecord[] => {
  for (const r of records) Object.freeze(r);
  return records;
};

/**
 * The last bytes of the last of `texts` (lines a read keeps) and its newline: what the file must still hold just
 * before where the read cache ends for the kept lines to be its own (see `stillEnds`). More than the `"seq"` the store
 * checks otherwise: a file cut and written again with lines as long as before ends its lines where the kept ones ended.
 */
function tailOf(texts: readonly string[]): Buffer | undefined {
  const last = texts.at(-1);
  return last === undefined ? undefined : Buffer.from(`${last.slice(-64).replace(/^[\uDC00-\uDFFF]/, "")}\n`);
}

/** `scan` reads conversation files this many bytes at a time… */
export const SCAN_CHUNK = 1 << 20;
/** …except files of up to this many bytes: read whole, and kept in the read cache (as `read` does). */
const SCAN_WHOLE = 4 << 20;
/** `list` reads this many bytes of a file it has not seen hold a record, looking for the end of its first line. */
const FIRST_LINE = 64 << 10;
const NL = 0x0a;
const SPACE = 0x20;
/** How often in a row `scan` reads the bytes after the last committed line again, the file changed under each read. */
const MAX_REWINDS = 1_000;

/**
 * Whether the file holds `held` at `at` now (read once more and compared): bytes read before a torn tail was cut
 * and written over differ, or are missing (the file got shorter); bytes followed only by appends are alike.
 */
async function stillThere(fd: number, held: Buffer, at: number): Promise<boolean> {
  const again = Buffer.allocUnsafe(held.length);
  let got = 0;
  while (got < again.length) {
    const n = await readAt(fd, again, got, again.length - got, at + got);
    if (n === 0) return false; // shorter than it was: cut under the read
    got += n;
  }
  return again.equals(held);
}

export class FileReads {
  // The lines of the records `read` parsed and checked, by conversation (least recently read first). Valid
  // while the file is the same (inode and birth time) and not shorter than `end` (the rule `known` uses).
  // Kept as text, not as the records: each read parses records of its own (see readBack).
  readonly #parsed = new Map<string, Known & { texts: string[] }>();
  // Where the last `scan` of a conversation ended (nothing of it kept): a read after it reads on from there.
  readonly #marks = new Map<string, Known>();
  #cachedBytes = 0;

  constructor(
    /** What appends of this store saw of each file (see append.ts). */
    readonly known: ReadonlyMap<string, Known>,
    /** Bytes of files whose records `read` keeps (0 keeps none). */
    readonly cacheMax: number,
    readonly scanChunk: number,
    /** Closes the files the store keeps open for appends (called when the process is out of descriptors). */
    readonly full?: () => void,
  ) {}

  #forget(conversation: string): void {
    const c = this.#parsed.get(conversation);
    if (c === undefined) return;
    this.#parsed.delete(conversation);
    this.#cachedBytes -= c.end;
  }

  /** Where this store's last read or scan of a conversation ended (the same rule as an append's `known`). */
  seen(conversation: string): Known | undefined {
    const c = this.#parsed.get(conversation) ?? this.#marks.get(conversation);
    return c === undefined ? undefined : { ino: c.ino, born: c.born, end: c.end, count: c.count, stamp: c.stamp };
  }

  clear(): void {
    this.#parsed.clear();
    this.#marks.clear();
    this.#cachedBytes = 0;
  }

  /**
   * How many committed records the file holds: only what was appended since
   * this store last looked is read, by its appends or by its reads and scans
   * (a watcher that only reads, polling `length` or `wait`, would parse the
   * whole file each time).
   */
  async count(conversation: string, file: string): Promise<number> {
    const fd = openFdIfExists(file, this.full);
    if (fd === undefined) return 0;
    try {
      // (the further one: scanFd reads on from it only while it still describes the file, else reads it whole)
      const [wrote, read] = [this.known.get(conversation), this.seen(conversation)];
      return (await scanFd(fd, file, read !== undefined && (wrote === undefined || read.end > wrote.end) ? read : wrote)).count;
    } catch (e) {
      throw io(file, e);
    } finally {
      closeFd(fd);
    }
  }

  /**
   * Whether `list` names a conversation: its file holds a record, or what a
   * read refuses (damage, not a regular file). A file that a process killed
   * inside the conversation's first append left empty, or holding only a
   * torn first batch, holds nothing a read gives: no conversation yet, as in
   * every other store. Usually one lstat (and, for a file this store has not
   * seen hold a record, one read of its first bytes).
   */
  async holdsAny(conversation: string, file: string): Promise<boolean> {
    let st: ReturnType<typeof statOrUndefined>;
    try {
      st = statOrUndefined(file);
    } catch {
      return true; // (a read says what is wrong)
    }
    if (st === undefined) return false; // (removed since the folder was listed)
    if (!st.isFile()) return true; // (a read refuses it: shown, never hidden)
    if (st.size === 0) return false;
    const seen = [this.known.get(conversation), this.seen(conversation)];
    if (seen.some((k) => sameFile(k, st) && k.count > 0 && st.size >= k.end)) return true;
    let fd: number | undefined;
    try {
      fd = openFdIfExists(file, this.full);
      if (fd === undefined) return false;
      const buf = Buffer.allocUnsafe(Math.min(st.size, FIRST_LINE));
      const n = await readAt(fd, buf, 0, buf.length, 0);
      // A line that ends a batch (its newline not after the batch mark, a space): a record, or damage a read refuses.
      for (let nl = buf.indexOf(NL); nl !== -1 && nl < n; nl = buf.indexOf(NL, nl + 1)) if (nl === 0 || buf[nl - 1] !== SPACE) return true;
      if (buf.subarray(0, n).indexOf(NL) === -1 && n === st.size) return false; // one torn line, nothing else
    } catch {
      return true; // (a read says what is wrong)
    } finally {
      if (fd !== undefined) closeFd(fd);
    }
    // a first line longer than FIRST_LINE, or a first batch without its closing line: as a read counts
    return this.count(conversation, file).then(
      (n) => n > 0,
      () => true,
    );
  }

  async read(conversation: string, file: string, after: number): Promise<ConversationRecord[]> {
    const from = Math.max(0, after);
    const fd = openFdIfExists(file, this.full);
    if (fd === undefined) {
      this.#forget(conversation);
      this.#marks.delete(conversation);
      return [];
    }
    try {
      const st = fstatSync(fd);
      // Nothing after `from`: the file ends where this store's own last append left it (the usual read after a
      // turn's own appends). Its records are not read back; the cache, if any, reads on from where it stood. (Unless
      // written anew by another program as long, with more records: its last line then ends with another seq.)
      const own = this.known.get(conversation);
      if (sameFile(own, st) && own.end === st.size && from >= own.count && stillEnds(fd, own)) return [];
      const mark = this.#marks.get(conversation);
      if (mark !== undefined && from >= mark.count && !this.#parsed.has(conversation)) {
        // Reading on after a scan: only the bytes after it (all of them when the file changed otherwise).
        const seen = await scanFd(fd, file, mark, from, true, st);
        this.#marks.set(conversation, { ino: seen.ino, born: seen.born, end: seen.end, count: seen.count });
        return frozen(seen.records);
      }
      if (this.cacheMax <= 0) return frozen((await scanFd(fd, file, undefined, from, false, st)).records);
      const cached = this.#parsed.get(conversation);
      this.#forget(conversation); // re-added below, as the most recently read
      // Only the bytes after what was parsed before are read and parsed (all of them when the file changed otherwise).
      const seen = await scanFd(fd, file, cached, 0, true, st, true);
      const texts = cached !== undefined && seen.base === cached.end ? cached.texts : [];
      // What was kept before is parsed anew for this read (a JSON.parse a record, no disk access, no checks: cheaper
      // than reading the file, dearer than handing out shared objects); what was just read is this read's own already.
      const records = texts.slice(from).map(readBack);
      for (const r of frozen(seen.records)) if (r.seq > from) records.push(r);
      for (const t of seen.texts) texts.push(t);
      const entry = { ino: seen.ino, born: seen.born, end: seen.end, count: seen.count, texts, tail: tailOf(texts), stamp: seen.stamp };
      if (entry.end <= this.cacheMax) {
        // A read of the same conversation that ran alongside this one (each forgot the entry before its await) may
        // have kept its own meanwhile: replaced without forgetting, its bytes would stay counted for ever, and once
        // enough had leaked, every read would evict the whole cache (every file parsed whole again, on every read).
        this.#forget(conversation);
        this.#parsed.set(conversation, entry);
        this.#cachedBytes += entry.end;
        for (const [id] of this.#parsed) {
          if (this.#cachedBytes <= this.cacheMax) break;
          this.#forget(id);
        }
      }
      return records;
    } catch (e) {
      throw io(file, e);
    } finally {
      closeFd(fd);
    }
  }

  async scan(conversation: string, file: string, after: number, visit: (record: ConversationRecord) => void): Promise<number> {
    const small = statOrUndefined(file);
    if (small !== undefined && !small.isSymbolicLink() && small.size <= Math.min(this.cacheMax, SCAN_WHOLE)) {
      // A short conversation is read whole and kept, as `read` keeps it (its turn is often resumed next).
      const records = await this.read(conversation, file, 0);
      for (const r of records) if (r.seq > after) visit(r);
      return records.length > 0 ? records.at(-1)!.seq : 0;
    }
    const fd = openFdIfExists(file, this.full);
    if (fd === undefined) {
      this.#marks.delete(conversation);
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
      const { ino, birthtimeMs: born, size } = fstatSync(fd);
      // Up to the size seen now, scanChunk bytes at a time; a line longer than that grows the buffer.
      const scanner = new Scanner({ file, base: 0, before: 0, after: Math.max(0, after) }, emit);
      let buf = Buffer.allocUnsafe(Math.min(this.scanChunk, Math.max(size, 1)));
      // buf[0, filled) holds the file's bytes from `start`, the end of the last committed line (scanner.committed);
      // the first `pushed` of them went to the scanner already (lines of a batch not yet closed: none given out)
      let start = 0;
      let filled = 0;
      let pushed = 0;
      let position = 0; // (start + filled: where the next read begins)
      // No lock: an append of another process cuts a crash's torn tail and writes its batch in its place. Bytes
      // after the last committed line read before that cut and the rest read after it made one line that parsed as
      // a record nobody wrote (handed to visit), or read as damage. So the file's stamp is taken before the bytes
      // in flight (after the last committed line) were read; changed by the end of a read, those bytes are read once
      // more and compared: alike, they are what the file holds (a plain append only adds bytes after them); else (a
      // cut, a torn tail written over) they are read again from the last committed line (committed bytes never
      // change; nothing after them was given out). Reading them again on every change, as it was, a busy
      // conversation (appended to under most reads) failed the scan after MAX_REWINDS reads again in a row, and one
      // batch longer than a chunk was read again from its start for ever.
      let since = stampOf(fd);
      for (let rewinds = 0; position < size; ) {
        if (filled === buf.length) buf = Buffer.concat([buf, Buffer.allocUnsafe(buf.length)]);
        const n = await readAt(fd, buf, filled, Math.min(buf.length - filled, size - position), position);
        const now = stampOf(fd);
        if (now !== since) {
          since = now;
          if (!(await stillThere(fd, buf.subarray(0, filled + n), start))) {
            position = start = scanner.rewind();
            filled = pushed = 0;
            // (in a row: the bytes after the last committed line changed under every read since the last that went through)
            if (++rewinds > MAX_REWINDS)
              throw new ConversationError("store-io", `${file}: the file changed under each of ${MAX_REWINDS} reads of its end in a row; try again.`);
            continue;
          }
        }
        if (n === 0) break; // cut meanwhile
        position += n;
        filled += n;
        pushed += scanner.push(buf.subarray(pushed, filled));
        // what is committed now is given out and never changes: only the bytes after it are kept
        const done = scanner.committed - start;
        if (done > 0) {
          buf.copy(buf, 0, done, filled);
          filled -= done;
          pushed -= done;
          start += done;
        }
        rewinds = 0; // (read through once more: only rewinds in a row count)
      }
      const seen = scanner.finish(position);
      this.#marks.set(conversation, { ino, born, end: seen.end, count: seen.count });
      return seen.count;
    } catch (e) {
      if (failed !== undefined && e === failed.error) throw e;
      throw io(file, e);
    } finally {
      closeFd(fd);
    }
  }
}
