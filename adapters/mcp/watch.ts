/**
 * A request that failed because the server sent an answer its transport
 * could not read while the request waited (see {@link untilUnreadable}):
 * what was wrong with it, in the transport's error (`cause`).
 */
export class UnreadableMessage extends Error {
  constructor(cause: unknown) {
    super("its result or error is not as JSON-RPC says", { cause });
    this.name = "UnreadableMessage";
  }
}

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
  const bodyOnly = (i: Issue) =>
    at(i) === "result" ||
    at(i) === "error" ||
    (i.code === "unrecognized_keys" &&
      Array.isArray(i.path) &&
      i.path.length === 0 &&
      Array.isArray(i.keys) &&
      !i.keys.some((k) => k === "method" || k === "params"));
  return issues.some((i) => at(i) === "result" || at(i) === "error") && issues.every(bodyOnly);
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
  if (issues.length === 1 && only!.code === "invalid_union" && Array.isArray(only!.errors))
    return (only!.errors as unknown[]).some((branch) => Array.isArray(branch) && answerIssues(branch as Issue[]));
  return answerIssues(issues as Issue[]);
}

/** One request waiting on a transport: failed with an answer the transport could not read, once it is known to be its. */
interface Waiter {
  fail(error: Error): void;
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
    if (only === undefined) continue;
    w.waiting.delete(only);
    for (const u of w.unread) u.among.delete(only);
    only.fail(found.error);
  }
}

/**
 * What is watched of `transport`, its `onerror` (which its Client set, chaining to the Client's own) wrapped
 * the first time, and still called.
 */
function watchedOf(transport: Transport): Watched {
  const known = watched.get(transport);
  if (known !== undefined) return known;
  const w: Watched = { waiting: new Set(), unread: [] };
  watched.set(transport, w);
  const before = transport.onerror;
  transport.onerror = (error) => {
    if (unreadableAnswer(error)) {
      w.unread.push({ error, among: new Set(w.waiting) });
      settle(w);
    }
    before?.call(transport, error);
  };
  return w;
}

/**
 * Watches `transport` for `waiter`, until the returned function is called with whether its request had its
 * answer. A request that ended without one (it timed out, was cancelled, or its connection closed) may have
 * been the one an unreadable answer was for: that answer is then blamed on no other.
 */
function watch(transport: unknown, waiter: Waiter): (answered: boolean) => void {
  if (transport === null || typeof transport !== "object") return () => {};
  const w = watchedOf(transport as Transport);
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
  const done = watch((client as { transport?: unknown } | null)?.transport, {
    fail: (error) => {
      seen = error;
      controller.abort(error);
    },
  });
  let answered = false;
  try {
    const result = await request(controller.signal);
    answered = true;
    return result;
  } catch (e) {
    if (seen !== undefined && !outer?.aborted) throw new UnreadableMessage(seen);
    throw e;
  } finally {
    done(answered);
    outer?.removeEventListener("abort", forward);
  }
}
