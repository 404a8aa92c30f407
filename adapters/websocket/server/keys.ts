/**
 * Keys: who may connect, and to what. Compared in constant time: both sides
 * are hashed (equal lengths), then `timingSafeEqual`, and every key is
 * compared whatever matched, so timing says nothing about which key or how
 * much of it was right.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { describeValue, FunctaiError } from "../../../src/errors.js";
import { MAX_KEY_LENGTH } from "../shared/protocol.js";

/**
 * A key, alone (sees everything) or limited to some conversations and/or programs.
 *
 * @example
 * const keys: KeySpec[] = [
 *   process.env.ADMIN_KEY!,                                             // sees everything
 *   { key: process.env.SAM_KEY!, conversations: ["sam"], programs: ["desk"] }, // one conversation, one program
 * ];
 * const server = await serve({ store: "desk-chats/", programs: [desk], keys });
 */
export type KeySpec = string | { key: string; conversations?: readonly string[]; programs?: readonly string[] };

/** What a connection's key allows (`null`: no limit). */
export interface Grant {
  readonly conversations: ReadonlySet<string> | null;
  readonly programs: ReadonlySet<string> | null;
  /** The hash of the key that matched (to find its connections when it is revoked); `null` when no keys are required. */
  readonly keyHash: string | null;
}

const hash = (key: string): Buffer => createHash("sha256").update(key, "utf8").digest();

interface Entry {
  digest: Buffer;
  grant: Grant;
}

/**
 * A key's limit as given: left out (no limit), or a list of names. Anything
 * else is refused, never taken as some other limit: null (from a config
 * file) would be no limit at all, a key meant to be limited seeing and
 * answering everything; a lone name would be the set of its letters.
 */
function limitOf(names: unknown, i: number, what: "conversations" | "programs"): ReadonlySet<string> | null {
  if (names === undefined) return null;
  if (!Array.isArray(names) || !names.every((n) => typeof n === "string"))
    throw new FunctaiError(
      "settings-invalid",
      `serve: keys[${i}].${what} is a list of names (or left out for no limit), not ${describeValue(names, 100)}`,
    );
  return new Set(names);
}

/** The keys a server takes. Without keys (loopback only) everybody gets an unlimited grant. */
export class KeyRing {
  #entries: Entry[] = [];

  constructor(keys: readonly KeySpec[] | undefined) {
    this.set(keys === undefined ? [] : keys);
  }

  get required(): boolean {
    return this.#entries.length > 0;
  }

  set(keys: readonly KeySpec[]): void {
    // a lone key (an environment variable given as it is) or null would fail as a TypeError, or null pass for no keys
    // (what was given is not shown: it may be a key)
    if (!Array.isArray(keys))
      throw new FunctaiError("settings-invalid", `serve: keys is a list of keys, not ${keys === null ? "null" : `a value of type ${typeof keys}`}`);
    const seen = new Set<string>();
    // (made whole before it replaces the keys: a refused list leaves the keys as they were)
    this.#entries = keys.map((spec, i) => {
      const key = typeof spec === "string" ? spec : spec?.key;
      if (typeof key !== "string" || key.length === 0 || key.length > MAX_KEY_LENGTH)
        throw new FunctaiError("settings-invalid", `serve: each key must be a non-empty string (at most ${MAX_KEY_LENGTH} characters)`);
      const limits: { conversations?: readonly string[]; programs?: readonly string[] } = typeof spec === "string" ? {} : spec;
      const digest = hash(key);
      const keyHash = digest.toString("hex");
      // a key given twice matched its last entry at the hello and its first ever after: its limits were one entry's, unsaid
      if (seen.has(keyHash))
        throw new FunctaiError("settings-invalid", `serve: keys[${i}] is a key given before; give each key once, with its limits`);
      seen.add(keyHash);
      return {
        digest,
        grant: { conversations: limitOf(limits.conversations, i, "conversations"), programs: limitOf(limits.programs, i, "programs"), keyHash },
      };
    });
  }

  /** The grant of `key`, or `null` when it is missing or wrong. */
  match(key: string | undefined): Grant | null {
    // without keys anyone is let in; the key shown is still remembered, so keys set later keep its connection
    if (!this.required) return { conversations: null, programs: null, keyHash: key === undefined ? null : hash(key).toString("hex") };
    const candidate = hash(key ?? "");
    let found: Grant | null = null;
    for (const entry of this.#entries) {
      // no early exit: the loop takes as long whichever key matched
      if (timingSafeEqual(candidate, entry.digest) && key !== undefined) found = entry.grant;
    }
    return found;
  }

  /**
   * Whether a grant still stands; the grant as it is now. With no keys left
   * anyone may connect, so nobody is closed as revoked (a 4401 would stop
   * the companion for good): every connection gets what a new one would.
   */
  current(grant: Grant): Grant | null {
    if (!this.required)
      return grant.conversations === null && grant.programs === null ? grant : { conversations: null, programs: null, keyHash: grant.keyHash };
    if (grant.keyHash === null) return null;
    return this.#entries.find((e) => e.grant.keyHash === grant.keyHash)?.grant ?? null;
  }
}

/**
 * Whether two grants allow the same: with keys, a key's grant is one object until `setKeys`; without, the grant of
 * a connection whose key was limited (before the keys were all taken away) is made anew at each look.
 */
export const sameGrant = (a: Grant | null, b: Grant | null): boolean =>
  a === b || (a !== null && b !== null && a.conversations === b.conversations && a.programs === b.programs);

export const allowsConversation = (grant: Grant, conversation: string): boolean =>
  grant.conversations === null || grant.conversations.has(conversation);

export const allowsProgram = (grant: Grant, program: string): boolean => grant.programs === null || grant.programs.has(program);

/** Hosts that only this machine reaches. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h === "::1" || h === "0:0:0:0:0:0:0:1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h) || h === "::ffff:127.0.0.1";
}
