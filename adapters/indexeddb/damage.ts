/**
 * What the database holds is checked before anyone is given it. Every script
 * of the origin can write to the database (another program, an older version
 * with a bug, a hand in devtools), so a length that is not a count, a record
 * that is not an object, not at its place, missing or past the length, is
 * damage (`store-corrupt`): refused, never misread, skipped or overwritten.
 */
import { ConversationError, describeValue } from "../../src/errors.js";
import type { ConversationRecord } from "../../src/records/types.js";

/** A damaged value as the refusal shows it (JSON would say null for NaN). */
const shown = (value: unknown): string => describeValue(value, 40);

export function corrupt(storeName: string, conversation: string, why: string): ConversationError {
  return new ConversationError(
    "store-corrupt",
    `IndexedDB store "${storeName}", conversation ${conversation}: ${why}. Something other than this store wrote to its database; ` +
      "the store will neither skip nor overwrite records. Repair or delete the conversation by hand.",
  );
}

/** A conversation's stored length (`undefined`: never written, 0), or damage. */
export function storedLength(storeName: string, conversation: string, value: unknown): number {
  if (value === undefined) return 0;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw corrupt(storeName, conversation, `its stored length is ${shown(value)}, not a count of records`);
  }
  return value;
}

/**
 * The records `read(conversation, after)` found, read in one transaction
 * with the conversation's `length`: exactly the records with `seq` from the
 * first whole number past `after` to `length`, each a plain object whose
 * `seq` is its place. Anything else throws `store-corrupt`.
 */
export function checkedRecords(
  storeName: string,
  conversation: string,
  after: number,
  length: number,
  records: readonly unknown[],
): ConversationRecord[] {
  const first = Math.max(0, Math.floor(after)) + 1;
  for (let i = 0; i < records.length; i++) {
    const r = records[i];
    const place = first + i;
    if (typeof r !== "object" || r === null || Array.isArray(r)) {
      throw corrupt(storeName, conversation, `record ${place} is ${r === null ? "null" : Array.isArray(r) ? "an array" : `a ${typeof r}`}, not an object`);
    }
    const seq = (r as { seq?: unknown }).seq;
    if (seq !== place) {
      throw corrupt(storeName, conversation, `seq ${shown(seq)} where ${place} was expected (a record missing or out of place)`);
    }
  }
  const expected = Math.max(0, length - first + 1);
  if (records.length !== expected) {
    throw corrupt(
      storeName,
      conversation,
      records.length < expected
        ? `its length is ${length} but records ${first + records.length}–${length} are missing`
        : `it holds records past its length ${length}`,
    );
  }
  return records as ConversationRecord[];
}
