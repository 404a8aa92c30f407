/**
 * Hunt 91, as a property (in the manner of hunt 88): a valid conversation
 * has one record damaged in a way hunt 88's mutations did not try — a turn
 * id (`turn`, or a turn record's `parent`) changed to one no turn record
 * declared, or a `done` end's `value` (with or without its `outputs`)
 * lost — and `readConversation` must refuse it (list it in `skipped`) or
 * read exactly what the valid conversation says, answers included.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { projection, readOutcome } from "./fixtures/reader-outcome.js";

const NOW = "2026-09-30T10:00:00Z";
const at = "2026-09-30T09:00:00.000000Z";
const b = (seq: number) => ({ functai_conversation: 1, at, seq });

const conversation = (): Record<string, unknown>[] => [
  { ...b(1), kind: "program", version: "v1", name: "answer" },
  { ...b(2), kind: "turn", turn: "t1", parent: null, program: "v1", inputs: { question: "q" } },
  { ...b(3), kind: "lease", turn: "t1", holder: "h", until: "2026-09-30T09:00:30Z", attempt: 1 },
  { ...b(4), kind: "ended", turn: "t1", state: "done", outputs: { result: "r1" }, value: "r1" },
  { ...b(5), kind: "turn", turn: "t2", parent: "t1", program: "v1", inputs: { question: "q2" } },
  { ...b(6), kind: "lease", turn: "t2", holder: "h", until: "2026-09-30T09:00:30Z", attempt: 1 },
  { ...b(7), kind: "tool", turn: "t2", site: "answer", invocation: 1, name: "send", state: "started", effects: "changes" },
  { ...b(8), kind: "tool", turn: "t2", site: "answer", invocation: 1, name: "send", state: "done", output: "sent" },
  { ...b(9), kind: "waiting", turn: "t2", approvals: [{ site: "answer", invocation: 2, path: "answer/refund", name: "refund" }] },
  { ...b(10), kind: "approval", turn: "t2", site: "answer", invocation: 2, path: "answer/refund", verdict: "yes", by: "m", reason: null },
  { ...b(11), kind: "lease", turn: "t2", holder: "h2", until: "2026-09-30T09:30:00Z", attempt: 2 },
  { ...b(12), kind: "ended", turn: "t2", state: "done", outputs: { result: "r2" }, value: "r2" },
  { ...b(13), kind: "turn", turn: "t3", parent: "t2", program: "v1", inputs: {} },
  { ...b(14), kind: "lease", turn: "t3", holder: "h", until: "2026-09-30T11:00:00Z", attempt: 1 },
  { ...b(15), kind: "stop", turn: "t3" },
  { ...b(16), kind: "head", turn: "t2" },
];

const project = projection((t) => ({ holder: t.holder, stopped: t.stopped, value: t.ended?.value }));
const read = readOutcome(project, NOW);

const original = read(conversation());

type Mutation = { what: string; apply: (r: Record<string, unknown>) => void };
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.constantFrom("t", "t0", "t1x", "T1", " t1", "t4", "head").map((id) => ({
    what: `its turn id replaced by ${JSON.stringify(id)}`,
    apply: (r: Record<string, unknown>) => {
      if (typeof r.turn === "string") r.turn = id;
    },
  })),
  fc.constantFrom("t0", "t2x", "t3", "t4").map((id) => ({
    what: `its parent replaced by ${JSON.stringify(id)}`,
    apply: (r: Record<string, unknown>) => {
      if (typeof r.parent === "string") r.parent = id;
    },
  })),
  fc.constantFrom(["value"], ["value", "outputs"]).map((keys) => ({
    what: `${keys.join(" and ")} removed`,
    apply: (r: Record<string, unknown>) => {
      for (const key of keys) delete r[key];
    },
  })),
);

describe("hunt 91: a damaged turn id or a lost answer is refused, never misread", () => {
  it("a mutated record is refused, or reads as the valid one does", () => {
    // the oracle: the valid conversation
    expect(original).toMatchObject({ read: { head: "t2", next: { parent: "t2" } } });
    const turns = (original as { read: ReturnType<typeof project> }).read.turns;
    expect(turns.map((t) => [t.state, t.value])).toEqual([
      ["done", "r1"],
      ["done", "r2"],
      ["running", undefined],
    ]);
    fc.assert(
      fc.property(fc.nat({ max: conversation().length - 1 }), mutation, (i, m) => {
        const records = conversation();
        m.apply(records[i]!);
        const got = read(records);
        if ("refused" in got) return;
        expect(got, `${m.what} on record ${i + 1} (${String(records[i]!.kind)})`).toEqual(original);
      }),
      { numRuns: 1000 },
    );
  });
});
