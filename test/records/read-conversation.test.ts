/**
 * `readConversation` beyond the published vectors: what a reader skips,
 * what settles a tool, how plugins and stops read, and two properties.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { KNOWN_KINDS, readConversation, type ConversationState } from "../../src/records/index.js";

const AT = "2026-09-30T10:00:00.000000Z";
const NOW = "2026-09-30T10:10:00.000000Z";
const LIVE = "2026-09-30T10:10:30.000000Z";
const GONE = "2026-09-30T10:09:00.000000Z";

type Rec = Record<string, unknown>;

/** Records as a store holds them: format 1, `at`, and `seq` by position. */
const journal = (...records: Rec[]): Rec[] =>
  records.map((r, i) => ({ functai_conversation: 1, at: AT, seq: i + 1, ...r }));

const turn = (id: string, parent: string | null = null): Rec => ({ kind: "turn", turn: id, parent, program: "v1", inputs: { message: id } });
const lease = (id: string, until = LIVE, attempt = 1, holder = "h:1:a"): Rec => ({ kind: "lease", turn: id, holder, until, attempt });
const ended = (id: string, state = "done"): Rec => ({ kind: "ended", turn: id, state, outputs: { result: "ok" }, value: "ok" });
const asked = (invocation: number, plugin?: string): Rec => ({
  site: "desk#1", invocation, path: "desk/refund", name: "refund", effects: "changes", ...(plugin ? { plugin } : {}),
});
const waiting = (id: string, ...approvals: Rec[]): Rec => ({ kind: "waiting", turn: id, approvals });
const answer = (id: string, invocation: number, more: Rec = {}): Rec => ({
  kind: "approval", turn: id, site: "desk#1", invocation, path: "desk/refund", verdict: "yes", by: "maria", reason: null, ...more,
});
const tool = (id: string, invocation: number, state: string, more: Rec = {}): Rec => ({
  kind: "tool", turn: id, site: "desk#1", invocation, id: `c${invocation}`, name: "refund", state, ...more,
});

const read = (records: readonly unknown[], now: Date | string | number = NOW): ConversationState => readConversation(records, { now });
const stateOf = (s: ConversationState, id: string) => s.turns.get(id)?.state;
const invocations = (list: { invocation: number }[]) => list.map((x) => x.invocation);

describe("readConversation: what a reader skips", () => {
  it("ignores kinds and formats it does not know, and keeps unknown keys without reading them", () => {
    const records = journal(
      { kind: "program", version: "v1", name: "desk", module: "__main__", fields: [] },
      { kind: "entry", plugin: "notes", entry: "note", data: { x: 1 } },
      { ...turn("t1"), settings: { lm: "x" } },
      lease("t1"),
      { functai_conversation: 2, kind: "ended", turn: "t1", state: "failed" }, // a later format: skipped
      { ...ended("t1"), lmcc: { steps: [] }, saw: [] },
    );
    const s = read(records);
    expect(s.skipped).toEqual([]);
    expect(stateOf(s, "t1")).toBe("done");
    expect(s.turns.get("t1")?.ended).toMatchObject({ state: "done", lmcc: { steps: [] } });
    expect(s.programs.get("v1")).toMatchObject({ name: "desk", module: "__main__" });
    expect(s.length).toBe(6);
  });

  it("skips a malformed known record and reports it, never misreading it", () => {
    const records = journal(
      turn("t1"),
      lease("t1", GONE),
      tool("t1", 2, "started"),
      { kind: "tool", turn: "t1", invocation: 2, id: "c2", name: "refund", state: "done" }, // no site
      { kind: "lease", turn: "t1", holder: "h:2:b", until: "soon", attempt: 2 }, // `until` is not a time
      { kind: "ended", turn: "t1", state: "finished" }, // not a state
    );
    const s = read([...records, null, 42, "x", [], { kind: 7 }]);
    // The done record without a site settles nothing: the tool may still have run.
    expect(invocations(s.turns.get("t1")!.unfinished)).toEqual([2]);
    expect(stateOf(s, "t1")).toBe("interrupted"); // the bad lease and the bad end are not read
    expect(s.turns.get("t1")?.attempt).toBe(1);
    expect(s.skipped.map((x) => x.seq)).toEqual([4, 5, 6, null, null, null, null, null]);
    expect(s.skipped[0]?.error).toMatch(/^tool record: site:/);
    expect(s.skipped[1]?.error).toMatch(/until/);
    expect(s.skipped[2]?.error).toMatch(/state/);
  });

  it("lists records naming a turn no turn record declared in skipped, and ignores a second turn record for an id", () => {
    const s = read(journal(turn("t1"), lease("t1"), ended("t1"), ended("ghost", "failed"), { ...turn("t1", "x"), inputs: {} }));
    expect([...s.turns.keys()]).toEqual(["t1"]);
    expect(s.skipped.map((x) => x.seq)).toEqual([4]);
    expect(s.turns.get("t1")).toMatchObject({ parent: null, inputs: { message: "t1" }, seq: 1 });
  });
});

describe("readConversation: tools", () => {
  it("settles a started tool with done, given or rerun; the last record per call decides", () => {
    const s = read(
      journal(
        turn("t1"),
        lease("t1", GONE),
        tool("t1", 1, "started"),
        tool("t1", 1, "done", { output: "sent" }),
        tool("t1", 2, "started"),
        tool("t1", 2, "given", { output: "it ran" }),
        tool("t1", 3, "started"),
        tool("t1", 3, "rerun"),
        tool("t1", 4, "started"),
        tool("t1", 4, "rerun"),
        tool("t1", 4, "started"), // the rerun started again: it may have run again
        { ...tool("t1", 1, "started"), site: "desk#2" }, // another site, same invocation
      ),
    );
    const t = s.turns.get("t1")!;
    expect(t.unfinished.map((r) => `${r.site}:${r.invocation}`)).toEqual(["desk#1:4", "desk#2:1"]);
    expect(t.tools.get("desk#1:2")).toMatchObject({ state: "given", output: "it ran" });
    expect(t.tools.get("desk#1:3")?.state).toBe("rerun");
    expect(t.tools.size).toBe(5);
  });
});

describe("readConversation: approvals", () => {
  it("matches answers by site, invocation and plugin (absent, null and \"approval\" are the built-in one)", () => {
    const base = [turn("t1"), lease("t1"), waiting("t1", asked(2), asked(2, "guard"), asked(3))];
    const unanswered = (...more: Rec[]) => invocations(read(journal(...base, ...more)).turns.get("t1")!.waiting);
    const plugins = (...more: Rec[]) => read(journal(...base, ...more)).turns.get("t1")!.waiting.map((a) => a.plugin ?? null);

    expect(plugins()).toEqual([null, "guard", null]);
    expect(plugins(answer("t1", 2, { plugin: "guard" }))).toEqual([null, null]);
    expect(unanswered(answer("t1", 2, { plugin: "guard" }))).toEqual([2, 3]);
    expect(plugins(answer("t1", 2))).toEqual(["guard", null]);
    expect(plugins(answer("t1", 2, { plugin: null }))).toEqual(["guard", null]);
    expect(plugins(answer("t1", 2, { plugin: "approval" }))).toEqual(["guard", null]);
    // a person's answer to a question the waiting record does not ask answers nothing: refused (hunt 146), never read
    for (const other of [{ plugin: "other" }, { site: "desk#2" }]) {
      const s = read(journal(...base, answer("t1", 2, other)));
      expect(invocations(s.turns.get("t1")!.waiting)).toEqual([2, 2, 3]);
      expect(s.skipped.map((x) => x.seq)).toEqual([4]);
    }
    expect(unanswered(answer("t1", 3), answer("t1", 2), answer("t1", 2, { plugin: "guard" }))).toEqual([]);
  });

  it("counts only the last waiting record, and only answers after it", () => {
    const s = read(
      journal(
        turn("t1"),
        lease("t1"),
        waiting("t1", asked(1)),
        answer("t1", 1),
        lease("t1", LIVE, 2),
        waiting("t1", asked(1), asked(2)), // asked again, e.g. by a plugin on resume
        answer("t1", 2),
      ),
    );
    const t = s.turns.get("t1")!;
    expect(t.state).toBe("waiting");
    expect(invocations(t.waiting)).toEqual([1]);
    expect(t.answers.map((a) => a.seq)).toEqual([4, 7]);
  });

  it("a waiting turn with no lease still waits; a turn with neither is interrupted", () => {
    const s = read(journal(turn("t1"), waiting("t1", asked(1)), turn("t2")));
    expect(stateOf(s, "t1")).toBe("waiting");
    expect(stateOf(s, "t2")).toBe("interrupted");
    expect(s.turns.get("t2")).toMatchObject({ attempt: 0, holder: null, leaseUntil: null });
  });
});

describe("readConversation: leases, stops and resumption", () => {
  it("a lease after the waiting record runs the turn again (or leaves it interrupted once it lapses)", () => {
    const records = (until: string) =>
      journal(turn("t1"), lease("t1"), waiting("t1", asked(2)), answer("t1", 2), lease("t1", until, 2, "h:2:b"));
    const running = read(records(LIVE));
    expect(stateOf(running, "t1")).toBe("running");
    expect(running.turns.get("t1")).toMatchObject({ attempt: 2, holder: "h:2:b", leaseUntil: LIVE, waiting: [] });
    expect(running.next).toEqual({ waits: "t1" });
    expect(stateOf(read(records(GONE)), "t1")).toBe("interrupted");
  });

  it("compares `until` with `now` to the microsecond, and takes `now` as a Date, a string or milliseconds", () => {
    const at = (until: string, now: Date | string | number) => stateOf(read(journal(turn("t1"), lease("t1", until)), now), "t1");
    expect(at("2026-09-30T10:10:00.000500Z", "2026-09-30T10:10:00.000400Z")).toBe("running");
    expect(at("2026-09-30T10:10:00.000500Z", "2026-09-30T10:10:00.000500Z")).toBe("running"); // not before now
    expect(at("2026-09-30T10:10:00.000500Z", "2026-09-30T10:10:00.000600Z")).toBe("interrupted");
    expect(at("2026-09-30T12:10:30+02:00", new Date(NOW))).toBe("running");
    expect(at(GONE, Date.parse(NOW))).toBe("interrupted");
    expect(() => read([], "not a time")).toThrow(expect.objectContaining({ code: "input-invalid" }));
  });

  it("a stop: a running turn runs until its lease lapses; a waiting or lapsed one is stopped; an ended one keeps its end", () => {
    const stop = (id: string): Rec => ({ kind: "stop", turn: id });
    const running = read(journal(turn("t1"), lease("t1"), stop("t1")));
    expect(running.turns.get("t1")).toMatchObject({ state: "running", stopped: true });
    expect(running.next).toEqual({ waits: "t1" });

    const lapsed = read(journal(turn("t0"), lease("t0"), ended("t0"), turn("t1", "t0"), lease("t1", GONE), stop("t1")));
    expect(stateOf(lapsed, "t1")).toBe("stopped");
    expect(lapsed.next).toEqual({ parent: "t0" });

    expect(stateOf(read(journal(turn("t1"), lease("t1"), waiting("t1", asked(1)), stop("t1"))), "t1")).toBe("stopped");
    expect(stateOf(read(journal(turn("t1"), lease("t1"), stop("t1"), ended("t1", "failed"))), "t1")).toBe("failed");
    expect(stateOf(read(journal(turn("t1"), lease("t1"), ended("t1"), stop("t1"))), "t1")).toBe("done");
  });

  it("keeps the first end of a turn, and the last snapshot", () => {
    const s = read(
      journal(turn("t1"), lease("t1"), { kind: "snapshot", turn: "t1", snapshot: { value: "running" } },
        { kind: "snapshot", turn: "t1", snapshot: { value: "done" } }, ended("t1"), ended("t1", "failed")),
    );
    expect(s.turns.get("t1")).toMatchObject({ state: "done", snapshot: { value: "done" } });
  });
});

describe("readConversation: head and next", () => {
  it("an empty conversation has no head; a new turn has no parent", () => {
    expect(read([])).toMatchObject({ head: null, next: { parent: null }, length: 0, skipped: [] });
  });

  it("ignores a head record naming an unknown turn (or one declared only later)", () => {
    const s = read(journal(turn("t1"), lease("t1"), ended("t1"), turn("t2", "t1"), lease("t2"), ended("t2"),
      { kind: "head", turn: "nope" }, { kind: "head", turn: "t3" }, turn("t3", "t2")));
    expect(s.head).toBe("t3");
    const moved = read(journal(turn("t1"), lease("t1"), ended("t1"), turn("t2", "t1"), lease("t2"), ended("t2"),
      { kind: "head", turn: "t1" }, { kind: "head", turn: "nope" }));
    expect(moved.head).toBe("t1");
    expect(moved.next).toEqual({ parent: "t1" });
  });

  it("a turn after a head record is the head again", () => {
    const s = read(journal(turn("t1"), lease("t1"), ended("t1"), turn("t2", "t1"), { kind: "head", turn: "t1" }, turn("t3", "t1")));
    expect(s.head).toBe("t3");
  });

  it("a failed head with no done ancestor gives { parent: null }", () => {
    const s = read(journal(turn("t1"), lease("t1"), ended("t1", "failed"), turn("t2", "t1"), lease("t2"), ended("t2", "abandoned")));
    expect(s.head).toBe("t2");
    expect(s.next).toEqual({ parent: null });
  });

  it("walks parent links without looping on a cycle", () => {
    const s = read(journal(turn("a", "b"), lease("a", GONE), turn("b", "a"), lease("b", GONE)));
    expect(s.next).toEqual({ parent: null });
  });

  it("a waiting head refuses, whatever its ancestors", () => {
    const s = read(journal(turn("t1"), lease("t1"), ended("t1"), turn("t2", "t1"), lease("t2"), waiting("t2", asked(1))));
    expect(s.next).toEqual({ refuses: "conversation-busy" });
  });
});

describe("readConversation: scale", () => {
  it("reads 100k records of one turn (a quadratic reader would not finish)", () => {
    const records: Rec[] = [turn("t1"), lease("t1")];
    let open = 0;
    for (let i = 1; records.length < 100_000; i++) {
      // Odd calls end done; even ones only get an approve function's approval record (its run's attempt), so stay started.
      records.push(tool("t1", i, "started"), i % 2 ? tool("t1", i, "done") : answer("t1", i, { by: "function", attempt: 1 }));
      if (i % 2 === 0) open++;
    }
    records.push(waiting("t1", ...Array.from({ length: 1000 }, (_, i) => asked(i + 1))));
    const s = read(journal(...records));
    const t = s.turns.get("t1")!;
    expect(s.skipped).toEqual([]);
    expect(s.length).toBe(100_001);
    expect(t.unfinished.length).toBe(open);
    expect(open).toBeGreaterThan(20_000);
    expect(t.waiting.length).toBe(1000); // every answer came before the waiting record
  });
});

// --- properties -----------------------------------------------------------

const ids = fc.constantFrom("t1", "t2", "t3");
const times = fc.constantFrom(LIVE, GONE, AT, "2026-09-30T10:10:00.000000Z");
const garbage = fc.jsonValue({ maxDepth: 2 });
const sometimes = <T>(arb: fc.Arbitrary<T>) => fc.oneof({ weight: 4, arbitrary: arb }, { weight: 1, arbitrary: garbage });

/** Records of every known kind, mostly well-formed, with garbage values mixed in. */
const plausible: fc.Arbitrary<Rec> = fc.oneof(
  fc.record({ kind: fc.constant("turn"), turn: ids, parent: sometimes(fc.option(ids)), program: fc.constant("v1"), inputs: sometimes(fc.constant({})) }),
  fc.record({ kind: fc.constant("lease"), turn: ids, holder: fc.constant("h"), until: sometimes(times), attempt: sometimes(fc.integer({ min: 1, max: 3 })) }),
  fc.record({ kind: fc.constant("waiting"), turn: ids, approvals: sometimes(fc.array(fc.record({ site: fc.constant("s#1"), invocation: fc.integer({ min: 1, max: 3 }), path: fc.constant("p"), name: fc.constant("n"), plugin: fc.constantFrom(undefined, null, "guard") }), { maxLength: 3 })) }),
  fc.record({ kind: fc.constant("approval"), turn: ids, site: fc.constant("s#1"), invocation: sometimes(fc.integer({ min: 1, max: 3 })), plugin: fc.constantFrom(undefined, null, "guard"), path: fc.constant("p"), verdict: fc.constantFrom("yes", "no"), by: fc.constant(null), reason: fc.constant(null) }),
  fc.record({ kind: fc.constant("tool"), turn: ids, site: sometimes(fc.constant("s#1")), invocation: fc.integer({ min: 1, max: 3 }), name: fc.constant("n"), state: sometimes(fc.constantFrom("started", "done", "given", "rerun")) }),
  fc.record({ kind: fc.constant("ended"), turn: ids, state: sometimes(fc.constantFrom("done", "failed", "stopped", "abandoned")) }),
  fc.record({ kind: fc.constantFrom("stop", "head"), turn: sometimes(ids) }),
  fc.record({ kind: fc.constantFrom("reply", "snapshot", "program"), turn: ids, key: fc.constant("k"), response: garbage, snapshot: garbage, version: fc.constant("v1"), name: fc.constant("n") }),
);

const stored = (records: Rec[]): Rec[] => records.map((r, i) => ({ functai_conversation: 1, at: AT, seq: i + 1, ...r }));

describe("readConversation: properties", () => {
  it("never throws on arbitrary JSON arrays, and what it returns holds together", () => {
    const entry = fc.oneof(
      { weight: 3, arbitrary: plausible.map((r) => ({ functai_conversation: 1, at: AT, ...r })) },
      { weight: 1, arbitrary: garbage },
      { weight: 1, arbitrary: fc.dictionary(fc.constantFrom("functai_conversation", "kind", "seq", "at", "turn", "state"), garbage) },
      { weight: 1, arbitrary: fc.record({ functai_conversation: garbage, kind: fc.constantFrom(...KNOWN_KINDS), seq: garbage, at: garbage, turn: garbage }) },
    );
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 40 }), (records) => {
        const s = read(records);
        if (s.head !== null) expect(s.turns.has(s.head)).toBe(true);
        if ("parent" in s.next && s.next.parent !== null) expect(stateOf(s, s.next.parent)).toBe("done");
        if ("waits" in s.next) expect(stateOf(s, s.next.waits)).toBe("running");
        for (const t of s.turns.values()) {
          expect(t.unfinished.every((r) => r.state === "started")).toBe(true);
          if (t.ended) expect(t.state).toBe(t.ended.state);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("adding records of unknown kinds or formats anywhere changes nothing but the length", () => {
    const unknown = fc.record({
      functai_conversation: fc.constantFrom(1, 2),
      kind: fc.constantFrom("entry", "call", "future-kind", ...KNOWN_KINDS),
      at: fc.constant(AT),
      seq: fc.integer({ min: 1, max: 60 }),
      turn: ids,
      state: fc.constantFrom("done", "started"),
    }).map((r) => (r.functai_conversation === 2 || !(KNOWN_KINDS as readonly string[]).includes(r.kind) ? r : { ...r, kind: `x-${r.kind}` }));
    fc.assert(
      fc.property(fc.array(plausible, { maxLength: 30 }), fc.array(fc.tuple(fc.nat(), unknown), { maxLength: 10 }), (known, extra) => {
        const records: Rec[] = stored(known);
        const mixed = [...records];
        for (const [at, r] of extra) mixed.splice(at % (mixed.length + 1), 0, r);
        const before = read(records);
        const after = read(mixed);
        expect({ ...after, length: 0 }).toEqual({ ...before, length: 0 });
        expect(after.length).toBe(Math.max(before.length, ...extra.map(([, r]) => r.seq)));
      }),
      { numRuns: 300 },
    );
  });
});
