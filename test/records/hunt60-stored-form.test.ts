/**
 * The write checks (`checkNewRecord`, the public one; `makeRecord`, ours)
 * judge a record as the store will keep it: its JSON. A value JSON leaves
 * out (undefined, a function, a symbol) or writes as something else (a
 * Date, or any object with a `toJSON`, is its text) is not what the reader
 * will find. Taken when written, such a record is refused by every reader,
 * and one refused record makes its whole conversation unreadable
 * (`store-corrupt`): the write check must refuse it first.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, checkNewRecord, isFunctaiError, memoryStore, parseRecord, readConversation } from "../../src/index.js";
import { makeRecord } from "../../src/records/make.js";

const at = "2026-09-30T10:00:00.000Z";
const base = { functai_conversation: 1, at } as const;
const turn = { ...base, kind: "turn", turn: "t1", parent: null, program: "v1", inputs: { message: "hi" } };
/** A date that carries what an object of the record needs: zod takes it, JSON writes its text. */
const dated = <T extends object>(fields: T): T => Object.assign(new Date(0), fields);

/** Records the schema takes as objects, whose JSON it does not. */
const cases: [string, Record<string, unknown>][] = [
  ["a reply whose response is undefined", { ...base, kind: "reply", turn: "t1", key: "k", response: undefined }],
  ["a snapshot that is a function", { ...base, kind: "snapshot", turn: "t1", snapshot: () => ({ value: "x" }) }],
  ["a plugin's data that is a symbol", { ...base, kind: "plugin", turn: "t1", plugin: "timing", data: Symbol("x") }],
  ["a reply whose response's toJSON gives nothing", { ...base, kind: "reply", turn: "t1", key: "k", response: { toJSON: () => undefined } }],
  [
    "an ended record whose usage is a Date",
    { ...base, kind: "ended", turn: "t1", state: "done", usage: dated({ input_tokens: 1, output_tokens: 2 }) },
  ],
  ["a turn whose caller is a Date", { ...turn, caller: dated({ evaluation: "ev-1" }) }],
  ["a turn whose inputs have a toJSON", { ...turn, inputs: { message: "hi", toJSON: () => "hi" } }],
  [
    "a waiting record whose approval is a Date",
    { ...base, kind: "waiting", turn: "t1", approvals: [dated({ site: "desk#1", invocation: 1, path: "desk/refund", name: "refund" })] },
  ],
];

/** The record as a store keeps it and a reader reads it. */
const stored = (record: object, seq: number): unknown => JSON.parse(JSON.stringify({ ...record, seq }));

describe("checkNewRecord judges a record as it is stored (its JSON)", () => {
  it.each(cases)("refuses %s (a reader would refuse what is stored)", (_, record) => {
    expect(parseRecord(stored(record, 2)).ok).toBe(false); // what the store would hold is no record
    expect(checkNewRecord(record).ok).toBe(false);
  });

  it("still takes records whose JSON is themselves, and a Date where any JSON is taken (stored as its text)", () => {
    expect(checkNewRecord({ ...base, kind: "reply", turn: "t1", key: "k", response: null }).ok).toBe(true);
    expect(checkNewRecord({ ...base, kind: "reply", turn: "t1", key: "k", response: new Date(0) }).ok).toBe(true);
    expect(checkNewRecord({ ...turn, inputs: { when: new Date(0) } }).ok).toBe(true);
    expect(checkNewRecord({ ...base, kind: "ended", turn: "t1", state: "done", value: "r", usage: { input_tokens: 1, output_tokens: 2 } }).ok).toBe(true);
  });

  it("a host that checks its record before appending it never makes its conversation unreadable", async () => {
    const desk = ai("desk", { description: "Help.", input: { message: z.string() } });
    for (const [name, record] of cases) {
      const store = memoryStore();
      await store.append("sam", [turn]);
      if (checkNewRecord(record).ok) await store.append("sam", [record]); // what a careful host does
      expect(readConversation(await store.read("sam"), { now: at }).skipped, name).toEqual([]);
      expect(
        (await desk.conversation("sam", { store }).turns()).map((t) => t.id),
        name,
      ).toEqual(["t1"]);
    }
  });
});

describe("makeRecord refuses what it could not write as it checked it (record-invalid)", () => {
  const refused = (make: () => unknown): unknown => {
    try {
      make();
    } catch (e) {
      return e;
    }
    return undefined;
  };

  it("a snapshot, a plugin's data or a reply's response that JSON leaves out", () => {
    const now = Date.parse(at);
    for (const error of [
      refused(() => makeRecord("snapshot", { turn: "t1", snapshot: undefined }, now)),
      refused(() => makeRecord("plugin", { turn: "t1", plugin: "timing", data: () => 1 }, now)),
      refused(() => makeRecord("reply", { turn: "t1", key: "k", response: { toJSON: () => undefined } }, now)),
      refused(() => makeRecord("ended", { turn: "t1", state: "done", usage: dated({ input_tokens: 1, output_tokens: 1 }) }, now)),
    ])
      expect(isFunctaiError(error, "record-invalid"), String(error)).toBe(true);
    // what it took before, it takes
    expect(makeRecord("snapshot", { turn: "t1", snapshot: { value: "x" } }, now)).toMatchObject({ kind: "snapshot", snapshot: { value: "x" } });
  });
});
