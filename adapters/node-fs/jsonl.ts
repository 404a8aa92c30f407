/**
 * The on-disk format: one JSON record per line, each with its `seq`, in seq
 * order from 1. A batch of several records is written with one write; every
 * line of a batch but its last ends in `" \n"` instead of `"\n"` (JSON allows
 * the trailing space, so any JSONL reader still reads each line). That mark
 * keeps batches all or none across a crash: a batch whose closing line is
 * missing is a torn tail, like a line without its newline.
 */
import { isUtf8 } from "node:buffer";
import { ConversationError } from "../../src/errors.js";
import type { ConversationRecord } from "../../src/records/types.js";
import { recordJson } from "../../src/store/checks.js";

const NL = 0x0a;
const SPACE = 0x20;

/** What a scan of (the end of) a conversation file found. */
export interface Scan {
  /** Committed records in the file, counting those before `base`. */
  count: number;
  /** Byte offset just after the last committed line: where the next batch goes. */
  end: number;
  /** True when bytes after `end` are a torn tail (ignored; the next append cuts them). */
  torn: boolean;
  /** The committed records with `seq > after` (only when asked). */
  records: ConversationRecord[];
  /** The line of each of `records`, as the file holds it (only when asked: `texts`). */
  texts: string[];
}

export interface ScanFrom {
  /** The file's name, for error messages. */
  file: string;
  /** Absolute offset of `buf[0]` in the file: always the end of a committed line (or 0). */
  base: number;
  /** Committed records before `base`. */
  before: number;
  /** Collect the records with `seq > after`; leave out to collect none. */
  after?: number;
  /** Keep each collected record's line too (what the read cache keeps: each read parses records of its own). */
  texts?: boolean;
}

/**
 * Reads committed records from `buf`. Only a last line without its newline
 * (or a batch whose closing line is missing) is a torn tail; any line with
 * its newline that does not parse, or is not the record expected there (not
 * an object, or `seq` not the next number), is damage (`store-corrupt`),
 * wherever it is. Never skips silently.
 */
export function scan(buf: Buffer, from: ScanFrom): Scan {
  const scanner = new Scanner(from);
  scanner.push(buf);
  return scanner.finish(buf.length);
}

/**
 * {@link scan} over a file read in chunks: `push` each chunk (it returns how
 * many of its bytes ended in a newline: give the rest again, in front of the
 * next chunk), then `finish`. With `emit`, each committed record with
 * `seq > after` goes to it as its batch closes, and none is kept.
 */
export class Scanner {
  readonly #from: ScanFrom;
  readonly #emit: ((record: ConversationRecord) => void) | undefined;
  readonly #out: ConversationRecord[] = [];
  readonly #texts: string[] = [];
  #count: number;
  /** Bytes (after `base`) of committed lines, and of every line pushed. */
  #end = 0;
  #seen = 0;
  #pending: ConversationRecord[] = [];
  #pendingTexts: string[] = [];

  constructor(from: ScanFrom, emit?: (record: ConversationRecord) => void) {
    this.#from = from;
    this.#emit = emit;
    this.#count = from.before;
  }

  push(buf: Buffer): number {
    const from = this.#from;
    const collect = from.after;
    let pos = 0;
    while (pos < buf.length) {
      const nl = buf.indexOf(NL, pos);
      if (nl === -1) break; // a last line without its newline: torn, or the rest comes with the next chunk
      const line = this.#count + this.#pending.length + 1;
      const text = buf.toString("utf8", pos, nl);
      // Bytes that are not UTF-8 decode to U+FFFD, and the line would parse as another record than the file holds
      // (JSON text is UTF-8; the store only ever writes UTF-8). Only a line holding U+FFFD can be such a line.
      if (text.includes("\uFFFD") && !isUtf8(buf.subarray(pos, nl))) throw corrupt(from.file, line, "a complete line that is not UTF-8");
      const closes = nl === pos || buf[nl - 1] !== SPACE;
      pos = nl + 1;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        // A line with its newline was written whole: a crash can only leave a last line without one.
        throw corrupt(from.file, line, text.trim() === "" ? "an empty line" : "a complete line that is not JSON");
      }
      if (typeof value !== "object" || value === null || Array.isArray(value)) {
        throw corrupt(from.file, line, "not a JSON object");
      }
      const seq = (value as { seq?: unknown }).seq;
      if (seq !== line) throw corrupt(from.file, line, `seq ${JSON.stringify(seq)} where ${line} was expected`);
      this.#pending.push(value as ConversationRecord);
      if (from.texts) this.#pendingTexts.push(text);
      if (closes) {
        // all or none: a batch counts only once its closing line is whole.
        if (collect !== undefined) {
          for (let i = 0; i < this.#pending.length; i++) {
            const r = this.#pending[i]!;
            if (r.seq <= collect) continue;
            if (this.#emit) this.#emit(r);
            else this.#out.push(r);
            if (from.texts) this.#texts.push(this.#pendingTexts[i]!);
          }
        }
        this.#count += this.#pending.length;
        this.#pending = [];
        this.#pendingTexts = [];
        this.#end = this.#seen + pos;
      }
    }
    this.#seen += pos;
    return pos;
  }

  /** The offset in the file just after the last committed line pushed: what comes after it is not yet given to anyone. */
  get committed(): number {
    return this.#from.base + this.#end;
  }

  /**
   * Forgets what was pushed after the last committed line (lines of a batch
   * not yet closed; `push` is then given bytes from {@link committed} again):
   * for bytes that may have changed since they were read (a torn tail cut and
   * written over). Nothing of them was given out. Returns {@link committed}.
   */
  rewind(): number {
    this.#pending = [];
    this.#pendingTexts = [];
    this.#seen = this.#end;
    return this.committed;
  }

  /** What the pushed bytes hold; `total`: how many bytes there were in all (a tail without its newline is torn). */
  finish(total: number): Scan {
    return { count: this.#count, end: this.#from.base + this.#end, torn: this.#end < total, records: this.#out, texts: this.#texts };
  }
}

/**
 * Encodes a batch: `bodies[i]` is a record's JSON without `seq`; each gets
 * `"seq": first + i` and the batch marks described above.
 */
export function encodeBatch(bodies: readonly string[], first: number): Buffer {
  let text = "";
  for (let i = 0; i < bodies.length; i++) {
    const body = bodies[i]!;
    const seq = `"seq":${first + i}}`;
    text += (body === "{}" ? `{${seq}` : `${body.slice(0, -1)},${seq}`) + (i === bodies.length - 1 ? "\n" : " \n");
  }
  return Buffer.from(text, "utf8");
}

/**
 * A record's JSON without its `seq` (the store gives that), checked before
 * the lock is taken: the record as JSON gives it (its `toJSON`, when it has
 * one, as every store keeps it), then a top-level `seq` in it left out, so
 * that a line never holds two (a JSONL reader may keep either).
 */
export function recordBody(conversation: string, record: object, index: number): string {
  const body = recordJson(conversation, record, index); // a getter or Proxy that throws: input-invalid, as every store says
  // (a record that carries a seq: one read from another store, copied here; a nested "seq" parses for nothing)
  return body.includes('"seq":') ? withoutSeq(body) : body;
}

/** `body` (JSON of an object, as `JSON.stringify` wrote it) without its top-level `seq`: the same text otherwise. */
function withoutSeq(body: string): string {
  const value = JSON.parse(body) as Record<string, unknown>;
  if (!Object.hasOwn(value, "seq")) return body;
  delete value.seq;
  return JSON.stringify(value);
}

function corrupt(file: string, line: number, why: string): ConversationError {
  return new ConversationError(
    "store-corrupt",
    `${file}:${line}: ${why}. The conversation file is damaged (a crash only ever leaves a last line without its newline); ` +
      "the store will neither skip nor overwrite records. Repair or move the file by hand.",
  );
}
