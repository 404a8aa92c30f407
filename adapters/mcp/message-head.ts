/**
 * What is read of the top level of one JSON-RPC message as its bytes stream by, one byte at a time, never holding
 * more than a few bytes of it: the keys of its object, and its `id` when short. It tells whether a message cut off
 * on the wire past its bound (see wire.ts) was known to be the answer to a request, however far it was read.
 */

/** The longest key kept (longer ones are none of the keys looked for), and the longest `id` value read, in bytes. */
const MAX_KEY_BYTES = 64;
const MAX_ID_BYTES = 256;

/** The keys JSON-RPC names in an answer. */
const ANSWER_KEYS = ["jsonrpc", "id", "result", "error"];

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const isSpace = (b: number): boolean => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;

const decoder = new TextDecoder();

/** A JSON text's value, or `undefined` when it is not one. */
function parsed(bytes: number[]): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(decoder.decode(new Uint8Array(bytes))) };
  } catch {
    return undefined;
  }
}

/**
 * An answer's id as the number of the request it names, as the SDK's Client reads it (`Number(id)`); `undefined`: an
 * id that names none (not a number nor text of one). Blank text and `null`, which `Number` reads as 0, name none
 * here: 0 is the client's `initialize`, answered before any request watched is sent.
 */
export const requestNumber = (id: unknown): number | undefined => {
  const n = typeof id === "number" || (typeof id === "string" && id.trim() !== "") ? Number(id) : Number.NaN;
  return Number.isNaN(n) ? undefined : n;
};

/**
 * Whether an answer's `id` (`found`) names the request sent with `id` ("2" names 2): the one rule every check of an
 * answer's id follows (which request it answers, whether it is misnamed, whether a message cut off was the answer).
 * JSON-RPC asks for the request's id as it was sent, but the SDK's Client, which reads the answer, matches by the id
 * as a number: a check stricter than it would call the answer it takes none of the request's (its stray keys untold,
 * the stream "ended before its answer"), a looser one would give it to a request the SDK does not. The SDK's Client
 * sends numbers only, so the text of one is the only other form that names a request.
 */
export const namesRequest = (found: unknown, id: unknown): boolean => {
  const n = requestNumber(found);
  return n !== undefined && n === requestNumber(id);
};

/** The top level of one message, read as it streams by (`byte` each byte of its JSON text; `reset` for the next). */
export class MessageHead {
  /** `undefined` until the first byte: whether the text opens an object (anything else: its keys cannot be read). */
  #object: boolean | undefined;
  #depth = 0;
  #inString = false;
  #escaped = false;
  /** At the top level, the next string is a key. */
  #expectKey = false;
  /** The bytes of the top-level key being read (with its quotes), or of the `id`'s value; `undefined`: none read. */
  #key: number[] | undefined;
  #id: number[] | undefined;
  #keys: string[] = [];
  /** The `id` read whole, when it was short enough to read. */
  #idValue: { value: unknown } | undefined;

  reset(): void {
    this.#object = undefined;
    this.#depth = 0;
    this.#inString = this.#escaped = this.#expectKey = false;
    this.#key = this.#id = this.#idValue = undefined;
    this.#keys = [];
  }

  byte(b: number): void {
    // (the most bytes: within a string not kept, where only a quote or a backslash tells)
    if (this.#inString && b !== QUOTE && b !== BACKSLASH && !this.#escaped && this.#key === undefined && this.#id === undefined) return;
    if (this.#object === false) return;
    if (this.#inString) return this.#inText(b);
    if (isSpace(b)) return;
    if (this.#object === undefined) {
      this.#object = b === 0x7b;
      this.#depth = 1;
      this.#expectKey = true;
      return;
    }
    if (this.#depth === 0) return;
    if (this.#depth === 1 && (b === 0x2c || b === 0x7d)) this.#endId();
    this.#keep(b);
    if (b === QUOTE) {
      this.#inString = true;
      if (this.#depth === 1 && this.#expectKey) this.#key = [b];
      this.#expectKey = false;
    } else if (b === 0x7b || b === 0x5b) this.#depth++;
    else if (b === 0x7d || b === 0x5d) this.#depth--;
    else if (b === 0x2c && this.#depth === 1) this.#expectKey = true;
    else if (b === 0x3a && this.#depth === 1 && this.#keys.at(-1) === "id") this.#id = [];
  }

  /**
   * Whether the message is known to be the answer to the request `id`, as far as it was read: an object whose keys
   * show `result` or `error` and no `method`, and whose `id`, if its key was reached, was read whole and names `id`
   * (see {@link namesRequest}).
   * Keys that could not be read (not an object, or nothing of it read): not known.
   */
  answers(id: unknown): boolean {
    if (this.#object !== true) return false;
    const keys = this.#keys;
    if (keys.includes("method") || !(keys.includes("result") || keys.includes("error"))) return false;
    return !keys.includes("id") || (this.#idValue !== undefined && namesRequest(this.#idValue.value, id));
  }

  /**
   * The `id` of a whole message that is an answer (`result` or `error`, no `method`), its `id` read whole; else
   * `undefined`. On the stream (or as the JSON answer) of a POST carrying one request, an answer naming another id is
   * that request's answer misnamed: the SDK's Client reads it as the answer to the request it names, or to none.
   */
  answerId(): { value: unknown } | undefined {
    if (this.#object !== true || this.#depth !== 0 || this.#idValue === undefined) return undefined;
    const keys = this.#keys;
    return keys.includes("method") || !(keys.includes("result") || keys.includes("error")) ? undefined : this.#idValue;
  }

  /**
   * The top-level keys JSON-RPC does not name (beside `jsonrpc`, `id`, `result` and `error`) of a whole message
   * known to be the answer to the request `id`, its `id` read whole (see {@link answers}); none for any other.
   * The SDK's strict reading drops such an answer, and cannot say it was one.
   */
  strayKeys(id: unknown): string[] {
    if (this.#depth !== 0 || this.#idValue === undefined || !this.answers(id)) return [];
    return this.#keys.filter((k) => !ANSWER_KEYS.includes(k));
  }

  /**
   * The `id` and the top-level keys JSON-RPC does not name of a whole message that is an answer (see
   * {@link strayKeys}) to the request its own `id` names, when it has such keys; else `undefined`. For a stream
   * that answers no one request (a GET stream), where the answer's `id` says whose it is.
   */
  strayAnswer(): { id: unknown; keys: string[] } | undefined {
    if (this.#idValue === undefined) return undefined;
    const id = this.#idValue.value;
    const keys = this.strayKeys(id);
    return keys.length > 0 ? { id, keys } : undefined;
  }

  #inText(b: number): void {
    this.#keep(b);
    if (this.#escaped) this.#escaped = false;
    else if (b === BACKSLASH) this.#escaped = true;
    else if (b === QUOTE) {
      this.#inString = false;
      if (this.#key !== undefined) this.#endKey();
    }
  }

  /** `b` kept as part of the key or the `id`'s value being read (dropped past their bounds). */
  #keep(b: number): void {
    if (this.#key !== undefined && this.#key.length <= MAX_KEY_BYTES) this.#key.push(b);
    if (this.#id !== undefined && this.#id.length <= MAX_ID_BYTES) this.#id.push(b);
  }

  #endKey(): void {
    const key = this.#key!.length <= MAX_KEY_BYTES ? parsed(this.#key!) : undefined;
    this.#key = undefined;
    // (a key too long to keep is kept as none: it is none of those looked for)
    this.#keys.push(typeof key?.value === "string" ? key.value : "");
  }

  #endId(): void {
    if (this.#id === undefined) return;
    this.#idValue = this.#id.length <= MAX_ID_BYTES ? parsed(this.#id) : undefined;
    this.#id = undefined;
  }
}

const DATA = [0x64, 0x61, 0x74, 0x61];
const ID = [0x69, 0x64];

/** The longest event id kept, in bytes: a longer one is known to be there, not what it is (see EventHead.lastId). */
const MAX_EVENT_ID_BYTES = 1024;

/**
 * The top level of the message of one event of a stream of Server-Sent Events, read as the event streams by
 * (`byte` each byte of its lines, `lineEnd` at each line's end, `eventEnd` at the blank line ending it): its
 * `data` lines' values, joined by line feeds, are the message.
 */
export class EventHead {
  readonly #message = new MessageHead();
  /** In a line's field name, how many bytes of "data" it matched (-1: another field); past it, whether it is data. */
  #matched = 0;
  #where: "field" | "value" | "data" | "id" | "idValue" | "other" = "field";
  #dataLines = 0;
  /** In a line's field name, how many bytes of "id" it matched (-1: another field). */
  #idMatched = 0;
  /** The bytes of the value of the event's `id` line being read, and of its last one read whole (`undefined`: none). */
  #idLine: number[] = [];
  #eventId: number[] | undefined;
  /** The id of the last event given with one, as the SDK reads it (see {@link lastId}); `null`: one too long to keep. */
  #lastId: string | null | undefined;

  /**
   * The id of the last event read that the SDK's Streamable HTTP transport takes an id from, the id it resumes the
   * stream with (its `Last-Event-ID`): an event with a data line (its parser, eventsource-parser, gives no other: an
   * event of an id alone is dropped, its id with it), whose last `id` line's value is not empty and has no NUL.
   * `undefined`: none (the SDK cannot resume the stream); `null`: one longer than functai keeps.
   */
  get lastId(): string | null | undefined {
    return this.#lastId;
  }

  /** Whether an event read so far had an id the SDK takes (see {@link lastId}): it resumes a stream only after one. */
  get hadId(): boolean {
    return this.#lastId !== undefined;
  }

  byte(b: number): void {
    if (this.#where === "data") return this.#message.byte(b);
    if (this.#where === "field") {
      if (b !== 0x3a) {
        this.#matched = this.#matched >= 0 && DATA[this.#matched] === b ? this.#matched + 1 : -1;
        this.#idMatched = this.#idMatched >= 0 && ID[this.#idMatched] === b ? this.#idMatched + 1 : -1;
      } else if (this.#matched === DATA.length) {
        this.#where = "value";
        if (this.#dataLines > 0) this.#message.byte(0x0a);
      } else this.#where = this.#idMatched === ID.length ? "id" : "other";
      return;
    }
    // (one space after the colon is not the id's)
    if (this.#where === "id" && b === 0x20) return void (this.#where = "idValue");
    if (this.#where === "id" || this.#where === "idValue") {
      this.#where = "idValue";
      if (this.#idLine.length <= MAX_EVENT_ID_BYTES) this.#idLine.push(b);
      return;
    }
    if (this.#where === "other") return;
    // (one space after the colon is not the value's)
    if (this.#where === "value" && b === 0x20) return void (this.#where = "data");
    this.#where = "data";
    this.#message.byte(b);
  }

  lineEnd(): void {
    // an `id` line (a line "id", no colon, included: an empty value) is the event's id, the last one of it
    if (this.#where === "id" || this.#where === "idValue" || (this.#where === "field" && this.#idMatched === ID.length)) this.#eventId = this.#idLine;
    this.#idLine = [];
    // a line "data" (no colon): an empty value
    if (this.#where === "field" && this.#matched === DATA.length && this.#dataLines > 0) this.#message.byte(0x0a);
    const data = this.#where === "value" || this.#where === "data" || (this.#where === "field" && this.#matched === DATA.length);
    if (data) this.#dataLines++;
    this.#where = "field";
    this.#matched = 0;
    this.#idMatched = 0;
  }

  /** See {@link MessageHead.strayKeys}: of the event read, before its end. */
  strayKeys(id: unknown): string[] {
    return this.#message.strayKeys(id);
  }

  /** See {@link MessageHead.strayAnswer}: of the event read, before its end. */
  strayAnswer(): { id: unknown; keys: string[] } | undefined {
    return this.#message.strayAnswer();
  }

  eventEnd(): void {
    const id = this.#eventId;
    if (this.#dataLines > 0 && id !== undefined && id.length > 0 && !id.includes(0))
      this.#lastId = id.length > MAX_EVENT_ID_BYTES ? null : decoder.decode(new Uint8Array(id));
    this.#eventId = undefined;
    this.#idLine = [];
    this.#message.reset();
    this.#where = "field";
    this.#matched = 0;
    this.#idMatched = 0;
    this.#dataLines = 0;
  }

  /** See {@link MessageHead.answers}. */
  answers(id: unknown): boolean {
    return this.#message.answers(id);
  }

  /** See {@link MessageHead.answerId}: of the event read, before its end. */
  answerId(): { value: unknown } | undefined {
    return this.#message.answerId();
  }
}
