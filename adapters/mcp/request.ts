/**
 * Sending one request to an MCP server (a page of the listing, a call): timed here, not by the SDK (see
 * {@link timed}), and watched on the wire under it (see {@link onWire}); which of the SDK's errors with its own
 * codes were the server's answer is kept in {@link serverAnswers}.
 */
import { FunctaiError, describeError } from "../../src/errors.js";
import type { McpClient } from "./types.js";
import { CONNECTION_CLOSED, UnreadableMessage, strayKeysSaid } from "./watch.js";
import { type AcceptedRequest, type AnswerStreamEnded, type OversizedBody, type PostedRequest, watchWire } from "./wire.js";

/** The SDK's code for a request that timed out (`ErrorCode.RequestTimeout`). */
export const REQUEST_TIMEOUT = -32001;

/** McpErrors with the SDK's codes for a closed connection or a timeout that were the server's answer, not the SDK's own (see {@link send}). */
export const serverAnswers = new WeakSet<object>();

/** The SDK's timeout of a request when none is given (`DEFAULT_REQUEST_TIMEOUT_MSEC`). */
const SDK_TIMEOUT = 60_000;

/** The longest timer Node keeps: a longer one fires at once (with a warning), which would time every call out. */
export const MAX_TIMEOUT = 2_147_483_647;

/** The transport `client` has now (`undefined`: none, or a client that does not say). */
export const transportOf = (client: McpClient): unknown => (client as { transport?: unknown }).transport;

/**
 * Whether `e`, an McpError with the code the SDK gives its own "Connection closed" (-32000) or "Request
 * timed out" (-32001), was the server's answer: the SDK's closed connection leaves the client without the
 * transport the request was sent on (`sentOn`; `client.transport`, read while the error is new, is none, or a
 * new one when the client's `onclose` connected it again at once, as the SDK fails the requests waiting after
 * it), and its timeout is the one {@link timed} runs (`timedOut`: its timer fired). A client that does not say
 * its transport is read as closed.
 */
function answeredWithCode(client: McpClient, e: unknown, timedOut: boolean, sentOn: unknown): boolean {
  const { name, code } = (e ?? {}) as { name?: unknown; code?: unknown };
  if (name !== "McpError" || e === null || typeof e !== "object") return false;
  if (code === CONNECTION_CLOSED) return sentOn !== undefined && transportOf(client) === sentOn;
  if (code === REQUEST_TIMEOUT) return !timedOut;
  return false;
}

/** The options one request is sent with: `signal`, and the SDK's own timer set past reach ({@link timed} times it). */
interface Sending {
  signal: AbortSignal;
  timeout: number;
}

/**
 * What a request's timer aborts it with: the SDK, cancelling it, fails it with its McpError -32001 and these words
 * ("MCP error -32001: Request timed out", as its own timer says it).
 */
const TIMED_OUT = "Request timed out";

/**
 * Runs one request (`request`, given what to send it with) timed here, not by the SDK: past `timeout` ms (the
 * SDK's default when none) its signal aborts, and the SDK cancels it as its own timer would (notifications/cancelled
 * to the server, McpError -32001). A -32001 is then the server's answer exactly when this timer did not fire (told
 * by the clock before: a timer that fired a ms early by it was read as the server's answer, a server's -32001 that
 * came a ms after the timeout as the SDK's own): marked so while the error is new (see {@link answeredWithCode}).
 * `signal` aborted (the turn stopped, an answer cut off or unreadable) marks nothing.
 */
export async function timed<T>(
  client: McpClient,
  signal: AbortSignal,
  timeout: number | undefined,
  request: (sending: Sending) => Promise<T>,
): Promise<T> {
  const sentOn = transportOf(client);
  const timer = new AbortController();
  const fire = setTimeout(() => timer.abort(TIMED_OUT), timeout ?? SDK_TIMEOUT);
  try {
    return await request({ signal: AbortSignal.any([signal, timer.signal]), timeout: MAX_TIMEOUT });
  } catch (e) {
    if (!signal.aborted && answeredWithCode(client, e, timer.signal.aborted, sentOn)) serverAnswers.add(e as object);
    throw e;
  } finally {
    clearTimeout(fire);
  }
}

/**
 * A request whose wait ended (its timeout) while it was held back: its POST was refused for its OAuth token (401 or
 * 403) and its transport was still getting a new one (the token endpoint not answering), so the MCP server never
 * took it. It is withdrawn: not sent when a token comes. `cause`: the timeout.
 */
export class HeldBack extends Error {
  constructor(cause: unknown) {
    super("held back for an OAuth token the OAuth authorization server did not give in time", { cause });
    this.name = "HeldBack";
  }
}

/**
 * Runs one request (`request`, given the signal to send it with) watching the wire under it (see wire.ts): an
 * answer cut off there past its bound fails it at once with the {@link OversizedBody} (the request is cancelled);
 * one that timed out while its POST was held back for a token fails with {@link HeldBack}; either way, a request
 * given up while held back is never sent later. `carries` tells the POSTs carrying it.
 */
export async function onWire<T>(
  client: McpClient,
  carries: (message: PostedRequest) => boolean,
  outer: AbortSignal | undefined,
  request: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const cutter = new AbortController();
  let cut: OversizedBody | undefined;
  let ended: AnswerStreamEnded | undefined;
  let strayed: UnreadableMessage | undefined;
  let accepted: AcceptedRequest | undefined;
  /** What came as the JSON answer to its last POST, said short (see WireWatcher.jsonRead). */
  let jsonRead: string | undefined;
  let heldBack = false;
  let last: PostedRequest | undefined;
  const wire = watchWire(client, {
    carries,
    sent: (message) => {
      heldBack = false;
      jsonRead = undefined;
      last = message;
    },
    refused: () => {
      heldBack = true;
    },
    cut: (error) => {
      cut ??= error;
      cutter.abort(error);
    },
    // the stream its answer was to come on ended without it, and cannot be resumed: it would wait out its timeout
    ended: (error) => {
      ended ??= error;
      cutter.abort(error);
    },
    // its answer has keys JSON-RPC does not name: the SDK drops it, and the request would wait out its timeout
    strayKeys: (keys) => {
      strayed ??= new UnreadableMessage(undefined, strayKeysSaid(keys));
      cutter.abort(strayed);
    },
    // an answer misnamed (its own naming another request, or another's naming it): the SDK would give it to the
    // wrong request, or to none, and this one would wait out its timeout
    misnamed: (said) => {
      strayed ??= new UnreadableMessage(undefined, said);
      cutter.abort(strayed);
    },
    // its POST answered 202 Accepted: the server took it, and no answer will come (it would wait out its timeout)
    accepted: (error) => {
      accepted ??= error;
      cutter.abort(error);
    },
    // its POST answered with a media type the SDK reads no answer from: an answer came, and cannot be read
    untyped: (said) => {
      strayed ??= new UnreadableMessage(undefined, said);
      cutter.abort(strayed);
    },
    jsonRead: (said) => {
      jsonRead = said;
    },
  });
  try {
    return await request(outer === undefined ? cutter.signal : AbortSignal.any([outer, cutter.signal]));
  } catch (e) {
    // given up while its POST waits for a token: never sent when the token comes (nobody waits for its answer)
    if (heldBack && last !== undefined) wire.withdraw(last);
    if (outer?.aborted) throw e;
    if (cut !== undefined) throw cut;
    if (strayed !== undefined) throw strayed;
    if (ended !== undefined) throw ended;
    if (accepted !== undefined) throw accepted;
    // the SDK's parse of the JSON answer to its POST failed (the request fails with the transport's error): an answer
    // came, and could not be read; said with what came, not as a bare SyntaxError
    if (jsonRead !== undefined && e instanceof SyntaxError) throw new UnreadableMessage(e, `it is not JSON: ${jsonRead}`);
    const { name, code } = (e ?? {}) as { name?: unknown; code?: unknown };
    if (heldBack && name === "McpError" && code === REQUEST_TIMEOUT && !serverAnswers.has(e as object)) throw new HeldBack(e);
    throw e;
  } finally {
    wire.stop();
  }
}

/** A call held back for its token until its timeout (see {@link HeldBack}): `remote-auth`, it did not run. */
export const heldBackError = (what: string, e: HeldBack): FunctaiError =>
  new FunctaiError(
    "remote-auth",
    `${what} was not sent: the MCP server refused its OAuth token, and the OAuth authorization server gave no new one before the timeout (${describeError(e.cause)}), so the MCP server never took it: it did not run, and it will not be sent when a token comes. Try again once the authorization server answers`,
    { cause: e.cause },
  );
