/**
 * The one way records are made for writing: each builder stamps the format
 * (`functai_conversation: 1`), the kind and the time, and checks the record
 * against its kind's schema before anything is written. A record that fails
 * is a `record-invalid` FunctaiError, and nothing is appended: a malformed
 * record of ours would otherwise be skipped by every reader (and a turn
 * could wait for it forever).
 */
import { FunctaiError } from "../errors.js";
import { isoAt } from "../runtime/clock.js";
import type { KnownKind } from "./schema.js";
import { checkRecordToWrite } from "./schema.js";
import type { KnownRecord } from "./types.js";

/** What a builder of kind `K` is given: the record without what every record has. */
export type RecordFields<K extends KnownKind> = Omit<Extract<KnownRecord, { kind: K }>, "functai_conversation" | "kind" | "at" | "seq">;

/** A checked record of kind `K`, ready to append (the store gives its `seq`). */
export type MadeRecord<K extends KnownKind = KnownKind> = Omit<Extract<KnownRecord, { kind: K }>, "seq">;

/**
 * Makes a record of `kind` at the time `at` (ms since the epoch) and checks
 * it; throws `record-invalid` (naming the kind and the key at fault) when
 * it does not pass.
 *
 * @example
 * makeRecord("stop", { turn: "t1" }, Date.now());
 * // { functai_conversation: 1, kind: "stop", at: "2026-…Z", turn: "t1" }
 * makeRecord("approval", { turn: "t1", site: "desk#1", invocation: 1, path: "desk/refund", verdict: "yes", by: 42 as never, reason: null }, Date.now());
 * // throws FunctaiError("record-invalid", "approval record: by: …")
 */
export function makeRecord<K extends KnownKind>(kind: K, fields: RecordFields<K>, at: number): MadeRecord<K> {
  return checked({ functai_conversation: 1, kind, at: isoAt(at), ...fields }) as unknown as MadeRecord<K>;
}

/**
 * A turn's record that the engine describes by its body (`{ kind, … }`):
 * stamped with the turn and attempt and checked like any other, made with
 * one copy of the body (what the body says wins, as in a spread after them).
 */
export function makeBodyRecord(
  turn: string,
  attempt: number,
  body: { kind: string } & Record<string, unknown>,
  at: number,
): Record<string, unknown> {
  return checked({ functai_conversation: 1, at: isoAt(at), turn, attempt, ...body });
}

function checked<R extends Record<string, unknown>>(record: R): R {
  const verdict = checkRecordToWrite(record);
  if (!verdict.ok) throw new FunctaiError("record-invalid", `a ${String(record.kind)} record was not written: it fails its schema (${verdict.error})`);
  return record;
}
