/**
 * Hunt 91: a record naming a turn that no earlier `turn` record declared
 * (its `turn` damaged, or the record put before its turn's) was ignored
 * without a word. An `ended`, `approval` or `tool` record whose turn id lost
 * a character reads as if it had never been written: a done turn reads
 * interrupted (and may run again), an answered approval still waits. Such a
 * record is refused (`skipped`, so `store-corrupt` in a conversation), as
 * hunt 88 did for a seq out of order. A `turn` record of a later format is
 * skipped quietly, and declares nothing: format-1 records of its turn are
 * refused too (records of a later format change nothing a reader reads).
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, memoryStore, readConversation, tool, type Store } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

const NOW = "2026-09-30T10:00:00Z";
const at = "2026-09-30T09:00:00.000000Z";
type Rec = Record<string, unknown>;
const journal = (...records: Rec[]): Rec[] => records.map((r, i) => ({ functai_conversation: 1, at, seq: i + 1, ...r }));
const turn = (id: string, parent: string | null = null): Rec => ({ kind: "turn", turn: id, parent, program: "v1", inputs: {} });
const lease = (id: string): Rec => ({ kind: "lease", turn: id, holder: "h", until: "2026-09-30T09:00:30Z", attempt: 1 });
const ended = (id: string): Rec => ({ kind: "ended", turn: id, state: "done", outputs: { result: "r" }, value: "r" });
const read = (records: Rec[]) => readConversation(records, { now: NOW });

describe("hunt 91: a record naming a turn no earlier turn record declared", () => {
  it("is listed in skipped, of every kind that names a turn", () => {
    const named: Rec[] = [
      lease("t2"),
      ended("t2"),
      { kind: "stop", turn: "t2" },
      { kind: "head", turn: "t2" },
      { kind: "snapshot", turn: "t2", snapshot: {} },
      { kind: "reply", turn: "t2", key: "k", response: {} },
      { kind: "tool", turn: "t2", site: "a", invocation: 1, name: "pay", state: "done" },
      { kind: "approval", turn: "t2", site: "a", invocation: 1, path: "a/pay", verdict: "yes", by: null, reason: null },
      { kind: "waiting", turn: "t2", approvals: [] },
      { kind: "plugin", turn: "t2", plugin: "p", data: 1 },
    ];
    for (const r of named) {
      const s = read(journal(turn("t1"), lease("t1"), r));
      expect(s.skipped, String(r.kind)).toEqual([{ seq: 3, error: expect.stringMatching(new RegExp(`^${String(r.kind)} record: .*t2`)) }]);
      expect([...s.turns.keys()]).toEqual(["t1"]);
      expect(s.head).toBe("t1");
    }
    // a `turn` record of a later format declares nothing this version reads: format-1 records of its turn are refused
    const later = read(journal(turn("t1"), { ...turn("t9"), functai_conversation: 2 }, ended("t9")));
    expect(later.skipped.map((x) => x.seq)).toEqual([3]);
  });

  it("a turn record whose parent no turn record before it declared is listed in skipped, and so are its turn's records", () => {
    for (const parent of ["t9", "t2"]) {
      // a parent no record declares, or the turn itself: its branch would read cut off from the turns before it
      const s = read(journal(turn("t1"), lease("t1"), ended("t1"), turn("t2", parent), lease("t2")));
      expect(
        s.skipped.map((x) => x.seq),
        parent,
      ).toEqual([4, 5]);
      expect(s.skipped[0]?.error).toMatch(/^turn record: parent "?t[29]"? is declared by no turn record before it/);
      expect([...s.turns.keys()]).toEqual(["t1"]);
      expect(s.next).toEqual({ parent: "t1" });
    }
    // a parent declared only after it
    expect(read(journal(turn("t1"), turn("t2", "t3"), turn("t3", "t1"))).skipped.map((x) => x.seq)).toEqual([2]);
  });

  it("is listed in skipped when it comes before its turn's record (out of order)", () => {
    const s = read(journal(ended("t1"), turn("t1"), lease("t1")));
    expect(s.skipped.map((x) => x.seq)).toEqual([1]);
    expect(s.turns.get("t1")?.state).toBe("interrupted"); // its lease ran out; the ended record before it is not read
  });
});

describe("hunt 91: as a user meets it", () => {
  const pay = tool("pay", { description: "Pay.", input: { amount: z.number() }, effects: "changes" }, ({ amount }) => `paid ${amount}`);
  const desk = ai("desk", { description: "Pay what is asked.", input: { ask: z.string() }, tools: [pay] });

  it("a done turn whose ended record names a damaged turn id: store-corrupt, not a turn to run again", async () => {
    const first = memoryStore();
    expect(await desk.conversation("c", { store: first, lm: scripted(["hello"]) }).send("hi")).toBe("hello");
    const store: Store = memoryStore();
    await store.append(
      "c",
      (await first.read("c")).map(({ seq: _seq, ...r }) => (r.kind === "ended" ? { ...r, turn: `${String(r.turn).slice(0, -1)}x` } : r)),
    );
    const lm = scripted(["again"]);
    const chat = desk.conversation("c", { store, lm });
    await expect(chat.turns()).rejects.toMatchObject({ code: "store-corrupt", message: expect.stringMatching(/ended record/) });
    await expect(chat.send("hi again")).rejects.toMatchObject({ code: "store-corrupt" });
    expect(lm.requests).toHaveLength(0);
  });

  it("a turn whose parent names no earlier turn: store-corrupt, not a turn whose history is lost", async () => {
    const first = memoryStore();
    const chat0 = desk.conversation("p", { store: first, lm: scripted(["one", "two"]) });
    await chat0.send("first");
    await chat0.send("second");
    const store: Store = memoryStore();
    let turns = 0;
    await store.append(
      "p",
      (await first.read("p")).map(({ seq: _seq, ...r }) => (r.kind === "turn" && ++turns === 2 ? { ...r, parent: `${String(r.parent)}x` } : r)),
    );
    const lm = scripted(["three"]);
    const chat = desk.conversation("p", { store, lm });
    await expect(chat.turns()).rejects.toMatchObject({ code: "store-corrupt", message: expect.stringMatching(/turn record: parent/) });
    await expect(chat.send("third")).rejects.toMatchObject({ code: "store-corrupt" });
    expect(lm.requests).toHaveLength(0);
  });
});
