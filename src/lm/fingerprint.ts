/**
 * Request fingerprints, the key a recorded reply is found by. A hash chain:
 * each message is hashed once as it is added, so fingerprinting step n costs
 * O(size of step n), not O(history) — a long loop stays flat. The key is
 * still a pure function of the request (`requestKey` computes it from
 * scratch): resuming finds a reply by it, in any process, in any version.
 */
import type { LMRequest, Message } from "./types.js";

// cyrb53-style string hash: two 32-bit lanes, deterministic across platforms.
function hash53(text: string, seed: number): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

const DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz";

/**
 * `n.toString(36).padStart(11, "0")` for an integer 0 ≤ n < 2^53, the same
 * string, several times faster (V8's radix conversion of a double is slow).
 * Exact: `n % 36` of an integer is exact, and so is `(n - d) / 36` (an exact
 * multiple of 36, its quotient representable).
 */
function base36(n: number): string {
  let out = "";
  do {
    const d = n % 36;
    out = DIGITS[d]! + out;
    n = (n - d) / 36;
  } while (n > 0);
  return out.length >= 11 ? out : "0".repeat(11 - out.length) + out;
}

/** A 106-bit digest of `text`, as 22 base-36 characters. */
export function digest(text: string): string {
  return base36(hash53(text, 1)) + base36(hash53(text, 2));
}

/** An incremental fingerprint: `add` each part once; `key()` names everything added so far. */
export class Fingerprint {
  #state: string;
  constructor(seed: string) {
    this.#state = digest(seed);
  }
  add(part: unknown): this {
    this.#state = digest(this.#state + JSON.stringify(part));
    return this;
  }
  key(extra?: unknown): string {
    return extra === undefined ? this.#state : digest(this.#state + JSON.stringify(extra));
  }
}

/** What of a request, besides its messages, decides a reply: where it is asked from, the model, its settings, the tools. */
export interface RequestSeed {
  site: string;
  provider: string;
  model: string;
  temperature?: number | undefined;
  maxTokens?: number | undefined;
  tools: LMRequest["tools"];
}

/** The fingerprint a request's messages extend (the same string journals have always been keyed from). */
export const requestFingerprint = (seed: RequestSeed): Fingerprint =>
  new Fingerprint(JSON.stringify([seed.site, seed.provider, seed.model, seed.temperature ?? null, seed.maxTokens ?? null, seed.tools]));

/**
 * A request's key, from scratch: the seed, then every message. The tool loop
 * gets the same key by extending one fingerprint a message at a time.
 *
 * @example
 * const seed = { site: "answer#1", provider: "openai", model: "gpt-4.1-mini", tools: [] };
 * requestKey(seed, [{ role: "user", content: "Hi" }]); // 22 characters, the same in every process
 */
export function requestKey(seed: RequestSeed, messages: readonly Message[]): string {
  const fingerprint = requestFingerprint(seed);
  for (let i = 0; i < messages.length; i++) fingerprint.add(messages[i]);
  return fingerprint.key();
}
