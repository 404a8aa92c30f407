/**
 * Retrying a provider call ourselves (the SDKs get `maxRetries: 0`), so one
 * policy covers both providers, honours the server's `retry-after`, and
 * stops at once when the caller aborts.
 */
import { ProviderError, type ProviderErrorCode } from "../errors.js";

/** What SDK errors carry as `headers`: a fetch `Headers` or a plain record. */
export type HeadersLike = { get(name: string): string | null } | Record<string, string | string[] | undefined>;

/** Rate limits, overload, 5xx and network failures are worth another try; nothing else is. */
export const RETRYABLE_CODES: ReadonlySet<ProviderErrorCode> = new Set<ProviderErrorCode>([
  "provider-rate-limit",
  "provider-overloaded",
  "provider-server",
  "provider-network",
]);

/** A server asking for a longer wait than this is not waited for: the error (with `retryAfterMs`) goes to the caller. */
export const MAX_RETRY_AFTER_MS = 60_000;
const BASE_MS = 500;
const CAP_MS = 8_000;

function header(headers: HeadersLike, name: string): string | undefined {
  if (typeof headers.get === "function") return (headers as { get(n: string): string | null }).get(name) ?? undefined;
  const value = (headers as Record<string, string | string[] | undefined>)[name];
  return Array.isArray(value) ? value[0] : value;
}

/** delay-seconds (RFC 9110: digits), with the decimal fraction some servers add; never hex, an exponent or a sign. */
const DELAY = /^\d+(?:\.\d+)?$/;

/** The HTTP-date forms (RFC 9110 §5.6.7): IMF-fixdate, and the obsolete RFC 850 and asctime forms (GMT, though it says no zone). */
const IMF_FIXDATE = /^[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/;
const RFC850_DATE = /^[A-Za-z]{6,9}, \d{2}-[A-Za-z]{3}-\d{2} \d{2}:\d{2}:\d{2} GMT$/;
const ASCTIME_DATE = /^[A-Za-z]{3} [A-Za-z]{3} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/;

/** An HTTP-date's time, or NaN when `text` is none (an ISO date, words). */
function httpDate(text: string): number {
  if (IMF_FIXDATE.test(text) || RFC850_DATE.test(text)) return Date.parse(text);
  if (ASCTIME_DATE.test(text)) return Date.parse(`${text} GMT`); // (else read in the local zone)
  return Number.NaN;
}

/**
 * How long the server asked us to wait: `retry-after-ms`, else `retry-after`
 * in seconds or as an HTTP date, read as RFC 9110 has them (a decimal
 * fraction is taken). Undefined when it did not say, or said what is neither
 * (`0x10`, `1e3`, `+5`, an ISO date: read as numbers, they were waits of 16 s
 * and 1000 s).
 * A wait of 0 (or a date already past) asks for none: taken at its
 * word, every retry would be spent at once against a server still busy. So it
 * counts as not said (the normal backoff applies), and a `retry-after-ms: 0`
 * gives way to the `retry-after` beside it.
 *
 * @example
 * parseRetryAfter(new Headers({ "retry-after": "2" })); // 2000
 */
export function parseRetryAfter(headers: HeadersLike | undefined, now: number = Date.now()): number | undefined {
  if (headers === undefined || headers === null) return undefined;
  const rawMs = header(headers, "retry-after-ms")?.trim() ?? "";
  const ms = DELAY.test(rawMs) ? Number(rawMs) : Number.NaN;
  if (Number.isFinite(ms) && ms > 0) return ms;
  const raw = header(headers, "retry-after")?.trim();
  if (raw === undefined || raw === "") return undefined;
  if (DELAY.test(raw)) {
    const seconds = Number(raw);
    return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : undefined;
  }
  const date = httpDate(raw);
  return !Number.isNaN(date) && date > now ? date - now : undefined;
}

/**
 * What the server said of trying again: `x-should-retry: true` or `false`
 * (OpenAI and Anthropic send it, and their SDKs obey it); undefined when it
 * said nothing (or something else).
 *
 * @example
 * shouldRetry(new Headers({ "x-should-retry": "false" })); // false
 */
export function shouldRetry(headers: HeadersLike | undefined): boolean | undefined {
  if (headers === undefined || headers === null) return undefined;
  const said = header(headers, "x-should-retry")?.trim().toLowerCase();
  return said === "true" ? true : said === "false" ? false : undefined;
}

/**
 * Exponential backoff with jitter for retry number `retry` (0 for the first):
 * 500 ms doubling up to 8 s, then somewhere in its upper half so that many
 * clients failing together do not come back together.
 *
 * @example
 * backoffMs(0, () => 1); // 500
 */
export function backoffMs(retry: number, random: () => number = Math.random): number {
  const ceiling = Math.min(CAP_MS, BASE_MS * 2 ** retry);
  return ceiling / 2 + (ceiling / 2) * random();
}

/** A sleep that ends early, rejecting with the signal's reason, when the signal aborts. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

export interface RetryOptions {
  /** Retries after the first attempt (0: try once). */
  maxRetries: number;
  signal?: AbortSignal | undefined;
  /** Injectable for tests. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
  /** Asked before each retry: false when a retry would repeat what the caller already saw (streamed text). */
  canRetry?: () => boolean;
}

/**
 * Runs `attempt` until it succeeds, fails with an error that is not worth
 * retrying, or `maxRetries` retries are spent. Only `ProviderError`s with a
 * retryable code are retried; anything else (an abort above all) goes straight
 * to the caller.
 *
 * @example
 * const reply = await withRetry((n) => callTheApi(n), { maxRetries: 2, signal });
 */
export async function withRetry<T>(attempt: (n: number) => Promise<T>, options: RetryOptions): Promise<T> {
  const { maxRetries, signal, sleep = abortableSleep, random = Math.random, canRetry = () => true } = options;
  for (let n = 0; ; n++) {
    try {
      return await attempt(n);
    } catch (e) {
      if (signal?.aborted) throw signal.reason;
      // the server's x-should-retry outranks what the code says (a 409 it marks "retry"; a 5xx it marks "do not")
      if (!(e instanceof ProviderError) || !(e.shouldRetry ?? RETRYABLE_CODES.has(e.code as ProviderErrorCode))) throw e;
      if (n >= maxRetries || !canRetry()) throw e;
      if (e.retryAfterMs !== undefined && e.retryAfterMs > MAX_RETRY_AFTER_MS) throw e;
      // (a wait of 0 asks for none, as parseRetryAfter reads it: the backoff, whoever made the error)
      const asked = e.retryAfterMs !== undefined && e.retryAfterMs > 0 ? e.retryAfterMs : undefined;
      await sleep(asked ?? backoffMs(n, random), signal);
    }
  }
}
