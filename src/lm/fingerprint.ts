/**
 * Request fingerprints, the key a recorded reply is found by. A hash chain:
 * each message is hashed once as it is added, so fingerprinting step n costs
 * O(size of step n), not O(history) — a long loop stays flat. The key is
 * still a pure function of the request (`requestKey` computes it from
 * scratch): resuming finds a reply by it, in any process, in any version.
 */
import { DIGEST_LENGTH, codesText, digest, digestCodes, digestJson, digestJsonCodes } from "./digest.js";
import type { LMRequest, Message } from "./types.js";

/**
 * The digests of recent seeds. A function's turns share theirs (its site,
 * model and tools' schemas), so a turn does not hash them again. A few, of
 * bounded size: a seed longer than that is hashed each time.
 */
const seedDigests = new Map<string, string>();
const SEEDS_KEPT = 32;
const SEED_KEPT_CHARS = 32_768;
function seedDigest(seed: string): string {
  let key = seedDigests.get(seed);
  if (key !== undefined) return key;
  key = digest(seed);
  if (seed.length <= SEED_KEPT_CHARS) {
    if (seedDigests.size >= SEEDS_KEPT) seedDigests.clear();
    seedDigests.set(seed, key);
  }
  return key;
}

/**
 * An incremental fingerprint: `add` each part once; `key()` names everything
 * added so far. The chain's state is the last digest's characters, kept as
 * codes: a step adds two messages and asks one key, so only the key is made
 * into a string.
 */
export class Fingerprint {
  readonly #state = new Uint8Array(DIGEST_LENGTH);
  #key: string | undefined;
  constructor(seed: string) {
    this.#key = seedDigest(seed);
    digestCodes(this.#key, this.#state);
  }
  add(part: unknown): this {
    digestJsonCodes(this.#state, part, this.#state);
    this.#key = undefined;
    return this;
  }
  key(extra?: unknown): string {
    const key = (this.#key ??= codesText(this.#state));
    return extra === undefined ? key : digestJson(key, extra);
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
