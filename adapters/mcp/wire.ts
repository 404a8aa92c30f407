/**
 * What functai watches of the HTTP under a Streamable HTTP (or SSE) client transport of the SDK: the `fetch` its
 * requests go through (the transport's `_fetch`, which its `fetch` option sets) is wrapped, once per transport, so
 * that
 *
 * - an answer's body is read no further than {@link MAX_WIRE_BYTES}: a JSON answer in all, a stream of events
 *   (`text/event-stream`, long-lived: a server's GET stream, a POST's stream of progress and answer) each event.
 *   The SDK reads a JSON answer whole, and an event whole, before functai sees it: a server answering with
 *   200 MB had all of it in memory, to be refused after for its size. Past the bound, reading stops (the body is
 *   cancelled, its connection let go) and the request it answered fails with {@link OversizedBody};
 * - each POST of a request is followed: sent, or answered 401/403 (refused for its OAuth token, before the MCP
 *   server took it), so a request whose wait ended while its transport was getting a new token (the token endpoint
 *   not answering) is told apart from one the server took (see {@link watchWire}), and such a request, once given
 *   up, is never sent later, when a token comes.
 *
 * A client is connected before mcpTools is given it, and connecting opened its GET stream (the server's own
 * messages, open for the client's whole life) with the fetch as it was: unbounded. So when a started Streamable
 * HTTP transport is wrapped, that stream is reopened through the wrapped fetch (see {@link reopenGetStream}), and
 * mcpTools lists the tools once it is open again ({@link boundWire}): a message said on the new stream (a word
 * that the tools changed) is heard. The old SSE transport's one stream (every answer comes on it) was opened with
 * a fetch it keeps, and cannot be reopened without ending its session: its answers are not bounded (only its
 * POSTs are watched).
 */

import { describeValue } from "../../src/errors.js";
import { EventHead, MessageHead, namesRequest } from "./message-head.js";

/**
 * The most functai reads of one answer on the wire, in bytes: a JSON answer, or one event of a stream. Derived from
 * the most of a tool's result functai takes (`MAX_RESULT_CHARS`, 1,000,000 characters, see tools.ts): such a result
 * written twice (its structured content and the copy as text MCP asks servers to give beside it), each character up
 * to 6 bytes as JSON writes it (`\u0000`), is 12,000,000 bytes; the rest is room for the parts for the person and
 * the envelope. Past it, a result would be refused for its size once read: it is refused before, unread.
 */
export const MAX_WIRE_BYTES = 16 * 1_000_000;

/**
 * An answer of the server's cut off on the wire past {@link MAX_WIRE_BYTES}: nothing of it read further. `answer`:
 * whether the message cut was known to be the answer to the request its POST carried (a JSON answer is; an event
 * is when its top-level keys, as far as they were read, show `result` or `error` with that request's id, and no
 * `method`): an event may be a notification sent while the request runs (a log line, progress), its answer still
 * to come.
 */
export class OversizedBody extends Error {
  constructor(
    readonly limit: number,
    readonly stream: boolean,
    readonly answer: boolean,
  ) {
    super(
      stream
        ? `the MCP server sent an event (a message of its answer's stream) of more than ${limit.toLocaleString("en-US")} bytes, the most functai reads of one: it was not read further`
        : `the MCP server's answer was more than ${limit.toLocaleString("en-US")} bytes, the most functai reads of one: it was not read further`,
    );
    this.name = "OversizedBody";
  }
}

/**
 * The stream of events a request's answer was to come on ended before the answer: cut (`cause`: the error reading
 * it), or ended by the server. The stream a POST carrying it was answered with (the server took the request): no event
 * of it had an id, so the SDK cannot resume it (it reopens a stream with `Last-Event-ID` only after one), and the
 * answer can come on no other stream (the server sends it on the request's own). Or the old SSE transport's one
 * stream (see watch.ts): opened again, it is a new session. Or one that had an id, whose resumption failed
 * (`unresumed` says how, see {@link Resumption}). Either way the request would wait out its timeout for nothing.
 */
export class AnswerStreamEnded extends Error {
  constructor(cause?: unknown, unresumed?: string) {
    super(
      unresumed !== undefined
        ? `the stream of events the MCP server's answer was to come on ended before its answer, and ${unresumed}, so no answer will come`
        : `the stream of events the MCP server's answer was to come on ended before its answer (${howEnded(cause)}); it cannot be resumed (none of its events had an id), so no answer will come`,
      cause === undefined ? undefined : { cause },
    );
    this.name = "AnswerStreamEnded";
  }
}

/**
 * A POST carrying a request answered 202 Accepted: MCP gives it only to a POST of notifications or responses, never to
 * one carrying a request (answered with JSON, or a stream of events). The SDK reads any 202 as "no body to read", and
 * the request would wait out its timeout: the server took it (it may have acted), and no answer will come.
 */
export class AcceptedRequest extends Error {
  constructor(method: unknown) {
    super(
      `the MCP server answered the POST carrying the ${String(method)} request with 202 Accepted, which MCP gives only to notifications and responses, never to a request: no answer will come`,
    );
    this.name = "AcceptedRequest";
  }
}

/** The most bytes of a JSON answer kept to say what came when it is not JSON (see WireWatcher.jsonRead), and the most characters said of them. */
const EXCERPT_BYTES = 256;
const EXCERPT_CHARS = 80;

/** What came as a JSON answer, said short: its first bytes (`head`) as text, and its size (`size` bytes). */
function excerptOf(head: readonly number[], size: number): string {
  if (size === 0) return "it was empty";
  // (a character cut at the excerpt's end is dropped, not shown as U+FFFD)
  const text = new TextDecoder().decode(new Uint8Array(head), { stream: true });
  const said = describeValue(text, EXCERPT_CHARS);
  // (more came than was kept: said cut, as describeValue says a text it cut)
  const more = size > head.length && !said.endsWith("…") ? "…" : "";
  return `${said}${more} (${size.toLocaleString("en-US")} ${size === 1 ? "byte" : "bytes"})`;
}

/**
 * The first bytes of a body (at most {@link EXCERPT_BYTES}), said short as {@link excerptOf} says them (its size
 * unknown past them: "…" when more came); the body is cancelled after, as the SDK cancels it unread. A body that
 * never comes holds its request until its timeout, as a server that never answers does.
 */
async function firstOf(body: ReadableStream<Uint8Array> | null): Promise<string> {
  if (body === null) return "it was empty";
  const reader = body.getReader();
  const head: number[] = [];
  let more = false;
  try {
    while (head.length < EXCERPT_BYTES) {
      const { value, done } = await reader.read();
      if (done) break;
      const kept = Math.min(value.byteLength, EXCERPT_BYTES - head.length);
      for (let i = 0; i < kept; i++) head.push(value[i]!);
      // (more is said only when it came: what a body holds past the kept bytes is not waited for)
      more = kept < value.byteLength;
    }
  } catch (e) {
    return `it was cut (${describeCut(e)})`;
  } finally {
    reader.cancel().catch(() => {});
  }
  if (head.length === 0) return "it was empty";
  const said = describeValue(new TextDecoder().decode(new Uint8Array(head), { stream: true }), EXCERPT_CHARS);
  return more && !said.endsWith("…") ? `${said}…` : said;
}

/**
 * What is said of an answer to a POST carrying a request (2xx, not 202) of a media type (`type`, `""`: none) the
 * SDK's Streamable HTTP transport reads no answer from: it reads `application/json` and `text/event-stream` only
 * (parameters and case aside), and fails the request at once with "Unexpected content type" for any other, a
 * `+json` type included (`application/problem+json`, a gateway's error as 200). A changing call so answered was then
 * in doubt saying "no answer came back" (one came), a reading call failed with the SDK's bare error, its code -1.
 */
async function untypedAnswer(type: string, body: ReadableStream<Uint8Array> | null): Promise<string> {
  const as = type === "" ? "with no content type" : `as ${type}`;
  return `it came ${as}, not as JSON (application/json) nor as a stream of events (text/event-stream), the answers MCP gives: ${await firstOf(body)}`;
}

/** How a stream ended: cut (`cut`: its reader's error), or (none) ended by the server. */
export const howEnded = (cut: unknown): string => (cut === undefined ? "the server ended it" : `cut: ${describeCut(cut)}`);

/** What cut a stream, as its reader's error says it (fetch's "terminated", with its socket's error as the cause). */
function describeCut(cause: unknown): string {
  const said = cause instanceof Error ? cause.message : String(cause);
  const under = cause instanceof Error && cause.cause instanceof Error ? cause.cause.message : undefined;
  return under !== undefined && under !== said ? `${said}: ${under}` : said;
}

/** A JSON-RPC request as a POST carried it (its body, as the SDK writes it: one message, JSON). */
export interface PostedRequest {
  id?: unknown;
  method?: unknown;
  params?: unknown;
}

/** What one request waiting on a transport is told of the POSTs carrying it (see {@link watchWire}). */
export interface WireWatcher {
  /** Whether a POST carries this request. */
  carries(message: PostedRequest): boolean;
  /** A POST carrying it is being sent. */
  sent(message: PostedRequest): void;
  /** A POST carrying it was answered 401 or 403: refused for its token, before the MCP server took it. */
  refused(): void;
  /** The answer to a POST carrying it was cut off on the wire. */
  cut(error: OversizedBody): void;
  /**
   * The answer to a POST carrying it (a JSON answer, or an event of its stream) has top-level keys JSON-RPC does
   * not name (`keys`): the SDK's strict reading drops it, unable to say it was an answer (see MessageHead.strayKeys).
   */
  strayKeys?(keys: string[]): void;
  /** The stream of events answering a POST carrying it ended before its answer, and cannot be resumed (see {@link AnswerStreamEnded}). */
  ended?(error: AnswerStreamEnded): void;
  /**
   * An answer came that names another request than the one it came as the answer to (`said`: how): on the stream
   * answering a POST carrying it (or as that POST's JSON answer), naming another id, its own answer misnamed (the
   * SDK's Client reads it as the answer to the request it names, or to none, and this one waits out its timeout); or
   * naming its id on the stream answering another request's POST, another's answer, not to be read as its own.
   */
  misnamed?(said: string): void;
  /** A POST carrying it was answered 202 Accepted, never an answer to a request (see {@link AcceptedRequest}). */
  accepted?(error: AcceptedRequest): void;
  /**
   * A POST carrying it was answered (2xx, not 202) with a body of a media type the SDK reads no answer from (`said`:
   * which, and its first characters): neither JSON nor a stream of events (see {@link untypedAnswer}).
   */
  untyped?(said: string): void;
  /**
   * The JSON answer to a POST carrying it was read to its end: `said`, what came, short (its first characters and its
   * size, see excerptOf), to say should the SDK fail to parse it (a gateway's HTML page sent as application/json).
   */
  jsonRead?(said: string): void;
}

/**
 * A stream answering a request that ended before its answer, with an id the SDK resumes it from (its `Last-Event-ID`,
 * the key it is kept by in {@link Wire.resuming}): the SDK opens it again with a GET carrying that id, after its
 * backoff, trying a few times. The resumption fails when the server answers that GET 404 (the session is gone) or 405
 * (the SDK then stops), or with something other than a stream of events, or when the SDK gives up (its tries spent,
 * each answered with an error or none); or when the stream it is resumed on ends before the answer too with no id of
 * its own (the SDK then opens a stream without `Last-Event-ID`, on which no answer comes). Then no answer will come:
 * the watchers of the request are told (see WireWatcher.ended) at once, not at its timeout.
 */
interface Resumption {
  /** The id of the request the stream answers. */
  id: unknown;
  watchers: WireWatcher[];
  /** What the last failed try to resume it said (none yet: `undefined`). */
  failure?: string;
}

interface Wire {
  watchers: Set<WireWatcher>;
  /** The streams being resumed, by the event id each is resumed from (see {@link Resumption}). */
  resuming: Map<string, Resumption>;
  /**
   * The event id each stream of {@link resuming} is resumed from, by the `onresumptiontoken` the SDK resumes it with
   * (see {@link hearGivingUp}): should the stream it is resumed on end with no id of its own, it is resumed from that id
   * again. `undefined`: the transport has no `_scheduleReconnection` to repair the id lost in (see {@link lostId}).
   */
  marks?: WeakMap<object, string>;
  /** The id of the request each watcher's last POST carried (see {@link strayOnGet}). */
  sentIds: WeakMap<WireWatcher, unknown>;
  /** Requests (by JSON-RPC id and method) given up while held back for a token: never sent. */
  withdrawn: { id: unknown; method: unknown }[];
  /** Settled once the GET stream opened before the wrapping is open again through it (or was not to be). */
  ready: Promise<void>;
}

const wires = new WeakMap<object, Wire>();

/** The SDK's HTTP transports' fields read and set here (not part of their typed API). */
interface HttpTransport {
  _url?: unknown;
  _fetch?: typeof fetch | undefined;
  /** Streamable HTTP: the signal every request (its GET stream's included) is sent with, set when started. */
  _abortController?: unknown;
  /** Streamable HTTP: opens its GET stream (`resumptionToken`: the last event's id read on the one before). */
  _startOrAuthSse?: (options: ReconnectOptions) => Promise<void>;
  /**
   * Streamable HTTP: opens a stream again later (its backoff), as it does when one ends that it can resume; past its
   * tries, gives up, saying so to onerror (see {@link GAVE_UP}).
   */
  _scheduleReconnection?: (this: HttpTransport, options: ReconnectOptions, attempt?: number) => void;
  /** Its `redirectPolicy` is `"follow"` (redirects left to fetch). */
  _followRedirects?: unknown;
  /** Its `requestInit` option (the caller's own `redirect` read from it). */
  _requestInit?: unknown;
  onerror?: ((error: Error) => void) | undefined;
}

/**
 * What the SDK's Streamable HTTP transport reopens a stream with: the id of the last event read (`resumptionToken`),
 * and its caller's `onresumptiontoken` (told each event id read), which it carries from a stream to the stream it is
 * resumed on, and on to the options it reopens that one with when it ends.
 */
type ReconnectOptions = {
  resumptionToken?: string | undefined;
  onresumptiontoken?: ((token: string) => void) | undefined;
} & Record<string, unknown>;

/** The request a POST's body carries, when it is one JSON-RPC request (a batch, a notification or other text: none). */
function posted(init: RequestInit | undefined): PostedRequest | undefined {
  if ((init?.method ?? "GET").toUpperCase() !== "POST" || typeof init?.body !== "string") return undefined;
  try {
    const message: unknown = JSON.parse(init.body);
    if (message === null || typeof message !== "object" || Array.isArray(message)) return undefined;
    const m = message as PostedRequest;
    return typeof m.method === "string" ? m : undefined;
  } catch {
    return undefined;
  }
}

/** The event id a GET asks a stream to be resumed from (its `Last-Event-ID`), or `undefined`: none, or not a GET. */
function resumedFrom(init: RequestInit | undefined): string | undefined {
  if ((init?.method ?? "GET").toUpperCase() !== "GET") return undefined;
  return new Headers(init?.headers).get("last-event-id") ?? undefined;
}

/** The media type of a response (lower case, no parameters). */
const mediaType = (response: Response): string => (response.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();

/**
 * A body read no further than `limit` bytes: in all, or (`events`) each event of a stream of Server-Sent Events
 * (its lines up to the blank line that ends it). Past it the source is cancelled and the stream fails with an
 * {@link OversizedBody}, told to `over` first. `id`: the id of the request the POST carried, or whose stream a GET
 * resumes, which the body answers (`undefined`: none, a GET stream, whose answers say by their own id whose they
 * are); an answer with keys JSON-RPC does not name is told to `stray`, with the id of the request it answers (see
 * WireWatcher.strayKeys). A stream of events answering `id` that ends before its answer is told to `ended`: what cut
 * it (`undefined`: the server ended it), and the id of its last event the SDK resumes it from (see EventHead.lastId).
 * An answer to `id` (a JSON answer, an event) that names another id, before the answer naming `id`, is told to
 * `misnamed` with the id it names (see MessageHead.answerId). A JSON answer to `id` read to its end is told to
 * `jsonRead`, said short (see excerptOf).
 */
function bounded(
  body: ReadableStream<Uint8Array>,
  limit: number,
  events: boolean,
  id: unknown,
  over: (error: OversizedBody) => void,
  stray: (id: unknown, keys: string[]) => void,
  ended: (cut: unknown, lastId: string | null | undefined) => void,
  misnamed: (found: unknown) => void,
  jsonRead: (said: string) => void,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  // what is read of the event being read: its message's top-level keys (see EventHead); of a JSON answer, its own
  const head = new EventHead();
  const json = new MessageHead();
  /** Tells `stray` of the keys JSON-RPC does not name in what `read` read, when it is an answer (the request's). */
  const strayIn = (read: { strayKeys(id: unknown): string[]; strayAnswer(): { id: unknown; keys: string[] } | undefined }) => {
    const found = id === undefined ? read.strayAnswer() : { id, keys: read.strayKeys(id) };
    if (found !== undefined && found.keys.length > 0) stray(found.id, found.keys);
  };
  let size = 0;
  /** A JSON answer's first bytes (see excerptOf). */
  const first: number[] = [];
  let line = 0;
  let afterCR = false;
  /** Whether an event read whole was the answer to the POST's request (see EventHead.answers). */
  let answered = false;
  /** Tells `misnamed` of what `read` read, when it is an answer naming another id than `id` (see MessageHead.answerId). */
  const misnamedIn = (read: { answerId(): { value: unknown } | undefined }) => {
    const found = id === undefined || answered ? undefined : read.answerId();
    if (found !== undefined && !namesRequest(found.value, id)) misnamed(found.value);
  };
  /** A stream of the answer to the request `id` that ended (`cut`: its error) before it: told to `ended`. */
  const endedUnanswered = (cut?: unknown) => {
    if (events && id !== undefined && !answered) ended(cut, head.lastId);
  };
  /** Whether `chunk` takes what is read past the limit (each byte of an event stream read for where its events end). */
  const past = (chunk: Uint8Array): boolean => {
    if (!events) {
      size += chunk.byteLength;
      if (id !== undefined && size <= limit) for (const b of chunk) json.byte(b);
      if (id !== undefined) for (let i = 0; i < chunk.byteLength && first.length < EXCERPT_BYTES; i++) first.push(chunk[i]!);
      return size > limit;
    }
    for (const b of chunk) {
      if (b === 0x0a && afterCR) {
        afterCR = false;
        continue;
      }
      afterCR = b === 0x0d;
      if (b === 0x0a || b === 0x0d) {
        // a blank line ends an event
        if (line === 0) strayIn(head);
        if (line === 0 && id !== undefined && head.answers(id)) answered = true;
        else if (line === 0) misnamedIn(head);
        if (line === 0) head.eventEnd();
        else head.lineEnd();
        size = line === 0 ? 0 : size + 1;
        line = 0;
      } else {
        head.byte(b);
        line++;
        size++;
      }
      if (size > limit) return true;
    }
    return false;
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let read: ReadableStreamReadResult<Uint8Array>;
      try {
        read = await reader.read();
      } catch (e) {
        endedUnanswered(e);
        throw e;
      }
      const { value, done } = read;
      if (done) {
        if (!events) strayIn(json);
        if (!events) misnamedIn(json);
        if (!events && id !== undefined) jsonRead(excerptOf(first, size));
        endedUnanswered();
        return controller.close();
      }
      if (past(value)) {
        // (a JSON answer is the answer to the POST's request)
        const error = new OversizedBody(limit, events, !events || head.answers(id));
        reader.cancel(error).catch(() => {});
        over(error);
        controller.error(error);
        return;
      }
      controller.enqueue(value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

/**
 * The init a request is sent with, under the transport's `redirectPolicy: "follow"`. The SDK leaves redirects to fetch
 * only when its `_fetch` is the one it made for that policy: wrapped here, it is not, and the SDK sends each POST (and
 * DELETE) with `redirect: "manual"` to follow them itself, within the origin only, as under `"same-origin"`. That
 * `"manual"` is dropped; a caller's own (`requestInit.redirect: "manual"`, which the SDK passes on) is kept.
 */
function redirectsAsSet(t: HttpTransport, init: RequestInit | undefined): RequestInit | undefined {
  if (t._followRedirects !== true || init?.redirect !== "manual") return init;
  if ((t._requestInit as RequestInit | undefined)?.redirect === "manual") return init;
  const { redirect: _, ...rest } = init;
  return rest;
}

/** The fetch of the transport `t`, wrapped (see the module's note). */
function wrapped(wire: Wire, t: HttpTransport, base: typeof fetch): typeof fetch {
  return async (url, given) => {
    const init = redirectsAsSet(t, given);
    const request = posted(init);
    const watching = request === undefined ? [] : [...wire.watchers].filter((w) => w.carries(request));
    if (request !== undefined && wire.withdrawn.some((w) => w.id === request.id && w.method === request.method))
      throw new Error(`functai did not send ${String(request.method)}: it was given up while held back for an OAuth token`);
    for (const w of watching) {
      wire.sentIds.set(w, request!.id);
      w.sent(request!);
    }
    // a GET resuming a stream that answers a request watched (see Resumption)
    const token = request === undefined ? resumedFrom(init) : undefined;
    const resuming = token === undefined ? undefined : wire.resuming.get(token);
    let response: Response;
    try {
      response = await base(url, init);
    } catch (e) {
      if (resuming !== undefined) resuming.failure = describeCut(e);
      throw e;
    }
    if (response.status === 401 || response.status === 403) for (const w of watching) w.refused();
    // (a request has an id; a POST of a notification is answered 202 as MCP says. The old SSE transport's POSTs are
    // all answered 202, their answers coming on its one stream: only Streamable HTTP's, which has _startOrAuthSse)
    if (response.status === 202 && request?.id !== undefined && typeof t._startOrAuthSse === "function")
      for (const w of watching) w.accepted?.(new AcceptedRequest(request.method));
    const type = mediaType(response);
    const events = type === "text/event-stream";
    // (the SDK throws at once, reading none of it: read here first, its first bytes, for the request's watchers. Only
    // Streamable HTTP's: the old SSE transport reads no answer from its POSTs, its answers come on its one stream)
    const untyped = !events && type !== "application/json" && typeof t._startOrAuthSse === "function";
    if (untyped && response.ok && response.status !== 202 && request?.id !== undefined && watching.length > 0) {
      const said = await untypedAnswer(type, response.body);
      for (const w of watching) w.untyped?.(said);
      return new Response(null, { status: response.status, statusText: response.statusText, headers: response.headers });
    }
    if (resuming !== undefined && !init?.signal?.aborted) {
      const status = `${response.status}${response.statusText ? ` ${response.statusText}` : ""}`;
      // (a redirect is followed by the SDK with another GET; any other error it tries again, or gives up on)
      if (response.status === 404 || response.status === 405)
        lose(wire, token!, `resuming it failed: the server answered its GET with Last-Event-ID ${status}`);
      else if (response.ok && !events)
        lose(
          wire,
          token!,
          `resuming it failed: the server answered its GET with Last-Event-ID with ${type || "no content type"}, not a stream of events`,
        );
      else if (!response.ok) resuming.failure = `HTTP ${status}`;
      // resumed: the stream it is resumed on is watched as the one before was, from now on
      else wire.resuming.delete(token!);
    }
    // (a fetch of the caller's answering with another body than a web stream, node-fetch's, is left as it is)
    const readable = typeof (response.body as { getReader?: unknown } | null)?.getReader === "function";
    if (!response.ok || !readable || !(events || type === "application/json" || type.endsWith("+json"))) return response;
    const answering = resuming !== undefined && response.ok && events ? resuming : undefined;
    const told = answering?.watchers ?? watching;
    const body = bounded(
      response.body!,
      MAX_WIRE_BYTES,
      events,
      answering?.id ?? request?.id,
      (error) => {
        for (const w of told) w.cut(error);
      },
      (id, keys) => {
        for (const w of request === undefined ? strayOnGet(wire, id) : watching) w.strayKeys?.(keys);
      },
      (cut, lastId) => {
        // (a stream cut by the transport closing, or reopened by functai, is not the server's doing)
        if (init?.signal?.aborted) return;
        // one the SDK resumes (an event of it had an id): watched as it does (see Resumption); one whose id is too
        // long to keep cannot be told from the others resumed: left to the SDK (and the request's timeout)
        if (typeof lastId === "string") {
          if (told.length > 0) wire.resuming.set(lastId, { id: answering?.id ?? request?.id, watchers: told });
        } else if (lastId === null) return;
        // resumed, and ended with no id of its own: the SDK lost the id it resumed from (see lostId), given it again
        else if (answering !== undefined && wire.marks !== undefined) {
          if (told.some((w) => wire.watchers.has(w))) wire.resuming.set(token!, { id: answering.id, watchers: told });
        } else if (answering !== undefined)
          tell(
            wire,
            told,
            new AnswerStreamEnded(
              cut,
              `it was resumed (a GET with Last-Event-ID), but the stream it was resumed on ended before the answer too (${howEnded(cut)}), none of its events with an id: the SDK opens a stream without one, on which no answer comes`,
            ),
          );
        else tell(wire, told, new AnswerStreamEnded(cut));
      },
      (found) => {
        const sentId = answering?.id ?? request?.id;
        for (const w of told)
          w.misnamed?.(`it names the id ${JSON.stringify(found)}, not ${JSON.stringify(sentId)}, the id of the request it came as the answer to`);
        // the request it names, if one waits: never given another's answer as its own (told before the SDK reads it)
        for (const w of strayOnGet(wire, found))
          if (!told.includes(w))
            w.misnamed?.(
              `an answer naming its id (${JSON.stringify(found)}) came as the answer to another request (id ${JSON.stringify(sentId)}), and was not read as its own`,
            );
      },
      (said) => {
        for (const w of told) w.jsonRead?.(said);
      },
    );
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/** Tells the `watchers` still watching that the stream of their request's answer ended with no answer to come. */
function tell(wire: Wire, watchers: readonly WireWatcher[], error: AnswerStreamEnded): void {
  for (const w of watchers) if (wire.watchers.has(w)) w.ended?.(error);
}

/** The stream resumed from `token` cannot be resumed (`why`): its request's watchers are told, and it is watched no more. */
function lose(wire: Wire, token: string, why: string): void {
  const resuming = wire.resuming.get(token);
  if (resuming === undefined) return;
  wire.resuming.delete(token);
  tell(wire, resuming.watchers, new AnswerStreamEnded(undefined, why));
}

/** What the SDK's Streamable HTTP transport tells onerror when it gives up opening a stream again (its tries spent). */
const GAVE_UP = /^Maximum reconnection attempts\b/;

/**
 * The id the SDK lost, resuming a stream that answers a request watched: it keeps the id of the last event read per
 * stream, and the stream a GET with Last-Event-ID opens starts with none; when that one ends before the answer with
 * no event of its own with an id (a server that closes each stream to have its client poll, its second close), the
 * SDK opens a stream without Last-Event-ID, on which no answer comes: the answer, kept by the server, was lost, and a
 * changing call left in doubt. The stream is resumed from the id it was resumed from before, as an EventSource keeps
 * its last event id from one connection to the next: found by the `onresumptiontoken` the SDK carries along (marked
 * with that id, see {@link hearGivingUp}), and only while it is being resumed for a request still waiting.
 */
function lostId(wire: Wire, options: ReconnectOptions | undefined): string | undefined {
  if (options?.resumptionToken !== undefined || typeof options?.onresumptiontoken !== "function") return undefined;
  const token = wire.marks?.get(options.onresumptiontoken);
  return token !== undefined && wire.resuming.has(token) ? token : undefined;
}

/** `options` whose `onresumptiontoken` is marked with `token`, the id the stream is resumed from (see {@link lostId}). */
function marked(wire: Wire, token: string, options: ReconnectOptions): ReconnectOptions {
  const given = options.onresumptiontoken;
  if (given !== undefined && wire.marks?.get(given) === token) return options;
  const mark = (id: string) => given?.(id);
  wire.marks?.set(mark, token);
  return { ...options, onresumptiontoken: mark };
}

/**
 * Has the SDK's giving up resuming a stream that answers a request watched (see {@link Resumption}) lose it: the
 * transport's `_scheduleReconnection`, given the id it resumes from, says so to onerror at once, scheduling nothing,
 * when its tries are spent. A stream resumed, whose id the SDK lost, is resumed from it again (see {@link lostId}). A
 * transport without it: nothing (the request waits for its timeout, as before).
 */
function hearGivingUp(wire: Wire, t: HttpTransport): void {
  const schedule = t._scheduleReconnection;
  if (typeof schedule !== "function") return;
  wire.marks = new WeakMap();
  t._scheduleReconnection = function (given, attempt) {
    const lost = lostId(wire, given);
    const token = lost ?? given?.resumptionToken;
    const resuming = typeof token === "string" ? wire.resuming.get(token) : undefined;
    if (resuming === undefined) return schedule.call(this, given, attempt);
    const options = marked(wire, token!, lost === undefined ? given : { ...given, resumptionToken: lost });
    const told = this.onerror;
    let gaveUp: Error | undefined;
    const hearing = (error: Error) => {
      if (GAVE_UP.test(String((error as Error | undefined)?.message))) gaveUp = error;
      told?.call(this, error);
    };
    this.onerror = hearing;
    try {
      schedule.call(this, options, attempt);
    } finally {
      if (this.onerror === hearing) this.onerror = told;
    }
    if (gaveUp !== undefined)
      lose(
        wire,
        token!,
        `resuming it failed: the MCP SDK gave up (${gaveUp.message}${resuming.failure === undefined ? "" : ` Its last try: ${resuming.failure}`})`,
      );
  };
}

/**
 * The watchers an answer on a stream no POST carried (the GET stream) is for: those whose last POST carried the
 * request its `id` names (as the SDK's Client matches an answer to its request: by the id as a number).
 */
function strayOnGet(wire: Wire, id: unknown): WireWatcher[] {
  return [...wire.watchers].filter((w) => namesRequest(id, wire.sentIds.get(w)));
}

/** What is watched of the transport `client` has now (its fetch wrapped the first time), or `undefined` for one not the SDK's HTTP transports. */
function wireOf(client: unknown): Wire | undefined {
  const transport = (client as { transport?: unknown } | null)?.transport;
  if (transport === null || typeof transport !== "object" || !("_fetch" in transport) || !(transport as HttpTransport)._url) return undefined;
  const known = wires.get(transport);
  if (known !== undefined) return known;
  const wire: Wire = { watchers: new Set(), resuming: new Map(), sentIds: new WeakMap(), withdrawn: [], ready: Promise.resolve() };
  const t = transport as HttpTransport;
  t._fetch = wrapped(wire, t, t._fetch ?? ((input, init) => fetch(input, init)));
  // (before the GET stream is reopened: the SDK's method it puts back after is this one)
  hearGivingUp(wire, t);
  wires.set(transport, wire);
  wire.ready = reopenGetStream(client, t).catch(() => {});
  return wire;
}

/** Why functai closed a GET stream: said by the SDK's own error for a stream cut (kept from the client's onerror). */
const REOPENING = "functai reopens the MCP client's GET stream through its bounded fetch";

/** The most times a reopened GET stream is asked for again at once while the server still holds the one closed (409). */
const CONFLICT_TRIES = 20;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref?.());

/**
 * Reopens the GET stream of a started Streamable HTTP transport through its fetch, now wrapped (see the module's
 * note). The stream is sent with the signal of the transport's abort controller, which every request shares: the
 * transport is given a new one (aborting it, as closing does, aborts the old one too), and the old one is aborted
 * once the requests sent with it are answered (at once, in the ordinary case: a client just connected). The SDK
 * would open the stream again itself after its backoff (a second, perhaps): it is opened at once instead, going
 * on from the last event read; a server that still holds the old one (409) is asked again a few times, then the
 * SDK's backoff takes over, as it does for any stream that failed to reopen. A stream that was not open (the
 * server has none, 405, or it was being opened) is asked for too. The SDK's word of the cut stream (its
 * "SSE stream disconnected" to onerror) is not passed on: functai cut it. Not started, or not Streamable HTTP
 * (the SSE transport's one stream carries its session): nothing.
 */
async function reopenGetStream(client: unknown, t: HttpTransport): Promise<void> {
  const old = t._abortController;
  const schedule = t._scheduleReconnection;
  const start = t._startOrAuthSse;
  if (!(old instanceof AbortController) || old.signal.aborted || typeof schedule !== "function" || typeof start !== "function") return;
  const fresh = new AbortController();
  fresh.signal.addEventListener("abort", () => old.abort(fresh.signal.reason), { once: true });
  t._abortController = fresh;
  // requests sent with the old signal (the caller's own, made before): answered first, not cut
  const waiting = (): Map<unknown, unknown> | undefined => {
    const handlers = (client as { _responseHandlers?: unknown })._responseHandlers;
    return handlers instanceof Map ? handlers : undefined;
  };
  const before = [...(waiting()?.keys() ?? [])];
  if (before.length > 0) {
    // (not waited on by mcpTools: the stream is reopened once they are answered; the client's map read anew each
    // time, as it makes a new one when its connection closes)
    void (async () => {
      while (!fresh.signal.aborted && before.some((id) => waiting()?.has(id))) await sleep(25);
      if (!fresh.signal.aborted) await cutAndReopen(t, old, fresh, schedule, start);
    })().catch(() => {});
    return;
  }
  await cutAndReopen(t, old, fresh, schedule, start);
}

async function cutAndReopen(
  t: HttpTransport,
  old: AbortController,
  fresh: AbortController,
  schedule: NonNullable<HttpTransport["_scheduleReconnection"]>,
  start: NonNullable<HttpTransport["_startOrAuthSse"]>,
): Promise<void> {
  // the SDK's reaction to the cut stream (its word to onerror, then its reconnection after a backoff) is told
  // at once, as the cut stream's reader fails: caught here, until the next turn of the event loop
  let asked: ReconnectOptions | undefined;
  const ownSchedule = Object.hasOwn(t, "_scheduleReconnection");
  t._scheduleReconnection = (options) => {
    asked ??= options;
  };
  // what the SDK tells onerror of the stream cut, and of a reopening the server refused as it still held it (409)
  let conflicts = true;
  const onerror = t.onerror;
  const quiet = (error: Error) => {
    const cut = String((error as Error | undefined)?.message).includes(REOPENING);
    if (!cut && !(conflicts && (error as { code?: unknown } | undefined)?.code === 409)) onerror?.call(t, error);
  };
  t.onerror = quiet;
  try {
    try {
      old.abort(new Error(REOPENING));
      // (a timer: every microtask runs before it; setImmediate is Node's only)
      await new Promise<void>((resolve) => setTimeout(resolve, 0));
    } finally {
      if (ownSchedule) t._scheduleReconnection = schedule;
      else delete t._scheduleReconnection;
    }
    const options: ReconnectOptions = asked ?? { resumptionToken: undefined };
    for (let tries = 1; !fresh.signal.aborted; tries++) {
      conflicts = tries < CONFLICT_TRIES;
      try {
        return await start.call(t, options);
      } catch (e) {
        if (fresh.signal.aborted) return;
        // the server has not yet seen the old stream close: asked again shortly
        if ((e as { code?: unknown } | null)?.code === 409 && tries < CONFLICT_TRIES) {
          await sleep(50);
          continue;
        }
        // a stream that was open: as the SDK does when one fails to reopen, again after its backoff; one that was
        // not (the server refused its GET before, 404): left so, as the SDK leaves the first it could not open
        if (asked !== undefined) (t._scheduleReconnection ?? schedule).call(t, options, 0);
        return;
      }
    }
  } finally {
    conflicts = false;
    // (left as it is when it was set anew meanwhile: then only the word of the cut stream is kept from it)
    if (t.onerror === quiet) t.onerror = onerror;
  }
}

/**
 * Bounds the answers on the wire of `client`'s transport (see the module's note) and waits (at most 10 s) until
 * the GET stream it opened before is open again through the bounded fetch.
 */
export async function boundWire(client: unknown): Promise<void> {
  const wire = wireOf(client);
  if (wire === undefined) return;
  await Promise.race([wire.ready, sleep(10_000)]);
}

/**
 * Bounds the answers on the wire of `client`'s transport (see the module's note) and has `watcher` told of the
 * POSTs carrying its request until the returned function is called. `withdraw(id, method)` on it (given back as
 * well) keeps a request given up from being sent later. A transport that is not the SDK's HTTP one: nothing watched.
 */
export function watchWire(client: unknown, watcher: WireWatcher): { stop: () => void; withdraw: (message: PostedRequest) => void } {
  const wire = wireOf(client);
  if (wire === undefined) return { stop: () => {}, withdraw: () => {} };
  wire.watchers.add(watcher);
  return {
    stop: () => {
      wire.watchers.delete(watcher);
      // (a stream being resumed for none still watching is watched no more: the SDK goes on resuming it)
      for (const [token, r] of wire.resuming) if (!r.watchers.some((w) => wire.watchers.has(w))) wire.resuming.delete(token);
    },
    withdraw: (message) => {
      wire.withdrawn.push({ id: message.id, method: message.method });
      // (a few kept: an SDK sending again a request given up long ago is not a case to keep them all for)
      if (wire.withdrawn.length > 100) wire.withdrawn.shift();
    },
  };
}
