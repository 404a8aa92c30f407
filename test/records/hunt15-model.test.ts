/**
 * Hunt 15: readConversation against a plain model of DESIGN's rules ("The
 * journal": a turn's state, unanswered approvals, unfinished tools, head and
 * next parent), on generated journals of a few turns, calls and plugins. The
 * model re-reads every record for every question (slow and obvious); the
 * reader walks once. `stop` records (our extension) are left out.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readConversation } from "../../src/index.js";

const NOW = Date.parse("2026-09-30T10:00:00.000Z");
const UNTILS = ["2026-09-30T09:59:59.999999Z", "2026-09-30T10:00:00.000000Z", "2026-09-30T10:00:00.000001Z", "2026-09-30T12:00:00+02:00"];
const TURNS = ["t1", "t2", "t3"];
const SITES = ["a#1", "a#1/b#1"];
const PLUGINS = [undefined, null, "", "approval", "vip", "approve"];

type Rec = Record<string, unknown> & { kind: string; turn?: string };

const asked = fc.record({ site: fc.constantFrom(...SITES), invocation: fc.constantFrom(1, 2), plugin: fc.constantFrom(...PLUGINS) });
const record: fc.Arbitrary<Rec> = fc.oneof(
  fc.record({ kind: fc.constant("turn"), turn: fc.constantFrom(...TURNS), parent: fc.constantFrom(null, ...TURNS) }),
  fc.record({ kind: fc.constant("lease"), turn: fc.constantFrom(...TURNS), until: fc.constantFrom(...UNTILS) }),
  fc.record({ kind: fc.constant("waiting"), turn: fc.constantFrom(...TURNS), approvals: fc.array(asked, { maxLength: 3 }) }),
  fc.record({
    kind: fc.constant("approval"),
    turn: fc.constantFrom(...TURNS),
    site: fc.constantFrom(...SITES),
    invocation: fc.constantFrom(1, 2),
    plugin: fc.constantFrom(...PLUGINS),
    // a person's answer has no attempt; the engine stamps its own (an approve function's, a plugin's block) with its run's
    attempt: fc.constantFrom(undefined, 1),
  }),
  fc.record({
    kind: fc.constant("tool"),
    turn: fc.constantFrom(...TURNS),
    site: fc.constantFrom(...SITES),
    invocation: fc.constantFrom(1, 2),
    state: fc.constantFrom("started", "done", "given", "rerun"),
    attempt: fc.constantFrom(undefined, 1),
  }),
  fc.record({ kind: fc.constant("ended"), turn: fc.constantFrom(...TURNS), state: fc.constantFrom("done", "failed", "stopped", "abandoned") }),
  fc.record({ kind: fc.constant("head"), turn: fc.constantFrom(...TURNS, "nobody") }),
);

/** The stored form: every key a record of its kind needs. */
function stored(r: Rec, seq: number): Record<string, unknown> {
  const base = { functai_conversation: 1, at: "2026-09-30T10:00:00.000Z", seq };
  const strip = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
  switch (r.kind) {
    case "turn":
      return { ...base, ...r, program: "v1", inputs: {} };
    case "lease":
      return { ...base, ...r, holder: "h", attempt: 1 };
    case "waiting":
      return { ...base, ...r, approvals: (r.approvals as Rec[]).map((a) => strip({ ...a, path: "a/b", name: "b" })) };
    case "approval":
      return strip({ ...base, ...r, path: "a/b", verdict: "yes", by: null, reason: null });
    case "tool":
      return strip({ ...base, ...r, name: "b" });
    case "ended":
      return { ...base, ...r, outputs: {} };
    default:
      return { ...base, ...r };
  }
}

const builtIn = (p: unknown) => (p === undefined || p === null || p === "" || p === "approval" ? "" : String(p));
const sameAsk = (a: Rec, b: Rec) => a.site === b.site && a.invocation === b.invocation && builtIn(a.plugin) === builtIn(b.plugin);

/** Each turn's index of its turn record: the first for its id, whose parent (if any) a turn record before it declared. */
function declarations(records: Rec[]): Map<string, number> {
  const declared = new Map<string, number>();
  records.forEach((r, i) => {
    if (r.kind === "turn" && !declared.has(r.turn!) && (r.parent === null || declared.has(r.parent as string))) declared.set(r.turn!, i);
  });
  return declared;
}

/** The seqs of records naming a turn (or, for a turn record, a parent) no turn record before them declared (hunt 91). */
function undeclared(records: Rec[]): number[] {
  const declared = declarations(records);
  const before = (id: string, i: number) => declared.has(id) && declared.get(id)! < i;
  return records.flatMap((r, i) => {
    if (r.kind !== "turn") return before(r.turn!, i) ? [] : [i + 1];
    return declared.get(r.turn!) === i || before(r.turn!, i) ? [] : [i + 1]; // (a second turn record for an id is ignored)
  });
}

/**
 * The seqs of a person's answers to nothing their turn waits for (hunt 146), walked in order: an approval record
 * without attempt that its turn's last waiting record does not ask (or none came), or that an answer since took; a
 * `given` tool record, or a `rerun` one without attempt, whose call's last record (of those read) is not `started`;
 * and of waiting records that ask one question twice.
 */
function strays(records: Rec[]): Set<number> {
  const declared = declarations(records);
  const out = new Set<number>();
  const lastWaiting = new Map<string, Rec[]>();
  const answered = new Map<string, Rec[]>();
  const lastTool = new Map<string, unknown>();
  records.forEach((r, i) => {
    if (r.kind === "turn" || r.kind === "head" || !declared.has(r.turn!) || declared.get(r.turn!)! > i) return;
    const id = r.turn!;
    if (r.kind === "waiting") {
      const asks = r.approvals as Rec[];
      if (asks.some((a, k) => asks.findIndex((b) => sameAsk(a, b)) !== k)) return void out.add(i + 1); // one question asked twice
      lastWaiting.set(id, asks);
      answered.set(id, []);
    } else if (r.kind === "approval") {
      const since = answered.get(id) ?? [];
      if (r.attempt === undefined && (!lastWaiting.get(id)?.some((a) => sameAsk(a, r)) || since.some((a) => sameAsk(a, r)))) out.add(i + 1);
      else answered.set(id, [...since, r]);
    } else if (r.kind === "tool") {
      const call = `${id}|${r.site}|${r.invocation}`;
      const persons = r.state === "given" || (r.state === "rerun" && r.attempt === undefined);
      if (persons && lastTool.get(call) !== "started") out.add(i + 1);
      else lastTool.set(call, r.state);
    }
  });
  return out;
}

/** DESIGN's rules, read literally over the whole list each time. */
function model(records: Rec[]) {
  const declared = declarations(records); // turn -> index of its turn record
  const refused = strays(records);
  const of = (id: string) =>
    records.map((r, i) => ({ r, i })).filter(({ r, i }) => r.kind !== "turn" && r.turn === id && i > declared.get(id)! && !refused.has(i + 1));
  const turns = new Map<string, { state: string; waiting: Rec[]; unfinished: string[]; parent: string | null }>();
  for (const [id, at] of declared) {
    const mine = of(id);
    const last = (kind: string) => mine.filter(({ r }) => r.kind === kind).at(-1);
    const ended = mine.find(({ r }) => r.kind === "ended");
    const lease = last("lease");
    const waiting = last("waiting");
    const state = ended
      ? (ended.r.state as string)
      : waiting && (!lease || waiting.i > lease.i)
        ? "waiting"
        : lease &&
            Date.parse(lease.r.until as string) * 1000 + Number((/\.(\d{6})/.exec(lease.r.until as string)?.[1] ?? "000000").slice(3)) >= NOW * 1000
          ? "running"
          : "interrupted";
    const answers = mine.filter(({ r, i }) => r.kind === "approval" && waiting && i > waiting.i).map(({ r }) => r);
    const open = waiting ? (waiting.r.approvals as Rec[]).filter((a) => !answers.some((b) => sameAsk(a, b))) : [];
    const lastTool = new Map<string, string>();
    for (const { r } of mine) if (r.kind === "tool") lastTool.set(`${r.site}|${r.invocation}`, r.state as string);
    turns.set(id, {
      state,
      waiting: open,
      unfinished: [...lastTool].filter(([, s]) => s === "started").map(([k]) => k),
      parent: records[at]!.parent as string | null,
    });
  }
  let head: string | null = null;
  records.forEach((r, i) => {
    if (r.kind === "turn" && declared.get(r.turn!) === i) head = r.turn!;
    if (r.kind === "head" && declared.has(r.turn!) && declared.get(r.turn!)! < i) head = r.turn!;
  });
  const headState = head === null ? undefined : turns.get(head)?.state;
  let next: unknown;
  if (headState === "running") next = { waits: head };
  else if (headState === "waiting") next = { refuses: "conversation-busy" };
  else {
    let parent: string | null = null;
    const seen = new Set<string>();
    for (let id: string | null = head; id !== null && !seen.has(id) && turns.has(id); id = turns.get(id)!.parent) {
      seen.add(id);
      if (turns.get(id)!.state === "done") {
        parent = id;
        break;
      }
    }
    next = { parent };
  }
  return { turns, head, next };
}

describe("readConversation agrees with DESIGN's rules, read literally", () => {
  it("on generated journals", () => {
    fc.assert(
      fc.property(fc.array(record, { maxLength: 30 }), (records) => {
        const state = readConversation(
          records.map((r, i) => stored(r, i + 1)),
          { now: NOW },
        );
        const want = model(records);
        // refused, never ignored (hunts 91 and 146)
        expect(state.skipped.map((s) => s.seq)).toEqual([...undeclared(records), ...strays(records)].sort((a, b) => a - b));
        expect(state.head).toBe(want.head);
        expect(state.next).toEqual(want.next);
        expect([...state.turns.keys()]).toEqual([...want.turns.keys()]);
        for (const [id, w] of want.turns) {
          const got = state.turns.get(id)!;
          expect(got.state, id).toBe(w.state);
          expect(got.parent).toBe(w.parent);
          expect(got.waiting.map((a) => [a.site, a.invocation, builtIn(a.plugin)])).toEqual(
            w.waiting.map((a) => [a.site, a.invocation, builtIn(a.plugin)]),
          );
          expect(got.unfinished.map((t) => `${t.site}|${t.invocation}`)).toEqual(w.unfinished);
        }
      }),
      { numRuns: 500 },
    );
  });
});
