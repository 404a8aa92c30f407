/**
 * Request fingerprints, the key a recorded reply is found by. A hash chain:
 * each message is hashed once as it is added, so fingerprinting step n costs
 * O(size of step n), not O(history) — a long loop stays flat. The key is
 * still a pure function of the request (`requestKey` computes it from
 * scratch): resuming finds a reply by it, in any process, in any version.
 */
import type { LMRequest, Message } from "./types.js";

// cyrb53-style string hash, two 32-bit lanes per seed, deterministic across platforms. Both seeds (1
// and 2) run in one pass over the text, which may come in two pieces (hashed as if joined, never joined).
const lanes = new Int32Array(4);
function hash53x2(head: string, tail: string): void {
  let a1 = 0xdeadbeef ^ 1;
  let a2 = 0x41c6ce57 ^ 1;
  let b1 = 0xdeadbeef ^ 2;
  let b2 = 0x41c6ce57 ^ 2;
  for (let part = 0; part < 2; part++) {
    const text = part === 0 ? head : tail;
    for (let i = 0; i < text.length; i++) {
      const ch = text.charCodeAt(i);
      a1 = Math.imul(a1 ^ ch, 2654435761);
      a2 = Math.imul(a2 ^ ch, 1597334677);
      b1 = Math.imul(b1 ^ ch, 2654435761);
      b2 = Math.imul(b2 ^ ch, 1597334677);
    }
  }
  lanes[0] = a1;
  lanes[1] = a2;
  lanes[2] = b1;
  lanes[3] = b2;
}

/** The 53-bit hash of one seed's lanes (`lanes[at]`, `lanes[at + 1]`). */
function finish(at: number): number {
  let h1 = lanes[at]!;
  let h2 = lanes[at + 1]!;
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

const SIX = 36 ** 6; // 2,176,782,336: below it, six base-36 digits

/**
 * `n.toString(36).padStart(11, "0")` for an integer 0 ≤ n < 2^53, the same
 * string, several times faster: V8's radix conversion of a large double is
 * slow, of a small integer fast. n = q·36⁶ + r, exactly (the quotient's
 * float rounding is corrected by r's range), q < 2^53 / 36⁶ < 36⁵.
 */
function base36(n: number): string {
  let q = Math.floor(n / SIX);
  let r = n - q * SIX;
  if (r < 0) {
    q -= 1;
    r += SIX;
  } else if (r >= SIX) {
    q += 1;
    r -= SIX;
  }
  const high = q.toString(36);
  const low = r.toString(36);
  return "00000".slice(high.length) + high + "000000".slice(low.length) + low;
}

/** The digest of `head + tail`, without joining them. */
function digest2(head: string, tail: string): string {
  hash53x2(head, tail);
  return base36(finish(0)) + base36(finish(2));
}

/** A 106-bit digest of `text`, as 22 base-36 characters. */
export function digest(text: string): string {
  return digest2(text, "");
}

/** An incremental fingerprint: `add` each part once; `key()` names everything added so far. */
export class Fingerprint {
  #state: string;
  constructor(seed: string) {
    this.#state = digest(seed);
  }
  add(part: unknown): this {
    this.#state = digest2(this.#state, JSON.stringify(part));
    return this;
  }
  key(extra?: unknown): string {
    return extra === undefined ? this.#state : digest2(this.#state, JSON.stringify(extra));
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
