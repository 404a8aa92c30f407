import { FunctaiError, describeError } from "../errors.js";
import { checkAfter, checkConversationId, checkExpect, checkRecords, storeConflict, waitTimerMs } from "./checks.js";
import type { ConversationRecord } from "../records/types.js";
import { withSeq } from "../records/with-seq.js";
import type { Store } from "./types.js";

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
      checkExpect(conversation, opts?.expect);
      // Everything below is synchronous: no other append can interleave, so the
      // length check and the push are one step (what `expect` relies on).
      let list = conversations.get(conversation);
      const length = list?.length ?? 0;
      if (opts?.expect !== undefined && opts.expect !== length) throw storeConflict(conversation, opts.expect, length);
      if (records.length === 0) return length;
      // all or none: copy the whole batch (a getter may throw) before anything is pushed.
      const copies = new Array<ConversationRecord>(records.length);
      for (let i = 0; i < records.length; i++) {
        try {
          copies[i] = Object.freeze(withSeq(records[i]!, length + i + 1)) as ConversationRecord;
        } catch (e) {
          // a getter that throws (or a Proxy that refuses to be read): the other stores refuse it as input-invalid too
          throw new FunctaiError("input-invalid", `${conversation}: record ${i + 1} of the batch cannot be read (${describeError(e)}).`, {
            cause: e,
          });
        }
      }
      if (list === undefined) conversations.set(conversation, (list = []));
      for (const copy of copies) list.push(copy);
      wake(conversation);
      return list.length;
    },

    async read(conversation, after = 0) {
      checkConversationId(conversation);
      checkAfter(conversation, after);
      const list = conversations.get(conversation);
      return list === undefined ? [] : list.slice(Math.max(0, after));
    },

    async length(conversation) {
      checkConversationId(conversation);
      return conversations.get(conversation)?.length ?? 0;
    },

    async wait(conversation, after, timeoutMs) {
      checkConversationId(conversation);
      checkAfter(conversation, after);
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
        const ms = waitTimerMs(timeoutMs);
        const timer = ms === null ? undefined : setTimeout(() => done(false), ms);
        check();
      });
    },

    async list() {
      // by id, as the other stores list (a directory's names sorted; IndexedDB's keys), not by first write
      return [...conversations.keys()].sort();
    },

    async close() {
      closed = true;
      for (const conversation of [...waiters.keys()]) wake(conversation);
    },
  };
}
