import { ConversationError } from "../errors.js";
import type { ConversationRecord } from "../records/types.js";
import { isConversationId, type Store } from "./types.js";

/** Throws `conversation-id` unless `id` is a valid conversation id. Shared by the stores. */
export function checkConversationId(id: unknown): asserts id is string {
  if (!isConversationId(id)) {
    const shown = typeof id === "string" ? JSON.stringify(id.length > 40 ? `${id.slice(0, 40)}…` : id) : typeof id;
    throw new ConversationError(
      "conversation-id",
      `${shown} is not a conversation id: use 1–200 ASCII letters, digits, ".", "_" or "-", starting with a letter or digit.`,
    );
  }
}

/** Throws unless every record is a plain (non-array) object. Checked before anything is written. */
export function checkRecords(conversation: string, records: readonly object[]): void {
  if (!Array.isArray(records)) throw new TypeError(`${conversation}: append takes an array of records.`);
  for (let i = 0; i < records.length; i++) {
    const r: unknown = records[i];
    if (typeof r !== "object" || r === null || Array.isArray(r)) {
      throw new TypeError(`${conversation}: record ${i + 1} of the batch is not an object (${r === null ? "null" : typeof r}).`);
    }
  }
}

/** The `store-conflict` error, worded the same by every store. */
export function storeConflict(conversation: string, expected: number, actual: number): ConversationError {
  return new ConversationError(
    "store-conflict",
    `${conversation}: expected ${expected} records, found ${actual} (another writer appended first). Read again and retry.`,
  );
}

/**
 * A store that keeps conversations in memory, for tests, benchmarks and
 * short-lived programs. Appends are O(1) amortised; records are shallow
 * copies (with their `seq`) frozen so that nobody edits the journal.
 *
 * @example
 * ```ts
 * const store = memoryStore();
 * await store.append("sam", [{ functai_conversation: 1, kind: "note", at: new Date().toISOString() }]); // 1
 * (await store.read("sam"))[0].seq; // 1
 * ```
 */
export function memoryStore(): Store {
  const conversations = new Map<string, ConversationRecord[]>();
  const waiters = new Map<string, Set<() => void>>();
  let closed = false;

  const wake = (conversation: string): void => {
    const set = waiters.get(conversation);
    if (set === undefined) return;
    waiters.delete(conversation);
    for (const w of set) w();
  };

  return {
    durability: "memory",

    async append(conversation, records, opts) {
      checkConversationId(conversation);
      checkRecords(conversation, records);
      // Everything below is synchronous: no other append can interleave, so the
      // length check and the push are one step (what `expect` relies on).
      let list = conversations.get(conversation);
      const length = list?.length ?? 0;
      if (opts?.expect !== undefined && opts.expect !== length) throw storeConflict(conversation, opts.expect, length);
      if (records.length === 0) return length;
      // all or none: copy the whole batch (a getter may throw) before anything is pushed.
      const copies = new Array<ConversationRecord>(records.length);
      for (let i = 0; i < records.length; i++) {
        copies[i] = Object.freeze({ ...records[i], seq: length + i + 1 }) as ConversationRecord;
      }
      if (list === undefined) conversations.set(conversation, (list = []));
      for (const copy of copies) list.push(copy);
      wake(conversation);
      return list.length;
    },

    async read(conversation, after = 0) {
      checkConversationId(conversation);
      const list = conversations.get(conversation);
      return list === undefined ? [] : list.slice(Math.max(0, after));
    },

    async length(conversation) {
      checkConversationId(conversation);
      return conversations.get(conversation)?.length ?? 0;
    },

    wait(conversation, after, timeoutMs) {
      checkConversationId(conversation);
      return new Promise<boolean>((resolve) => {
        // Woken by every append to this conversation (no polling); re-arms until long enough.
        const check = (): void => {
          if ((conversations.get(conversation)?.length ?? 0) > after) return done(true);
          if (closed) return done(false);
          let set = waiters.get(conversation);
          if (set === undefined) waiters.set(conversation, (set = new Set()));
          set.add(check);
        };
        const done = (value: boolean): void => {
          clearTimeout(timer);
          waiters.get(conversation)?.delete(check);
          resolve(value);
        };
        const timer = setTimeout(() => done(false), Math.max(0, timeoutMs));
        check();
      });
    },

    async list() {
      return [...conversations.keys()];
    },

    async close() {
      closed = true;
      for (const conversation of [...waiters.keys()]) wake(conversation);
    },
  };
}
