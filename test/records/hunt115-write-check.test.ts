/**
 * Hunt 115: the writers' fast check (`checkRecordToWrite`, under every
 * `makeRecord`) must say yes only to what `checkNewRecord` (the schema,
 * judging the record as a store keeps it: its JSON) takes. It took a `done`
 * ended record whose value JSON leaves out (a function, a symbol, a toJSON
 * giving nothing): kept without its answer, every reader refuses it and the
 * conversation is unreadable (`store-corrupt`). And it took a BigInt where
 * any JSON is taken: the store then refused the whole batch (`input-invalid`)
 * instead of the record being refused as it was made (`record-invalid`).
 * And `checkNewRecord` threw a TypeError for a kind JSON cannot write (a
 * BigInt), where it answers `{ ok: false }`.
 */
import { describe, expect, it } from "vitest";
import { isFunctaiError } from "../../src/errors.js";
import { makeRecord } from "../../src/records/make.js";
import { checkNewRecord, checkRecordToWrite, parseRecord } from "../../src/records/schema.js";

const base = { functai_conversation: 1, at: "2026-09-30T10:00:00.000Z", turn: "t1" } as const;

const cases: [string, Record<string, unknown>][] = [
  ["a done end whose value is a function", { ...base, kind: "ended", state: "done", value: () => 1 }],
  ["a done end whose value is a symbol", { ...base, kind: "ended", state: "done", value: Symbol("x") }],
  ["a done end whose value's toJSON gives nothing", { ...base, kind: "ended", state: "done", value: { toJSON: () => undefined } }],
  ["a done end whose value is a BigInt", { ...base, kind: "ended", state: "done", value: 10n }],
  ["a reply whose response is a BigInt", { ...base, kind: "reply", key: "k", response: 10n }],
  ["a snapshot that is a BigInt", { ...base, kind: "snapshot", snapshot: 10n }],
];

const errorOf = (make: () => unknown): unknown => {
  try {
    make();
  } catch (e) {
    return e;
  }
  return undefined;
};

describe("hunt 115: the writers' fast check takes only what the schema takes", () => {
  it.each(cases)("%s: refused by both checks, and by makeRecord (record-invalid)", (_, record) => {
    expect(checkNewRecord(record).ok).toBe(false);
    expect(checkRecordToWrite(record)).toMatchObject({ ok: false });
    const { functai_conversation: _f, at: _a, kind, ...fields } = record;
    const error = errorOf(() => makeRecord(kind as "ended", fields as never, Date.parse(base.at)));
    expect(isFunctaiError(error, "record-invalid"), String(error)).toBe(true);
  });

  it("a kind that is no text (a BigInt, an object holding one, a symbol) is refused, not a TypeError, and named", () => {
    for (const kind of [10n, { n: 10n }, Symbol("k")]) {
      const verdict = checkNewRecord({ ...base, kind });
      expect(verdict).toMatchObject({ ok: false, error: expect.stringMatching(/^unknown record kind /) });
      expect(checkRecordToWrite({ ...base, kind })).toMatchObject({ ok: false });
    }
    expect(checkNewRecord({ ...base, kind: Symbol("k") })).toMatchObject({ error: "unknown record kind Symbol(k)" });
  });

  it("a done end whose value JSON leaves out would be refused by every reader", () => {
    const stored = JSON.parse(JSON.stringify({ ...cases[0]![1], seq: 2 })) as unknown;
    expect(parseRecord(stored).ok).toBe(false);
  });

  it("still takes what it took: a value that is JSON, a failed end's value left out by JSON", () => {
    expect(checkRecordToWrite({ ...base, kind: "ended", state: "done", value: { n: 1 }, outputs: { result: { n: 1 } } })).toEqual({ ok: true });
    expect(checkRecordToWrite({ ...base, kind: "ended", state: "done", value: null })).toEqual({ ok: true });
    expect(checkRecordToWrite({ ...base, kind: "ended", state: "failed", value: () => 1 })).toMatchObject({ ok: true });
    expect(checkRecordToWrite({ ...base, kind: "reply", key: "k", response: 1 })).toEqual({ ok: true });
  });
});
