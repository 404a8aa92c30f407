/**
 * What functai sees of the lines the SDK's stdio client transport cannot read. Its `ReadBuffer` parses each line
 * with its strict schema of JSON-RPC messages and throws (told only to `onerror`) for one it cannot read, and the
 * schema's error does not carry the line: an answer with a key JSON-RPC does not name ({ jsonrpc, id, result,
 * extra }) fails with the same one issue as a notification with such a key. So the transport's buffer is tapped
 * (`_readBuffer.readMessage`, not part of its typed API): the JSON of a line it threw for is kept, by that error,
 * for {@link lineOf} to tell whose answer it was; so is the data of an event of the SSE transport (see {@link tapEvents}).
 * Nothing is read leniently: the line is still dropped.
 */

/** The JSON of a line the transport could not read, by the error its buffer threw for it. */
const lines = new WeakMap<object, unknown>();

/** The SDK's `ReadBuffer`: the bytes not yet read (`_buffer`), and the reading of the next line. */
interface ReadBuffer {
  _buffer?: unknown;
  readMessage?: () => unknown;
}

const tapped = new WeakSet<object>();
const decoder = new TextDecoder();

/** The JSON of the first line of `bytes`, or `undefined` (no whole line, or not JSON). */
function firstLine(bytes: unknown): { value: unknown } | undefined {
  if (!(bytes instanceof Uint8Array)) return undefined;
  const end = bytes.indexOf(0x0a);
  if (end === -1) return undefined;
  try {
    return { value: JSON.parse(decoder.decode(bytes.subarray(0, end))) };
  } catch {
    return undefined;
  }
}

/** The SDK's SSE client transport's EventSource (`_eventSource`): the handler of each message event it set. */
interface EventSourceLike {
  onmessage?: ((event: { data?: unknown; lastEventId?: unknown }) => void) | null;
}

/**
 * The data of the event the SSE transport is reading now, while its handler runs: what it throws for it (told to
 * its `onerror`, at once) is kept by {@link lineOf}.
 */
let reading: { data: unknown } | undefined;

/** SSE transports whose `_eventSource` is watched (see {@link tapEvents}). */
const sources = new WeakSet<object>();

/**
 * Taps the SDK's SSE client transport (the old one): each event's message is parsed by its EventSource's
 * `onmessage` (`_eventSource`, not part of its typed API), which tells its `onerror` at once of one it cannot
 * read, the error not carrying the event's data: the data is held while that handler runs. The transport makes a
 * new EventSource in its place when it authorizes again (a reconnection refused for its token): each one it sets
 * is tapped too, once its handlers are set (in the same turn, before any event can come).
 */
function tapEvents(transport: unknown): void {
  if (transport === null || typeof transport !== "object" || sources.has(transport)) return;
  const own = Object.getOwnPropertyDescriptor(transport, "_eventSource");
  if (own === undefined || !own.writable || own.value === null || typeof own.value !== "object") return;
  sources.add(transport);
  let current: unknown = own.value;
  tapSource(transport, current as EventSourceLike);
  Object.defineProperty(transport, "_eventSource", {
    configurable: true,
    enumerable: own.enumerable === true,
    get: () => current,
    set: (source: unknown) => {
      current = source;
      queueMicrotask(() => tapSource(transport, source as EventSourceLike | null | undefined));
    },
  });
}

/** SSE transports a message event of whose stream had an id (see {@link sseResumable}). */
const resumable = new WeakSet<object>();

/**
 * Whether a message event on the SSE transport's stream had an id (its `lastEventId`; the SDK's SSE server sends
 * none). Its EventSource would ask the server to go on from there when it opens the stream again, but the SDK's
 * transport sends that GET without it (see watch.ts's sseStreamEnded): said when the stream ends, no more.
 */
export const sseResumable = (transport: object): boolean => resumable.has(transport);

/**
 * Taps one EventSource of `transport` (see {@link tapEvents}): its `onmessage` holds the data of the event it reads,
 * and tells whether the event had an id. Once.
 */
function tapSource(transport: object, source: EventSourceLike | null | undefined): void {
  if (source === null || typeof source !== "object" || tapped.has(source)) return;
  const on = source.onmessage;
  if (typeof on !== "function") return;
  tapped.add(source);
  source.onmessage = function (this: unknown, event) {
    if (typeof event?.lastEventId === "string" && event.lastEventId !== "") resumable.add(transport);
    reading = { data: event?.data };
    try {
      return on.call(this, event);
    } finally {
      reading = undefined;
    }
  };
}

/** The JSON of an event's data (see {@link tapEvents}), or `undefined`. */
function eventJson(data: unknown): { value: unknown } | undefined {
  if (typeof data !== "string") return undefined;
  try {
    return { value: JSON.parse(data) };
  } catch {
    return undefined;
  }
}

/** Taps the read buffer of `transport` (the SDK's stdio client transport), or its event source (the SSE transport); any other: nothing. Once. */
export function tapLines(transport: unknown): void {
  tapEvents(transport);
  const buffer = (transport as { _readBuffer?: unknown } | null)?._readBuffer as ReadBuffer | undefined;
  if (buffer === null || typeof buffer !== "object" || tapped.has(buffer)) return;
  const read = buffer.readMessage;
  if (typeof read !== "function") return;
  tapped.add(buffer);
  buffer.readMessage = function (this: ReadBuffer) {
    const before = this._buffer;
    try {
      return read.call(this);
    } catch (e) {
      const line = e !== null && typeof e === "object" ? firstLine(before) : undefined;
      if (line !== undefined) lines.set(e as object, line.value);
      throw e;
    }
  };
}

/**
 * The JSON of the line the transport's error was thrown for (see {@link tapLines}), or of the SSE transport's event
 * being read as it was told (see {@link tapEvents}), or `undefined`.
 */
export function lineOf(error: unknown): unknown {
  if (error === null || typeof error !== "object") return undefined;
  if (lines.has(error)) return lines.get(error);
  const event = reading === undefined ? undefined : eventJson(reading.data);
  if (event !== undefined) lines.set(error, event.value);
  return event?.value;
}
