import { lineOf, sseResumable, tapLines } from "./lines.js";
import { requestNumber } from "./message-head.js";
import { AnswerStreamEnded, howEnded } from "./wire.js";

/**
 * A request that failed because the server sent an answer its transport
 * could not read while the request waited (see {@link untilUnreadable}):
 * what was wrong with it, in the transport's error (`cause`).
 */
export class UnreadableMessage extends Error {
  /** `said`: what was wrong with it, when known otherwise than by the transport's error (see {@link strayKeysSaid}). */
  constructor(cause: unknown, said?: string) {
    super(said ?? whatIsWrong(cause), { cause });
    this.name = "UnreadableMessage";
  }
}

/** What is wrong with an answer, by the transport's error for it. */
function whatIsWrong(cause: unknown): string {
  if (idless(cause)) return "its id is not as JSON-RPC says (an answer to no request the client can name)";
  if (versionless(cause)) return 'its jsonrpc is not as JSON-RPC says ("2.0")';
  const keys = otherKeys(cause);
  return keys !== undefined ? strayKeysSaid(keys) : "its result or error is not as JSON-RPC says";
}

/** The top-level keys the SDK's schema did not know in a message, when that was its only fault. */
function otherKeys(error: unknown): string[] | undefined {
  const issues = (error as { issues?: unknown } | null)?.issues;
  if (!Array.isArray(issues) || issues.length === 0) return undefined;
  const top = (i: Issue) => i.code === "unrecognized_keys" && Array.isArray(i.path) && i.path.length === 0 && Array.isArray(i.keys);
  if (!(issues as Issue[]).every(top)) return undefined;
  return (issues as Issue[]).flatMap((i) => i.keys as unknown[]).map(String);
}

/** What is said of an answer with top-level `keys` JSON-RPC does not name (see {@link UnreadableMessage}). */
export function strayKeysSaid(keys: readonly string[]): string {
  const named = keys.map((k) => JSON.stringify(k)).join(", ");
  return `it has ${keys.length === 1 ? "the key" : "the keys"} ${named} beside jsonrpc, id, result and error, which JSON-RPC does not name`;
}

/** Whether an answer's fault was its `id` (left out, `null`, or no request id): see {@link answerIssues} and {@link idlessAnswer}. */
function idless(error: unknown): boolean {
  if (idlessAnswer(error)) return true;
  const issues = (error as { issues?: unknown } | null)?.issues;
  return JSON.stringify(Array.isArray(issues) ? issues : []).includes('"path":["id"]');
}

/**
 * A request that failed because its connection was closed by the client's transport when the server sent a
 * message past what the transport reads (the SDK's stdio transport: 10 MB on one line): it may have been
 * this request's answer (the server answered, and a changing call may have acted), or another's. `limit`
 * is that limit in bytes, as the transport said it.
 */
export class OversizedMessage extends Error {
  constructor(
    readonly limit: number,
    cause: unknown,
  ) {
    super(
      `the connection was closed: the MCP server sent a message larger than the transport reads (${limit.toLocaleString("en-US")} bytes, the SDK's stdio limit), perhaps its answer to this request`,
      { cause },
    );
    this.name = "OversizedMessage";
  }
}

/** The limit in bytes a transport's error says a message of the server went past (the SDK's ReadBuffer), else `undefined`. */
function oversized(error: unknown): number | undefined {
  const said = /^ReadBuffer exceeded maximum size of (\d+) bytes$/.exec(error instanceof Error ? error.message : "");
  return said ? Number(said[1]) : undefined;
}

/** The SDK's code for a connection that closed (`ErrorCode.ConnectionClosed`), read without loading the SDK here. */
export const CONNECTION_CLOSED = -32000;

/** The parts of an SDK transport watched here: the error handler its Client chains into. */
interface Transport {
  onerror?: ((error: Error) => void) | undefined;
}

interface Issue {
  code?: unknown;
  path?: unknown;
  keys?: unknown;
  errors?: unknown;
}

/**
 * Whether one reading of a message (a branch of the SDK's union of JSON-RPC messages, by its issues) says it
 * is an answer: its `jsonrpc` and `id` are read, no `method` or `params` is in it, and only its `result` or
 * `error` (and keys beside them) cannot be read.
 */
function answerIssues(issues: readonly Issue[]): boolean {
  const at = (i: Issue) => (Array.isArray(i.path) ? i.path[0] : undefined);
  // an `id` that is no request id (`null`, as JSON-RPC writes it for a request the server could not read, or
  // 1.5) answers a request all the same: the one waiting, when one is (see settle)
  const answerPart = (i: Issue) => at(i) === "result" || at(i) === "error" || at(i) === "id";
  const bodyOnly = (i: Issue) =>
    answerPart(i) ||
    (i.code === "unrecognized_keys" &&
      Array.isArray(i.path) &&
      i.path.length === 0 &&
      Array.isArray(i.keys) &&
      !i.keys.some((k) => k === "method" || k === "params"));
  return issues.some(answerPart) && issues.every(bodyOnly);
}

/**
 * Whether a transport's error is an answer it could not read: a JSON-RPC response (`jsonrpc` and `id` as
 * MCP says) whose `result` or `error` is not (the SDK's ZodError, read by {@link answerIssues}). A line
 * that is not JSON, or JSON that is no response (a server's log lines on its stdout, which the SDK drops
 * and reads on), answers no request; nor do the transport's other errors (a late answer to a cancelled
 * request, a notification handler's).
 */
function unreadableAnswer(error: unknown): boolean {
  if ((error as { name?: unknown } | null)?.name !== "ZodError") return false;
  const issues = (error as { issues?: unknown }).issues;
  if (!Array.isArray(issues)) return false;
  const [only] = issues as Issue[];
  if (issues.length === 1 && only!.code === "invalid_union" && Array.isArray(only!.errors)) {
    const branches = (only!.errors as unknown[]).filter((branch): branch is Issue[] => Array.isArray(branch));
    return branches.some(answerIssues) || wrongVersion(branches);
  }
  return answerIssues(issues as Issue[]);
}

/** Whether an issue is of the message's `jsonrpc` (left out, or not `"2.0"`). */
const ofVersion = (i: Issue): boolean => Array.isArray(i.path) && i.path.length === 1 && i.path[0] === "jsonrpc";

/**
 * Whether the branches of the SDK's union say a message is an answer but for its `jsonrpc` (left out, `"1.0"`,
 * the number 2): it has no `method` (no branch of an answer, which are strict, names `method` as a key it does
 * not know), and one branch reads all of it but its `jsonrpc` (and its `id`, when that is `null` or left out):
 * its `result` or `error` as MCP says, and no key JSON-RPC does not name. A request or a notification with a
 * wrong `jsonrpc` has a `method`: no answer; nor is a JSON line a logger writes to stdout (`{ level, msg }`: no
 * `result` or `error`, and keys of its own).
 */
function wrongVersion(branches: readonly Issue[][]): boolean {
  const named = (i: Issue) => i.code === "unrecognized_keys" && Array.isArray(i.keys) && i.keys.some((k) => k === "method" || k === "params");
  if (branches.some((branch) => branch.some(named))) return false;
  const ofId = (i: Issue) => Array.isArray(i.path) && i.path.length === 1 && i.path[0] === "id";
  return branches.some((branch) => branch.some(ofVersion) && branch.every((i) => ofVersion(i) || ofId(i)));
}

/**
 * Whether a transport's error was thrown for a line (see {@link lineOf}) that is an answer to a request the client
 * still waits for: an object with `result` or `error`, no `method`, whose `id` is that request's (as the SDK's Client
 * matches an answer to its request: by the id as a number). Whatever else is wrong with it (a key JSON-RPC does not
 * name, which the SDK's error cannot tell from a notification's), the server answered that request: it is not read.
 */
function answersPending(client: unknown, error: unknown): boolean {
  const id = answeredId(error);
  const handlers = (client as { _responseHandlers?: unknown } | null)?._responseHandlers;
  return id !== undefined && handlers instanceof Map && handlers.has(id);
}

/**
 * The id of the request a line the transport could not read (see {@link lineOf}) answers, as the SDK's Client
 * numbers its requests: an object with `result` or `error`, no `method`, and an id it can match. Else `undefined`.
 */
function answeredId(error: unknown): number | undefined {
  const line = lineOf(error);
  if (line === null || typeof line !== "object" || Array.isArray(line) || "method" in line) return undefined;
  if (!("result" in line || "error" in line)) return undefined;
  return requestNumber((line as { id?: unknown }).id);
}

/** The ids of the requests the SDK's Client waits for (its `_responseHandlers`; none when it does not say). */
function pendingIds(client: unknown): number[] {
  const handlers = (client as { _responseHandlers?: unknown } | null)?._responseHandlers;
  return handlers instanceof Map ? [...handlers.keys()].filter((k): k is number => typeof k === "number") : [];
}

/** Whether an answer's fault was its `jsonrpc` (and not its `id`, see {@link idless}). */
function versionless(error: unknown): boolean {
  const issues = (error as { issues?: unknown } | null)?.issues;
  return JSON.stringify(Array.isArray(issues) ? issues : []).includes('"path":["jsonrpc"]');
}

/** What the SDK's Client tells `onerror` of a response it has no request for, with the response as JSON. */
const UNKNOWN_ID = "Received a response for an unknown message ID: ";

/**
 * Whether a transport's error is a JSON-RPC error response with no `id` (which JSON-RPC lets a server send
 * for a request it could not read), that the SDK's Client reads as a response to no request of its own. One
 * with an `id` it no longer waits for (a late answer to a request that timed out or was cancelled) is not.
 */
function idlessAnswer(error: unknown): boolean {
  const message = error instanceof Error ? error.message : "";
  if (!message.startsWith(UNKNOWN_ID)) return false;
  try {
    const response: unknown = JSON.parse(message.slice(UNKNOWN_ID.length));
    return response !== null && typeof response === "object" && !("id" in response) && "error" in response;
  } catch {
    return false;
  }
}

/** One request waiting on a transport: failed with an answer the transport could not read, once it is known to be its. */
interface Waiter {
  /** The JSON-RPC ids its request was sent with, as the client numbers them (none known: empty). */
  ids: Set<number>;
  fail(error: Error): void;
  /** The transport closed the connection for a message of the server past its limit (see {@link OversizedMessage}). */
  closedOversized(error: OversizedMessage): void;
  /** The stream its answer was to come on ended, and cannot be resumed (see {@link sseStreamEnded}). */
  lost(error: AnswerStreamEnded): void;
}

/**
 * What is watched of one transport: the requests waiting on it, and each answer it could not read with the
 * requests that were waiting when it came (one of them its own, unless it was a late answer to one gone).
 */
interface Watched {
  waiting: Set<Waiter>;
  unread: { error: Error; among: Set<Waiter> }[];
}

const watched = new WeakMap<Transport, Watched>();

/**
 * Fails each request an unreadable answer is known to be for: the last one left waiting of those that were
 * waiting when it came, the others having had their own answers. While two or more may be its, none is
 * failed for it (a call of a changing tool would be put in doubt for another's answer).
 */
function settle(w: Watched): void {
  for (let found = w.unread.find((u) => u.among.size <= 1); found !== undefined; found = w.unread.find((u) => u.among.size <= 1)) {
    w.unread.splice(w.unread.indexOf(found), 1);
    const [only] = found.among;
    if (only !== undefined) blame(w, only, found.error);
  }
}

/** Fails `waiter` with the answer it could not read (`error`): it waits no more, and no other answer is its. */
function blame(w: Watched, waiter: Waiter, error: Error): void {
  w.waiting.delete(waiter);
  for (const u of w.unread) u.among.delete(waiter);
  waiter.fail(error);
}

/**
 * What is watched of `transport`, its `onerror` (which its Client set, chaining to the Client's own) wrapped
 * the first time, and still called.
 */
function watchedOf(transport: Transport, client: unknown): Watched {
  const known = watched.get(transport);
  if (known !== undefined) return known;
  const w: Watched = { waiting: new Set(), unread: [] };
  watched.set(transport, w);
  tapLines(transport);
  const before = transport.onerror;
  transport.onerror = (error) => {
    const limit = oversized(error);
    // (the transport closes the connection next: every request waiting fails as closed, each is told why)
    if (limit !== undefined) for (const waiter of w.waiting) waiter.closedOversized(new OversizedMessage(limit, error));
    else if (sseStreamEnded(transport, error)) for (const waiter of [...w.waiting]) waiter.lost(sseEnded(transport, error));
    else if (answersPending(client, error)) unread(w, error, answeredId(error));
    else if (unreadableAnswer(error)) unread(w, error);
    before?.call(transport, error);
  };
  return w;
}

/** How the SDK's SSE transport begins its error for its EventSource's (the SDK's `SseError`). */
const SSE_ERROR = "SSE error: ";

/**
 * Whether `error` is the SDK's SSE transport (the old one) telling its `onerror` that its one stream of events ended
 * or failed (its `SseError`, with the EventSource's error `event`; one refused for its token, which it authorizes
 * again, is not told): its EventSource opens a new stream, a new session, on which no answer to a request of the old
 * one comes. Also when events of it had ids: the EventSource would ask to go on from the last (Last-Event-ID), but
 * the SDK's transport sends its GET with headers of its own in place of the EventSource's, that one left out (see
 * hunt154-sse-resumption): no server is asked to resume it.
 */
function sseStreamEnded(transport: Transport, error: unknown): error is Error {
  if (!("_eventSource" in transport)) return false;
  const event = (error as { event?: unknown } | null)?.event;
  return error instanceof Error && error.message.startsWith(SSE_ERROR) && event !== null && typeof event === "object";
}

/** The SSE transport's stream ended, no answer to come on it (see {@link sseStreamEnded}): how. */
const sseEnded = (transport: Transport, error: Error): AnswerStreamEnded =>
  sseResumable(transport)
    ? new AnswerStreamEnded(
        sseCut(error),
        `it cannot be resumed (${howEnded(sseCut(error))}): its events had ids, but the MCP SDK's SSE transport opens it again without Last-Event-ID, a new session`,
      )
    : new AnswerStreamEnded(sseCut(error));

/** What cut the SSE transport's stream (its error, when its EventSource's event says what: else the server ended it). */
const sseCut = (error: Error): Error | undefined =>
  typeof (error as { event?: { message?: unknown } }).event?.message === "string" ? error : undefined;

/**
 * An answer that could not be read came: blamed on a request when it is known whose it is. Its `id` (when the
 * line was read, and the client waits for a request of that id) names it: the request sent with that id fails at
 * once; a request none of them was sent with (one the caller made on the client itself) is none of theirs whose
 * ids are known. Else it is the last left waiting of those that might be its (see {@link settle}).
 */
function unread(w: Watched, error: Error, id?: number): void {
  const named = id === undefined ? undefined : [...w.waiting].find((waiter) => waiter.ids.has(id));
  if (named !== undefined) return blame(w, named, error);
  const among = [...w.waiting].filter((waiter) => id === undefined || waiter.ids.size === 0);
  w.unread.push({ error, among: new Set(among) });
  settle(w);
}

/** The Client's own error handler, as the SDK calls it: wrapped here, by the Watched it tells. */
interface ErrorTold {
  onerror?: ((error: Error) => void) | undefined;
}
const wrappers = new WeakSet<(error: Error) => void>();

/**
 * Wraps the client's `onerror` (again, if it was set anew since): the SDK's Client tells only that, not its
 * transport's, of a response it has no request for (see {@link idlessAnswer}). The errors of its transport
 * reach it too, and are read where the transport tells them (see {@link watchedOf}).
 */
function watchClient(client: ErrorTold & { transport?: unknown }): void {
  if (client.onerror !== undefined && wrappers.has(client.onerror)) return;
  const before = client.onerror;
  const wrapper = (error: Error) => {
    // what is watched of the transport it has now (one it connected anew, after a close, included)
    const w = typeof client.transport === "object" && client.transport !== null ? watched.get(client.transport) : undefined;
    if (w !== undefined && idlessAnswer(error)) unread(w, error);
    before?.call(client, error);
  };
  wrappers.add(wrapper);
  client.onerror = wrapper;
}

/**
 * Watches `transport` for `waiter`, until the returned function is called with whether its request had its
 * answer. A request that ended without one (it timed out, was cancelled, or its connection closed) may have
 * been the one an unreadable answer was for: that answer is then blamed on no other.
 */
function watch(client: unknown, waiter: Waiter): (answered: boolean) => void {
  const transport = (client as { transport?: unknown } | null)?.transport;
  if (transport === null || typeof transport !== "object") return () => {};
  const w = watchedOf(transport as Transport, client);
  watchClient(client as ErrorTold);
  w.waiting.add(waiter);
  return (answered) => {
    if (!w.waiting.delete(waiter)) return;
    if (answered) for (const u of w.unread) u.among.delete(waiter);
    else w.unread = w.unread.filter((u) => !u.among.has(waiter));
    settle(w);
  };
}

/**
 * Runs one request to the server (`request`, given the signal to send it with: aborted with `outer`, or when
 * the client's transport reads an answer it cannot, see {@link unreadableAnswer}). The SDK's transport drops
 * a message it cannot read and tells only `onerror`: the request it answered waited out its whole timeout.
 * Which request a dropped answer was to is not told (its id is not in the error): it is the one request
 * waiting when it came, or the last left waiting of several, the others answered (see {@link settle}); that
 * request is cancelled and fails with {@link UnreadableMessage}: the server answered it, and a changing call
 * may have acted. Lines that are no answer (a server's logs on its stdout) are passed over, as the SDK
 * passes them over.
 *
 * @example
 * const page = await untilUnreadable(client, undefined, (signal) => client.listTools({}, { signal }));
 */
export async function untilUnreadable<T>(client: unknown, outer: AbortSignal | undefined, request: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let seen: Error | undefined;
  const forward = () => controller.abort(outer!.reason);
  if (outer?.aborted) forward();
  else outer?.addEventListener("abort", forward, { once: true });
  let tooLarge: OversizedMessage | undefined;
  let ended: AnswerStreamEnded | undefined;
  const ids = new Set<number>();
  const done = watch(client, {
    ids,
    fail: (error) => {
      seen = error;
      controller.abort(error);
    },
    closedOversized: (error) => {
      tooLarge = error;
    },
    lost: (error) => {
      ended = error;
      controller.abort(error);
    },
  });
  let answered = false;
  try {
    // the ids the client numbered the request with: its requests are sent at once, as `request` is called
    const before = new Set(pendingIds(client));
    const sent = request(controller.signal);
    for (const id of pendingIds(client)) if (!before.has(id)) ids.add(id);
    const result = await sent;
    answered = true;
    return result;
  } catch (e) {
    if (seen !== undefined && !outer?.aborted) throw new UnreadableMessage(seen);
    if (ended !== undefined && !outer?.aborted) throw ended;
    // the connection closed for a message too large: said, not "Connection closed" alone
    if (tooLarge !== undefined && !outer?.aborted && (e as { code?: unknown } | null)?.code === CONNECTION_CLOSED) throw tooLarge;
    throw e;
  } finally {
    done(answered);
    outer?.removeEventListener("abort", forward);
  }
}

/** What is told of notifications/tools/list_changed, by transport: each mcpTools call's listing (held weakly). */
const toolsChanged = new WeakMap<object, Set<WeakRef<ToolsWatcher>>>();

/** What is told that a server's tools changed: one mcpTools call's listing. */
export interface ToolsWatcher {
  changed(): void;
}

/** The parts of an SDK transport read for a server's notifications: the message handler its Client set. */
interface Messages {
  onmessage?: ((message: unknown, extra?: unknown) => void) | undefined;
}

/**
 * Has `watcher` told each time the server says its tools changed (notifications/tools/list_changed) on the
 * transport `client` has now: its `onmessage` (which its Client set) wrapped the first time, and still called.
 * The watcher is held weakly (an app that calls mcpTools again and again on one client keeps only the listings
 * its tools still hold). Hands back that transport (`undefined` for a client that does not say it has one:
 * nothing is watched), for the caller to tell a connection made anew (another transport: perhaps another
 * server) from it.
 *
 * @example
 * const watcher = { changed: () => console.log("the tools changed") };
 * const watched = onToolsChanged(client, watcher);
 */
export function onToolsChanged(client: unknown, watcher: ToolsWatcher): object | undefined {
  const transport = (client as { transport?: unknown } | null)?.transport;
  if (transport === null || typeof transport !== "object") return undefined;
  let watchers = toolsChanged.get(transport);
  if (watchers === undefined) {
    const told = new Set<WeakRef<ToolsWatcher>>();
    watchers = told;
    toolsChanged.set(transport, told);
    const t = transport as Messages;
    const before = t.onmessage;
    t.onmessage = (message, extra) => {
      // told first: a call the client makes as it reads the notification sees its tools as stale
      if ((message as { method?: unknown } | null)?.method === "notifications/tools/list_changed")
        for (const ref of told) {
          const w = ref.deref();
          if (w === undefined) told.delete(ref);
          else w.changed();
        }
      before?.call(transport, message, extra);
    };
  }
  for (const ref of watchers) if (ref.deref() === undefined) watchers.delete(ref);
  watchers.add(new WeakRef(watcher));
  return transport;
}
