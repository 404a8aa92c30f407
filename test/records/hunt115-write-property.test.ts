/**
 * Hunt 115: what a writer's check takes, every reader takes (DESIGN.md: "each
 * record is checked against its schema before it is written: a bug of ours
 * is refused when written, never silently skipped when read"). On records of
 * every kind with keys removed or replaced by any value (JSON leaves some
 * out, writes others as something else, refuses a BigInt, writes a hole of
 * a list as null), the writers' fast check (`checkRecordToWrite`, under
 * every `makeRecord`) says yes only where the schema (`checkNewRecord`)
 * does, and a record either takes is read back from its JSON. (A record
 * JSON cannot write at all, such as a BigInt deep in a response, is
 * refused whole by every store, `input-invalid`: never misread.)
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkNewRecord, checkRecordToWrite, KNOWN_KINDS, parseRecord } from "../../src/records/schema.js";
import { mutatedRecords } from "./fixtures/mutated.js";

const base = { functai_conversation: 1, at: "2026-09-30T10:00:00.000000Z" };
const asked = { site: "answer#1", invocation: 2, path: "answer/refund", name: "refund", effects: "changes", plugin: null };

/** A valid new record of each kind (no seq: the store gives it). */
const valid: Record<string, Record<string, unknown>> = {
  program: { ...base, kind: "program", version: "v1", name: "answer", program_kind: "ai", interface: { x: 1 } },
  turn: { ...base, kind: "turn", turn: "t1", parent: null, program: "v1", inputs: { question: "q" }, request_id: "r1", approve: ["refund"] },
  lease: { ...base, kind: "lease", turn: "t1", holder: "h", until: "2026-09-30T10:00:30.123456+02:00", attempt: 1 },
  reply: { ...base, kind: "reply", turn: "t1", key: "k", site: "answer#1", response: { text: "x" }, attempt: 1 },
  tool: { ...base, kind: "tool", turn: "t1", site: "answer#1", invocation: 1, name: "refund", state: "done", input: {}, output: 1, shown: [1] },
  waiting: { ...base, kind: "waiting", turn: "t1", approvals: [asked, { ...asked, invocation: 3 }], attempt: 1 },
  approval: {
    ...base,
    kind: "approval",
    turn: "t1",
    site: "answer#1",
    invocation: 2,
    path: "answer/refund",
    verdict: "yes",
    by: "maria",
    reason: null,
  },
  ended: { ...base, kind: "ended", turn: "t1", state: "done", outputs: { result: "r" }, value: "r", usage: { input_tokens: 1, output_tokens: 2 } },
  stop: { ...base, kind: "stop", turn: "t1" },
  head: { ...base, kind: "head", turn: "t1" },
  snapshot: { ...base, kind: "snapshot", turn: "t1", snapshot: { value: "x" } },
  plugin: { ...base, kind: "plugin", turn: "t1", plugin: "otel", data: { trace: "00-ab-cd-01" }, attempt: 1 },
};

/** A list whose first place is a hole. */
const holed = (value: unknown): unknown[] => {
  const list: unknown[] = [];
  list[1] = value;
  return list;
};

/** Values JSON does not write as they are, beside ordinary ones. */
const anyValue = fc.oneof(
  fc.constantFrom<unknown>(
    undefined,
    null,
    "",
    "x",
    "refund",
    1,
    1.5,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    10n,
    { n: 10n },
    () => 1,
    Symbol("s"),
    { toJSON: () => undefined },
    { toJSON: () => "text" },
    new Date(0),
    [],
    {},
    [asked],
    holed("refund"),
    holed(asked),
    [undefined],
    [() => 1],
    { result: undefined },
    { result: () => 1 },
    { input_tokens: 1, output_tokens: 2 },
  ),
  fc.jsonValue(),
);

const mutated = mutatedRecords(valid, anyValue, ["value", "outputs", "approve", "extra"]);

/** The record as a store keeps it and a reader reads it; undefined when JSON cannot write it (every store refuses it whole, `input-invalid`: nothing written, nothing misread). */
const stored = (record: object): unknown => {
  try {
    return JSON.parse(JSON.stringify({ ...record, seq: 1 }));
  } catch {
    return undefined;
  }
};

describe("hunt 115: a record the writers' check takes is read back", () => {
  it("takes every valid record of every kind", () => {
    for (const kind of KNOWN_KINDS) {
      expect(checkRecordToWrite(valid[kind]), kind).toEqual({ ok: true });
      expect(parseRecord(stored(valid[kind]!)).ok, kind).toBe(true);
    }
  });

  it("says yes only where the schema does, and what it takes every reader takes", () => {
    fc.assert(
      fc.property(mutated, (record) => {
        const fast = checkRecordToWrite(record);
        const kept = stored(record);
        if (!fast.ok || kept === undefined) return;
        expect(checkNewRecord(record).ok).toBe(true);
        expect(parseRecord(kept)).toMatchObject({ ok: true });
      }),
      { numRuns: 3000 },
    );
  });
});
