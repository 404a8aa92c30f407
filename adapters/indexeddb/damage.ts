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

/** What the structured clone can give that JSON would lose, by its tag (`[object Map]`): said as "a Map". */
const tagOf = (value: object): string => Object.prototype.toString.call(value).slice(8, -1);

/**
 * A stored record as its JSON reads back, as every store gives records: the record itself when it holds only JSON
 * values (the usual case: this store keeps records as their JSON), else a copy. The database takes anything the
 * structured clone takes (functai 0.1.0 kept records that way; any script of the origin can write there): a value
 * JSON keeps the meaning of reads as JSON gives it (a Date as its text, NaN and Infinity as null, an undefined
 * left out, an array hole as null, an object met twice as two); one it would lose or cannot write (a Map, a Set, a
 * BigInt, bytes, an Error, a cycle) is damage: `store-corrupt`, never handed out as `{}` or left to fail the reader.
 */
function asJson(storeName: string, conversation: string, place: number, record: object): object {
  let copy = false; // whether JSON gives back something else than the record holds
  const seen = new Set<object>();
  const stack: [unknown, string][] = [[record, ""]];
  const lost = (path: string, what: string): ConversationError =>
    corrupt(storeName, conversation, `record ${place} holds ${what} at ${path.slice(1)}, which JSON does not hold`);
  // (a loop, not a recursion: a record nested as deep as JSON allows is walked without running out of stack)
  while (stack.length > 0) {
    const [value, path] = stack.pop()!;
    switch (typeof value) {
      case "string":
      case "boolean":
        continue;
      case "number":
        if (!Number.isFinite(value)) copy = true;
        continue;
      case "undefined":
        copy = true;
        continue;
      case "object":
        break;
      default:
        throw lost(path, typeof value === "bigint" ? "a BigInt" : `a ${typeof value}`);
    }
    if (value === null) continue;
    if (seen.has(value)) {
      copy = true; // met twice: JSON copies a shared object, and refuses a cycle (below)
      continue;
    }
    seen.add(value);
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        if (i in value) stack.push([value[i], `${path}[${i}]`]);
        else copy = true;
      }
      continue;
    }
    const tag = tagOf(value);
    if (tag === "Date") {
      copy = true;
      continue;
    }
    if (tag !== "Object") throw lost(path, `${/^[AEIO]/.test(tag) ? "an" : "a"} ${tag}`);
    for (const key of Object.keys(value)) stack.push([(value as Record<string, unknown>)[key], `${path}.${key}`]);
  }
  if (!copy) return record;
  try {
    return JSON.parse(JSON.stringify(record)) as object;
  } catch {
    // (the only value the walk lets through that JSON cannot write)
    throw corrupt(storeName, conversation, `record ${place} holds a cycle (an object inside itself), which JSON does not hold`);
  }
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
  return records.map((r, i) => asJson(storeName, conversation, first + i, r as object)) as ConversationRecord[];
}
