/**
 * SDK errors of both providers → `ProviderError`, by shape rather than by
 * class: the SDKs are loaded lazily (and a user's `client` may come from
 * another copy of the SDK), so `instanceof` would be unreliable. Both SDKs'
 * `APIError` carry `status`, `headers` and `error` (the body); connection
 * errors are `APIError`s with all three undefined.
 */
import type { GenerateOptions, LMResponse } from "../lm/types.js";
import { FunctaiError, ProviderError, describeValue, type ProviderErrorCode } from "../errors.js";
import { MAX_TIMER_MS } from "../runtime/clock.js";
import { parseRetryAfter, shouldRetry, type HeadersLike } from "./retry.js";

interface ApiErrorLike extends Error {
  status: number | undefined;
  headers: HeadersLike | undefined;
  error: unknown;
  type?: unknown;
}

const isApiErrorLike = (e: unknown): e is ApiErrorLike => e instanceof Error && "status" in e && "headers" in e && "error" in e;

const isAbortLike = (e: unknown): boolean => e instanceof Error && (e.name === "AbortError" || e.name === "APIUserAbortError");

const record = (x: unknown): Record<string, unknown> | undefined =>
  typeof x === "object" && x !== null ? (x as Record<string, unknown>) : undefined;

/** The error `type` the provider named: Anthropic's `{ error: { type } }`, OpenAI's `{ type }`. */
function errorType(e: ApiErrorLike): string | undefined {
  const body = record(e.error);
  const type = e.type ?? record(body?.error)?.type ?? body?.type;
  return typeof type === "string" ? type : undefined;
}

/** How much of a body that is not JSON (a proxy's error page) an error message shows. */
const PAGE_CHARS = 300;

/**
 * The provider's own words: Anthropic nests them in `error.error.message`, OpenAI in `error.message`.
 * Without them the SDK's message holds the whole body, which may be a page of HTML: its start is shown.
 */
function providerMessage(e: ApiErrorLike): string {
  const body = record(e.error);
  const message = record(body?.error)?.message ?? body?.message;
  if (typeof message === "string" && message !== "") return message;
  return e.message.length > PAGE_CHARS ? `${e.message.slice(0, PAGE_CHARS)}…` : e.message;
}

/** The error `code` OpenAI's body names (`{ error: { code } }`): what a gateway may say a spent quota with, whatever its `type`. */
function errorCode(e: ApiErrorLike): unknown {
  return (e as { code?: unknown }).code ?? record(record(e.error)?.error)?.code;
}

/**
 * The HTTP status an error with none of its own names as its `code` (vLLM's
 * stream error `{ code: 400 }`, OpenRouter's body `{ code: 401 }`); undefined
 * where its code is no such status (`"insufficient_quota"`, `null`).
 */
function statusOfCode(code: unknown): number | undefined {
  const n = typeof code === "number" ? code : typeof code === "string" && /^\d{3}$/.test(code) ? Number(code) : Number.NaN;
  return Number.isInteger(n) && n >= 400 && n <= 599 ? n : undefined;
}

function codeFor(given: number | undefined, type: string | undefined, code?: unknown): ProviderErrorCode {
  // an error in a stream or a 200 body has no status of its own: the one its code names is what it says
  const status = given ?? statusOfCode(code);
  // (a 429 too, but waiting does not help: the account's quota or credit is spent; a 402 is an account out of
  // credit: DeepSeek's "Insufficient Balance", OpenRouter's "Insufficient credits")
  if (type === "insufficient_quota" || type === "billing_error" || code === "insufficient_quota" || status === 402) return "provider-quota";
  if (status === 529 || type === "overloaded_error") return "provider-overloaded";
  if (status === 429 || type === "rate_limit_error") return "provider-rate-limit";
  if (status === 401 || status === 403) return "provider-auth";
  if (type === "authentication_error" || type === "permission_error") return "provider-auth";
  if (status === 408) return "provider-network";
  if (status !== undefined && status >= 500) return "provider-server";
  if (status !== undefined && status >= 400) return "provider-bad-request";
  if (type === "invalid_request_error" || type === "not_found_error") return "provider-bad-request";
  // A status-less error event in a stream (`api_error`, `server_error`, …): the server failed.
  return "provider-server";
}

export interface MapErrorContext {
  provider: string;
  signal?: AbortSignal | undefined;
  /** Removed from any message, should a server echo it (OpenAI's 401 quotes the key it got). */
  apiKey?: string | undefined;
  /** Where the request went (`POST https://…/chat/completions`), named when a 404 looks like a wrong `baseURL`. */
  endpoint?: string | undefined;
  /** What a right `baseURL` of this provider looks like, said with the endpoint. */
  baseURLAdvice?: string | undefined;
}

/** Words a router says of a path it does not know (Go's, Express's, the APIs' own for a wrong URL). */
const NO_SUCH_PATH = /^\s*(?:(?:(?:page|file|resource|route|path|url)\s+)?not\s+found\b|invalid url\b|cannot (?:get|post)\b)/i;

/**
 * A 404 that says nothing but "not found" (or has no words of the API at all:
 * a plain-text or HTML page, FastAPI's `{ detail }`) is, most often, a request
 * sent to the wrong URL. A 404 in which the API names something (a model that
 * does not exist) is not: it is told as it is.
 */
function noSuchPath(e: ApiErrorLike): boolean {
  if (e.status !== 404) return false;
  const body = record(e.error);
  const words = record(body?.error)?.message ?? body?.message;
  return typeof words !== "string" || words === "" || NO_SUCH_PATH.test(words);
}

/**
 * What to throw for an error from an SDK call. An abort is not a provider
 * failure: the caller gets the signal's reason (or the abort error) as it is.
 * Errors that are not the SDK's (our own bugs) also pass through unchanged.
 *
 * @example
 * try { await client.chat.completions.create(body, { signal }); }
 * catch (e) { throw toProviderError(e, { provider: "openai", signal }); }
 */
export function toProviderError(e: unknown, context: MapErrorContext): unknown {
  const { provider, signal, apiKey, endpoint, baseURLAdvice } = context;
  if (signal?.aborted) return signal.reason ?? e;
  if (isAbortLike(e) || e instanceof FunctaiError) return e;
  const redact = (text: string): string => (apiKey !== undefined && apiKey.length >= 4 ? text.split(apiKey).join("[redacted]") : text);
  if (e instanceof Error) {
    // The cause is kept for debugging; make sure it cannot print the key either.
    e.message = redact(e.message);
    if (e.stack !== undefined) e.stack = redact(e.stack);
  }
  if (e instanceof SyntaxError) {
    return new ProviderError("provider-response", `${provider}: the response could not be read (${e.message}).`, { provider, cause: e });
  }
  if (!isApiErrorLike(e)) return e;
  if (e.status === undefined && e.error === undefined) {
    return new ProviderError("provider-network", `${provider}: could not reach the API (${e.message}).`, { provider, cause: e });
  }
  const code = codeFor(e.status, errorType(e), errorCode(e));
  const where = e.status === undefined ? "in the stream" : `HTTP ${e.status}`;
  let message = `${provider}: ${redact(providerMessage(e))} (${where}).`;
  if (endpoint !== undefined && noSuchPath(e)) {
    // Said as a condition: a server may answer so for other reasons, and the URL shown lets the user judge.
    message += ` ${redact(endpoint)} was not found: if that is not the API's address, check baseURL${baseURLAdvice !== undefined ? ` (${baseURLAdvice})` : ""}.`;
  }
  const retryAfterMs = parseRetryAfter(e.headers);
  return new ProviderError(code, message, { provider, status: e.status, retryAfterMs, shouldRetry: shouldRetry(e.headers), cause: e });
}

/**
 * What a 200 response whose body is not a reply is. Proxies and compatible
 * servers answer some failures so (OpenRouter's `{ error }`, an
 * Anthropic-shaped `{ type: "error", error }`, old vLLM's `{ object: "error",
 * message }`): the error it names, by its
 * type as a stream's error event is (an overload is retried); any other body
 * (a captive portal's page) is `provider-response`, shown.
 */
export function notAReply(provider: string, body: unknown, what: string): ProviderError {
  // (vLLM before 0.10 gives its error at the top: `{ object: "error", message, type, code }`)
  const error = record(record(body)?.error) ?? (record(body)?.object === "error" ? record(body) : undefined);
  if (error !== undefined) {
    const type = typeof error.type === "string" ? error.type : undefined;
    const words = typeof error.message === "string" && error.message !== "" ? error.message : describeValue(error, 300);
    return new ProviderError(codeFor(undefined, type, error.code), `${provider}: ${words} (in a response that said 200).`, { provider });
  }
  return new ProviderError("provider-response", `${provider}: the response is not ${what}: ${describeValue(body, 300)}`, { provider });
}

/**
 * A stream event not of the shape its kind has (OpenAI's `choices: [null]`,
 * an Anthropic delta for a block no `content_block_start` began): the reply
 * cannot be read from it, and read around it, part of it was lost unseen.
 */
export const malformedEvent = (provider: string, what: string): ProviderError =>
  new ProviderError("provider-response", `${provider}: the stream sent ${what}; the reply could not be read.`, { provider });

/** A part of an event named with what it was and what it should have been, for `malformedEvent`. */
export const notShaped = (part: string, value: unknown, should: string): string => `${part} ${describeValue(value, 80)}, not ${should}`;

/** Whether a part that is text where it is given (a call's id or name, a refusal) is something else: null or left out is none given. */
export const notText = (value: unknown): boolean => value !== undefined && value !== null && typeof value !== "string";

/**
 * A response body that stops arriving (a reset, a dropped connection) fails,
 * by the Fetch standard, with a TypeError ("terminated" in Node, "network
 * error" or "Load failed" in browsers). The SDKs make a failure before the
 * response a connection error, but let one while its body is read through
 * as it is: so a TypeError out of an SDK call or its stream is the
 * connection lost mid-reply (worth a retry, like a stream cut short).
 */
export const connectionLost = (provider: string, e: unknown): unknown =>
  e instanceof TypeError
    ? new ProviderError("provider-network", `${provider}: the connection was lost during the reply (${e.message}).`, { provider, cause: e })
    : e;

/** An SDK call's response, a connection lost while it was read being `provider-network`. */
export async function received<T>(provider: string, call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (e) {
    throw connectionLost(provider, e);
  }
}

/**
 * A whole (non-streamed) reply, body included, within `ms` (the SDK client's
 * timeout): the SDKs' own timeout ends with the response's headers, and a
 * body that then stalls was waited for without end (in a browser; in Node
 * until its fetch gives up, five minutes), the turn held. Past `ms` the
 * request is aborted and fails as a connection lost (`provider-network`).
 * `call` is given the signal to send with (the caller's, and this bound).
 */
export async function wholeWithin<T>(
  provider: string,
  ms: number | undefined,
  signal: AbortSignal | undefined,
  call: (signal: AbortSignal | undefined) => Promise<T>,
): Promise<T> {
  if (ms === undefined) return received(provider, call(signal));
  const bound = new AbortController();
  const passOn = (): void => bound.abort(signal?.reason);
  if (signal?.aborted) passOn();
  else signal?.addEventListener("abort", passOn, { once: true });
  let stalled = false;
  const timer = setTimeout(() => {
    stalled = true;
    bound.abort();
  }, ms);
  try {
    return await received(provider, call(bound.signal));
  } catch (e) {
    if (stalled && !signal?.aborted)
      throw new ProviderError("provider-network", `${provider}: no whole reply came within ${ms} ms (the client's timeout): the response stalled.`, {
        provider,
        cause: e,
      });
    throw e;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", passOn);
  }
}

/**
 * Content types of one whole document: JSON (`application/json`,
 * `application/problem+json`) or a page. Not the line-by-line JSON types
 * (`application/x-ndjson`, `application/jsonl`): those name a stream, and
 * some compatible servers (LitServe's OpenAI spec) label their SSE stream so;
 * the SDKs read a streamed request's body as SSE whatever its type.
 */
const WHOLE_DOCUMENT = /\bjson\b|html/i;

/**
 * A streamed request's stream, once its response is seen to be one. A 200
 * whose body is a whole JSON document or a page (a proxy's, a captive
 * portal's) holds no events: read as a stream it would end at once and pass
 * for a connection cut short, retried for nothing. So its body is read
 * (within `idleMs`). Where it is a whole reply (`isReply`: a compatible
 * server that does not stream), it is given back as `whole`, to be read as an
 * unstreamed reply is; anything else is the error: the error it names, as
 * `notAReply` reads it, else `provider-response` showing it. Other content
 * types (an event stream, line-by-line JSON) are left to the SDK.
 */
export async function eventStream<S extends SdkStream<unknown>>(
  provider: string,
  idleMs: number | undefined,
  call: Promise<{ data: S; response: Response }>,
  isReply: (body: unknown) => boolean,
): Promise<{ stream: S } | { whole: unknown }> {
  const { data, response } = await received(provider, call);
  const type = response.headers.get("content-type") ?? "";
  if (!WHOLE_DOCUMENT.test(type)) return { stream: data };
  const timer = idleMs === undefined ? undefined : setTimeout(() => data.controller.abort(), idleMs);
  let text: string;
  try {
    text = await response.text();
  } catch {
    text = `(its ${type} body could not be read: it stalled or was cut off)`;
  } finally {
    clearTimeout(timer);
  }
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: the text is shown as it is
  }
  // (an error body is never a reply, whatever else it holds)
  if (record(body)?.error === undefined && isReply(body)) return { whole: body };
  throw notAReply(provider, body, `an event stream (${type})`);
}

/**
 * A whole reply to a streamed request, its text passed on in one piece as
 * `drainStream` passes deltas (`passedOn` first: see `streamedText`).
 */
export function givenWhole(reply: LMResponse, onText: ((delta: string) => void) | undefined, passedOn: () => void): LMResponse {
  if (reply.text !== "" && onText !== undefined) {
    passedOn();
    onText(reply.text);
  }
  return reply;
}

/** What a streamed request's attempts tell each other of its text (see `streamedText`). */
export interface StreamedText {
  /** Called before a delta goes to `onText`. */
  passedOn(): void;
  /** Asked before a retry: false once text was shown (it cannot be taken back). */
  canRetry(): boolean;
  /** Called as each attempt starts: after one that passed deltas on, the caller's `heldText` starts over. */
  attempt(): void;
}

/**
 * Whether a streamed request may be asked again after a failed attempt, by
 * what its text did: text shown to anyone cannot be taken back, so after it
 * a failure is final. Arriving is not being shown: a caller that holds text
 * back (the engine shows only the answer, never the reply form's tags) says
 * what it showed through `heldText`; without it, every delta passed on counts
 * as shown. Both providers decide so.
 *
 * @example
 * const text = streamedText(options);
 * return withRetry(async () => { text.attempt(); return drainStream(…, { onText, passedOn: text.passedOn }); }, { maxRetries, canRetry: text.canRetry });
 */
export function streamedText({ heldText }: GenerateOptions): StreamedText {
  let passed = false;
  return {
    passedOn: () => void (passed = true),
    canRetry: () => !passed || (heldText !== undefined && !heldText.shown()),
    attempt(): void {
      if (!passed) return;
      passed = false;
      heldText?.restart(); // (it showed nothing, or there would be no new attempt)
    },
  };
}

/** A stream's events, a connection lost between them being `provider-network` (what the caller's own code throws passes as it is). */
async function* arriving<E>(provider: string, events: AsyncIterable<E>): AsyncGenerator<E> {
  try {
    yield* events;
  } catch (e) {
    throw connectionLost(provider, e);
  }
}

/** A stream that ended without its final event: the connection dropped mid-reply (worth a retry). */
export const streamCutShort = (provider: string): ProviderError =>
  new ProviderError("provider-network", `${provider}: the response stream ended before the reply was complete.`, { provider });

/** What both providers' stream readers are: events in, text deltas out, one response at the end. */
export interface StreamAccumulator<E> {
  /** Takes one event; returns the text it adds ("" for none). */
  add(event: E): string;
  /** Whether the stream said it ended (a stream cut short is an error, not a reply). */
  readonly complete: boolean;
  /** Whether the last event came (Anthropic's `message_stop`): nothing is read after it, and the connection is closed. */
  readonly ended?: boolean;
  response(): LMResponse;
}

/** What an SDK's stream is besides its events: the controller that ends it (the request's own). */
export interface SdkStream<E> extends AsyncIterable<E> {
  controller: AbortController;
}

/**
 * The SDK client's `timeout` (both SDKs have one, 10 minutes by default), a
 * bound on each wait between a stream's events; undefined where a timer
 * cannot hold it (it then bounds nothing).
 */
export const idleBound = (sdk: unknown): number | undefined => {
  const ms = (sdk as { timeout?: unknown } | null)?.timeout;
  return typeof ms === "number" && ms > 0 && ms <= MAX_TIMER_MS ? ms : undefined;
};

/**
 * How long a stream may stay silent after its reply's finish (OpenAI's
 * `finish_reason`, Anthropic's stop reason) before the reply is given back
 * without its last event: a server (or proxy) that neither sends the usage
 * chunk or `message_stop` nor ends the body held a whole reply until the
 * client's timeout, ten minutes by default. A reply so given back has the
 * usage known by then (OpenAI's, none: zeros, as for any stream without
 * usage), and its stream is cancelled, so the connection is freed.
 */
export const FINISH_GRACE_MS = 1000;

/**
 * Reads a provider's stream into one response, passing text deltas on.
 * `passedOn` is called before each delta goes out: text shown cannot be
 * taken back, so the caller may stop retrying (see `streamedText`). The SDKs' timeout
 * ends with the response's headers: a stream that then stalls would be
 * waited for without end (in a browser; in Node until its fetch gives up,
 * five minutes), its turn held. So no event for `idleMs` ends it (the
 * request's controller aborted), as a connection lost; after the reply's
 * finish, FINISH_GRACE_MS of silence ends it, the reply given back.
 */
export async function drainStream<E>(
  provider: string,
  events: SdkStream<E>,
  reply: StreamAccumulator<E>,
  {
    signal,
    onText,
    passedOn,
    idleMs,
  }: { signal?: AbortSignal | undefined; onText?: ((delta: string) => void) | undefined; passedOn: () => void; idleMs?: number | undefined },
): Promise<LMResponse> {
  let stalled = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const wait = (): void => {
    clearTimeout(timer);
    // once the reply's finish came, only its trailer may follow (OpenAI's usage chunk, Anthropic's message_stop):
    // a stream silent for FINISH_GRACE_MS after it is over, the reply given back as known and the connection freed
    const ms = reply.complete ? Math.min(FINISH_GRACE_MS, idleMs ?? FINISH_GRACE_MS) : idleMs;
    if (ms === undefined) return;
    timer = setTimeout(() => {
      stalled = true;
      events.controller.abort(); // (the SDK ends an aborted stream quietly)
    }, ms);
  };
  try {
    wait();
    for await (const event of arriving(provider, events)) {
      const delta = reply.add(event);
      wait(); // (after the event is read: a finish shortens the wait to the grace)
      if (delta !== "" && onText !== undefined) {
        passedOn();
        onText(delta);
      }
      // (a server that leaves the body open after it held the reply until the idle bound, ten minutes)
      if (reply.ended === true) break;
    }
  } catch (e) {
    // A reply already whole when the connection went (only its trailer lost: OpenAI's usage chunk) is
    // kept: asking again would pay for it twice.
    if (!(e instanceof ProviderError && e.code === "provider-network" && reply.complete)) throw e;
  } finally {
    clearTimeout(timer);
  }
  // The SDK ends an aborted stream quietly; the caller must see the abort.
  signal?.throwIfAborted();
  if (stalled && !reply.complete) {
    throw new ProviderError("provider-network", `${provider}: the response stream stalled: nothing came for ${idleMs} ms (the client's timeout).`, {
      provider,
    });
  }
  if (!reply.complete) throw streamCutShort(provider);
  return reply.response();
}
