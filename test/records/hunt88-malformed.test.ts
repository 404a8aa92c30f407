/**
 * Hunt 88: a malformed record is refused (listed in `skipped`, which a
 * conversation turns into `store-corrupt`), never misread. A valid
 * conversation has one record mutated (a required key removed, a value of the
 * wrong type, a number written as a string, a seq that is not positive or not
 * after the one before, a format number that is none) and `readConversation`
 * must either refuse it or read exactly what the valid conversation says.
 * An extra key changes nothing at all.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readConversation } from "../../src/records/index.js";
import { projection, readOutcome } from "./fixtures/reader-outcome.js";

const NOW = "2026-09-30T10:00:00Z";
const at = "2026-09-30T09:00:00.000000Z";
const b = (seq: number) => ({ functai_conversation: 1, at, seq });

const conversation = (): Record<string, unknown>[] => [
  { ...b(1), kind: "program", version: "v1", name: "answer" },
  { ...b(2), kind: "turn", turn: "t1", parent: null, program: "v1", inputs: { question: "q" } },
  { ...b(3), kind: "lease", turn: "t1", holder: "h", until: "2026-09-30T09:00:30Z", attempt: 1 },
  { ...b(4), kind: "reply", turn: "t1", key: "k1", response: { text: "x" } },
  { ...b(5), kind: "tool", turn: "t1", site: "answer", invocation: 1, name: "refund", state: "started", effects: "changes" },
  { ...b(6), kind: "tool", turn: "t1", site: "answer", invocation: 1, name: "refund", state: "done", output: "ok" },
  { ...b(7), kind: "ended", turn: "t1", state: "done", value: "r", usage: { input_tokens: 1, output_tokens: 2 } },
  { ...b(8), kind: "turn", turn: "t2", parent: "t1", program: "v1", inputs: { question: "q2" } },
  { ...b(9), kind: "lease", turn: "t2", holder: "h", until: "2026-09-30T09:00:30Z", attempt: 1 },
  { ...b(10), kind: "tool", turn: "t2", site: "answer", invocation: 1, name: "send", state: "started", effects: "changes" },
  { ...b(11), kind: "waiting", turn: "t2", approvals: [{ site: "answer", invocation: 2, path: "answer/refund", name: "refund" }] },
  { ...b(12), kind: "approval", turn: "t2", site: "answer", invocation: 2, path: "answer/refund", verdict: "no", by: "m", reason: null },
  { ...b(13), kind: "stop", turn: "t2" },
  { ...b(14), kind: "turn", turn: "t3", parent: "t1", program: "v1", inputs: {} },
  { ...b(15), kind: "lease", turn: "t3", holder: "h", until: "2026-09-30T11:00:00Z", attempt: 2 },
  { ...b(16), kind: "head", turn: "t1" },
];

/** The keys each kind must have (format 1 and ours). */
const REQUIRED: Record<string, string[]> = {
  program: ["version", "name"],
  turn: ["turn", "parent", "program", "inputs"],
  lease: ["turn", "holder", "until", "attempt"],
  reply: ["turn", "key", "response"],
  tool: ["turn", "site", "invocation", "name", "state"],
  waiting: ["turn", "approvals"],
  approval: ["turn", "site", "invocation", "path", "verdict", "by", "reason"],
  ended: ["turn", "state"],
  stop: ["turn"],
  head: ["turn"],
};
const BASE_KEYS = ["functai_conversation", "kind", "at", "seq"];
/** Keys where null is a value of the same meaning-bearing type (nullable). */
const NULLABLE = new Set(["parent", "by", "reason", "plugin", "effects", "approve"]);

const typeOf = (v: unknown): string => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);

const project = projection((t) => ({ ended: t.ended?.state ?? null }));
const read = readOutcome(project, NOW);

const original = read(conversation());

type Mutation = { what: string; apply: (records: Record<string, unknown>[], i: number) => void };

const pickKey = (n: number, keys: string[]) => keys[n % keys.length]!;

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.nat().map((n) => ({
    what: `a required key removed (#${n})`,
    apply: (rs: Record<string, unknown>[], i: number) => {
      const r = rs[i]!;
      delete r[pickKey(n, [...BASE_KEYS, ...REQUIRED[r.kind as string]!])];
    },
  })),
  fc.tuple(fc.nat(), fc.constantFrom<unknown>(7, -3, 1.5, "x", "", null, [], {}, true, ["t1"], { a: 1 })).map(([n, value]) => ({
    what: `a value of the wrong type (#${n}: ${JSON.stringify(value)})`,
    apply: (rs: Record<string, unknown>[], i: number) => {
      const r = rs[i]!;
      const key = pickKey(n, [...BASE_KEYS, ...REQUIRED[r.kind as string]!]);
      if (typeOf(value) === typeOf(r[key])) return; // same type: not this mutation
      // a nullable text: null, or a text (another turn's id), is a valid record of another meaning
      if (NULLABLE.has(key) && (value === null || r[key] === null)) return;
      if (key === "response") return; // any JSON value
      r[key] = value;
    },
  })),
  fc.nat().map((n) => ({
    what: `a number as a string (#${n})`,
    apply: (rs: Record<string, unknown>[], i: number) => {
      const r = rs[i]!;
      const numeric = Object.keys(r).filter((k) => typeof r[k] === "number");
      const key = pickKey(n, numeric);
      r[key] = String(r[key]);
    },
  })),
  fc.constantFrom(0, -1, -16).map((seq) => ({
    what: `seq ${seq}`,
    apply: (rs: Record<string, unknown>[], i: number) => {
      rs[i]!.seq = seq;
    },
  })),
  fc.constant({
    what: "a seq duplicated (the one before it)",
    apply: (rs: Record<string, unknown>[], i: number) => {
      if (i > 0) rs[i]!.seq = rs[i - 1]!.seq;
    },
  }),
  fc.constant({
    what: "a seq that goes back",
    apply: (rs: Record<string, unknown>[], i: number) => {
      if (i > 0) rs[i]!.seq = 1;
    },
  }),
  fc.constantFrom<unknown>(0, -1, 1.5, "1", null, true).map((format) => ({
    what: `functai_conversation ${JSON.stringify(format)}`,
    apply: (rs: Record<string, unknown>[], i: number) => {
      rs[i]!.functai_conversation = format;
    },
  })),
);

describe("hunt 88: malformed records are refused, never misread", () => {
  it("reads the valid conversation (the oracle)", () => {
    expect(original).toMatchObject({ read: { head: "t1", next: { parent: "t1" } } });
    const turns = (original as { read: ReturnType<typeof project> }).read.turns;
    expect(turns.map((t) => t.state)).toEqual(["done", "stopped", "running"]);
  });

  it("a mutated record is refused, or reads as the valid one does", () => {
    fc.assert(
      fc.property(fc.nat({ max: conversation().length - 1 }), mutation, (i, m) => {
        const records = conversation();
        m.apply(records, i);
        const got = read(records);
        if ("refused" in got) return;
        expect(got, `${m.what} on record ${i + 1} (${records[i]!.kind})`).toEqual(original);
      }),
      { numRuns: 2000 },
    );
  });

  it("an extra key changes nothing", () => {
    fc.assert(
      fc.property(fc.nat({ max: conversation().length - 1 }), fc.jsonValue(), (i, value) => {
        const records = conversation();
        records[i]!.zz_later_key = value;
        expect(read(records)).toEqual(original);
      }),
      { numRuns: 300 },
    );
  });

  it("a format number that is no format (0, negative, not whole) is refused, not skipped as a later format", () => {
    for (const format of [0, -1, 1.5]) {
      const records = conversation();
      records[6]!.functai_conversation = format; // t1's ended record
      const s = readConversation(records, { now: NOW });
      expect(
        s.skipped.map((x) => x.seq),
        `format ${format}`,
      ).toEqual([7]);
    }
    // a later format stays a format this reader does not know: skipped quietly
    const later = conversation();
    later[6]!.functai_conversation = 2;
    expect(readConversation(later, { now: NOW }).skipped).toEqual([]);
  });

  it("a duplicated seq, or one that goes back, is refused", () => {
    const dup = conversation();
    dup[6]!.seq = 6; // t1's ended record shares seq 6 with its tool record
    expect(readConversation(dup, { now: NOW }).skipped.map((x) => x.seq)).toEqual([6]);
    const back = conversation();
    back[14]!.seq = 3;
    expect(readConversation(back, { now: NOW }).skipped.map((x) => x.seq)).toEqual([3]);
  });
});
