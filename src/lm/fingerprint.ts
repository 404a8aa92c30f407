/**
 * Request fingerprints, the key a recorded reply is found by. A hash chain:
 * each message is hashed once as it is added, so fingerprinting step n costs
 * O(size of step n), not O(history) — a long loop stays flat.
 */

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

/** A 106-bit digest of `text`, as 27 hex-ish chars. */
export function digest(text: string): string {
  return hash53(text, 1).toString(36).padStart(11, "0") + hash53(text, 2).toString(36).padStart(11, "0");
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
