import { checkAfter, checkConversationId, checkExpect, checkRecords, checkTimeout, recordJson, storeConflict, waitTimer, waitTimerMs } from "./checks.js";
import type { ConversationRecord } from "../records/types.js";
import type { Store } from "./types.js";

/**
 * A record as a read hands it out: its own object (nothing of it shared with another read), its `seq` given last (over
 * one the caller's record carried, in that key's place, as JSON.parse keeps a key written twice), its keys frozen.
 */
const readBack = (text: string, seq: number): ConversationRecord => {
  const record = JSON.parse(text) as { seq: number };
  record.seq = seq;
  return Object.freeze(record) as unknown as ConversationRecord;
};

/**
 * A store that keeps conversations in memory, for tests, benchmarks and
 * short-lived programs. Appends are O(1) amortised. Records are kept as
 * their JSON, as every other store keeps them, and each read gives records
 * of its own, read back from it (with their `seq`, their keys frozen): a
 * caller that changes an object it appended, or one a read gave, changes
 * nothing another read sees, so nobody edits the journal.
 *
 * @example
 * ```ts
 * const store = memoryStore();
 * await store.append("sam", [{ functai_conversation: 1, kind: "note", at: new Date().toISOString() }]); // 1
 * (await store.read("sam"))[0].seq; // 1
 * ```
 */
export function memoryStore(): Store {
  const conversations = new Map<string, string[]>(); // each record's JSON, as appended (its seq is its place: index + 1)
  const waiters = new Map<string, Set<() => void>>();
  /** Ends each wait pending now with false (what `close` does to them). */
  const pending = new Set<() => void>();

  const wake = (conversation: string): void => {
    const set = waiters.get(conversation);
    if (set === undefined) return;
    waiters.delete(conversation);
    for (const w of set) w();
  };

  return {
    durability: "memory",

    async append(conversation, given, opts) {
      checkConversationId(conversation);
      const records = checkRecords(conversation, given); // (the batch as it is now)
      checkExpect(conversation, opts?.expect);
      // Everything below is synchronous: no other append can interleave, so the
      // length check and the push are one step (what `expect` relies on).
      let list = conversations.get(conversation);
      const length = list?.length ?? 0;
      if (opts?.expect !== undefined && opts.expect !== length) throw storeConflict(conversation, opts.expect, length);
      if (records.length === 0) return length;
      // all or none: the whole batch is written as JSON before anything is pushed, as every other store writes it:
      // a BigInt, a cycle, a getter that throws or a toJSON giving no object is refused (input-invalid, by
      // recordJson); a Date reads back as its text, an undefined or a function is left out, NaN is null.
      // (kept as recordJson gives it: the store's seq is given as a record is read back, not spliced into a copy of its text)
      const texts = new Array<string>(records.length);
      for (let i = 0; i < records.length; i++) texts[i] = recordJson(conversation, records[i]!, i);
      // (a record's getter or toJSON may have appended to this conversation meanwhile: the batch goes after what it
      // wrote, and one that expected the length before is refused, as any append that lost its race)
      list = conversations.get(conversation);
      if (opts?.expect !== undefined && (list?.length ?? 0) !== length) throw storeConflict(conversation, opts.expect, list!.length);
      if (list === undefined) conversations.set(conversation, (list = []));
      for (const text of texts) list.push(text);
      wake(conversation);
      return list.length;
    },

    async read(conversation, after = 0) {
      checkConversationId(conversation);
      checkAfter(conversation, after);
      const list = conversations.get(conversation);
      if (list === undefined) return [];
      // (the first index after `after`, as slice would take it: a fraction drops, Infinity is the end)
      const from = Math.min(list.length, Math.trunc(Math.max(0, after)));
      const records: ConversationRecord[] = [];
      for (let i = from; i < list.length; i++) records.push(readBack(list[i]!, i + 1));
      return records;
    },

    async length(conversation) {
      checkConversationId(conversation);
      return conversations.get(conversation)?.length ?? 0;
    },

    async wait(conversation, after, timeoutMs) {
      checkConversationId(conversation);
      checkAfter(conversation, after);
      checkTimeout(conversation, timeoutMs);
      return new Promise<boolean>((resolve) => {
        // Woken by every append to this conversation (no polling); re-arms until long enough.
        const check = (): void => {
          if ((conversations.get(conversation)?.length ?? 0) > after) return done(true);
          let set = waiters.get(conversation);
          if (set === undefined) waiters.set(conversation, (set = new Set()));
          set.add(check);
        };
        const stop = (): void => done(false);
        const done = (value: boolean): void => {
          cancel?.();
          const set = waiters.get(conversation);
          if (set?.delete(check) && set.size === 0) waiters.delete(conversation);
          pending.delete(stop);
          resolve(value);
        };
        // A close ends the waits pending then; one begun after it waits as any does. Answered false at once
        // instead, with no I/O between, a caller that waits in a loop (a send queued behind a running turn)
        // would never let the event loop turn again: no timer, no tool, the whole process stuck.
        pending.add(stop);
        const ms = waitTimerMs(timeoutMs);
        const cancel = ms === null ? undefined : waitTimer(ms, stop);
        check();
      });
    },

    async list() {
      // by id, as the other stores list (a directory's names sorted; IndexedDB's keys), not by first write
      return [...conversations.keys()].sort();
    },

    async close() {
      for (const stop of [...pending]) stop();
    },
  };
}
