/**
 * `readRecord` (the hand-written check readers use on the hot path) against
 * `parseRecord` (the zod schema, the source of truth): on valid records of
 * every kind and on records with keys removed or replaced by values of the
 * wrong (or a borderline) type, both give the same answer: the same record,
 * the same skip, the same error text.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { KNOWN_KINDS, parseRecord, readRecord } from "../../src/records/schema.js";
import { mutatedRecords } from "./fixtures/mutated.js";

const base = { functai_conversation: 1, at: "2026-09-30T10:00:00.000000Z", seq: 3 };
const asked = { site: "answer", invocation: 2, path: "answer/refund", name: "refund", input: { id: "A" }, effects: "changes", id: "a1", plugin: null, question: "ok?" };

/** A valid record of each kind, with every optional key present. */
const valid: Record<string, Record<string, unknown>> = {
  program: { ...base, kind: "program", version: "v1", name: "answer", program_kind: "ai", interface: { x: 1 } },
  turn: { ...base, kind: "turn", turn: "t1", parent: null, program: "v1", inputs: { question: "q" }, request_id: "r1" },
  lease: { ...base, kind: "lease", turn: "t1", holder: "h", until: "2026-09-30T10:00:30.123456+02:00", attempt: 1 },
  reply: { ...base, kind: "reply", turn: "t1", key: "k", site: "answer", response: { text: "x" }, attempt: 1 },
  tool: { ...base, kind: "tool", turn: "t1", site: "answer", invocation: 1, id: "c1", name: "refund", state: "done", input: {}, effects: "changes", output: 1, error: "e", path: "answer/refund", attempt: 2 },
  waiting: { ...base, kind: "waiting", turn: "t1", approvals: [asked, { ...asked, invocation: 3 }], attempt: 1 },
  approval: { ...base, kind: "approval", turn: "t1", site: "answer", invocation: 2, plugin: "approval", path: "answer/refund", verdict: "yes", by: "maria", reason: null },
  ended: { ...base, kind: "ended", turn: "t1", state: "done", outputs: { result: "r" }, value: "r", error: null, usage: { input_tokens: 1, output_tokens: 0.5 }, attempt: 1 },
  stop: { ...base, kind: "stop", turn: "t1" },
  head: { ...base, kind: "head", turn: "t1" },
  snapshot: { ...base, kind: "snapshot", turn: "t1", snapshot: { value: "x" } },
  plugin: { ...base, kind: "plugin", turn: "t1", plugin: "otel", data: { trace: "00-ab-cd-01" }, attempt: 1 },
};

class Thing {
  x = 1;
}
const nullProto = Object.assign(Object.create(null) as object, { a: 1 });
const withSymbol = { a: 1, [Symbol("s")]: 2 };

/** Values of every shape a key might hold, borderline ones included. */
const anyValue = fc.oneof(
  fc.constantFrom<unknown>(
    undefined, null, "", "x", "t1", "reads", "changes", "maybe", "done", "started", "given", "rerun", "failed", "stopped",
    "abandoned", "yes", "no", "approval", 0, -0, 1, 2, -1, 1.5, 2 ** 53, Number.MAX_SAFE_INTEGER, Infinity, Number.NaN, true, false,
    [], [asked], [asked, 1], [{}], {}, { a: 1 }, { input_tokens: 1, output_tokens: 2 }, { input_tokens: -1, output_tokens: 2 },
    { input_tokens: 1 }, new Date(0), new Thing(), nullProto, withSymbol,
    "2026-09-30T10:00:00Z", "2026-09-30T10:00:00", "2026-02-30T10:00:00Z", "2024-02-29T23:59:59.9+05:30", "2026-09-30 10:00:00Z",
  ),
  fc.string(),
  fc.integer(),
  fc.double(),
  fc.array(fc.constantFrom<unknown>(asked, { ...asked, effects: "maybe" }, { ...asked, plugin: 3 }, null)),
);

const mutated = mutatedRecords(valid, anyValue, ["extra"]);

const same = (raw: unknown): void => {
  const fast = readRecord(raw);
  const slow = parseRecord(raw);
  expect(fast.ok).toBe(slow.ok);
  if (fast.ok && slow.ok) expect(fast.record).toEqual(slow.record);
  else expect(fast).toEqual(slow);
};

describe("readRecord agrees with the schema (parseRecord)", () => {
  it("takes every valid record of every kind, as it is", () => {
    for (const kind of KNOWN_KINDS) {
      const r = valid[kind]!;
      same(r);
      expect(readRecord(r)).toEqual({ ok: true, record: r });
      same(JSON.parse(JSON.stringify(r)));
    }
  });

  it("keys removed or replaced by any value: the same record, skip or error", () => {
    fc.assert(fc.property(mutated, same), { numRuns: 5000 });
  });

  it("the same for records that went through JSON (as a file store reads them)", () => {
    fc.assert(
      fc.property(mutated, (r) => {
        let json: unknown;
        try {
          json = JSON.parse(JSON.stringify(r));
        } catch {
          return; // not JSON: a file never holds it
        }
        same(json);
      }),
      { numRuns: 3000 },
    );
  });

  it("not records: formats, kinds, shapes", () => {
    for (const raw of [null, 1, "x", [], [valid.stop], { ...valid.stop, functai_conversation: 2 }, { ...valid.stop, functai_conversation: "1" },
      { ...valid.stop, kind: "note" }, { ...valid.stop, kind: 3 }, { ...valid.stop, seq: 0 }, { ...valid.stop, at: 5 }, new Thing()])
      same(raw);
  });
});
