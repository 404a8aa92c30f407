/**
 * The card's central promise, as a property: for random programs (reads and
 * changes tools, AI functions as tools, a program calling AI functions,
 * approval rules), and crash points at every store write (before the write,
 * or after it but before it is acknowledged) and before and after every
 * tool, repeated crash → resume in one process never runs a changing tool
 * twice (reruns are asked only when it did not run), never sends a request
 * whose reply was recorded, and ends with the crash-free run's answer.
 */
import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import { memoryStore } from "../../src/index.js";
import { drive, type CyclePlan } from "./fixtures/drive.js";
import { changingTools, memoryLog, type FnSpec, type ProgSpec, type ToolRef } from "./fixtures/world.js";

const LEASE = { renewMs: 1e9, ttlMs: 40 };

interface RawFn {
  tools: (string | RawFn | { delegate: RawFn })[];
  steps: number[][];
}

const rawFn = (depth: number): fc.Arbitrary<RawFn> =>
  fc.record({
    tools: fc.array(
      depth > 0
        ? fc.oneof(
            { weight: 6, arbitrary: fc.constantFrom<string | RawFn | { delegate: RawFn }>("reads", "changes") },
            { weight: 2, arbitrary: rawFn(depth - 1) },
            { weight: 1, arbitrary: rawFn(depth - 1).map((delegate) => ({ delegate })) },
          )
        : fc.constantFrom<string | RawFn | { delegate: RawFn }>("reads", "changes"),
      { minLength: 1, maxLength: 3 },
    ),
    steps: fc.array(fc.array(fc.nat(9), { minLength: 1, maxLength: 2 }), { minLength: 0, maxLength: 3 }),
  });

function name(raw: RawFn, counter: { n: number }): FnSpec {
  const fnName = `f${++counter.n}`;
  const tools: ToolRef[] = raw.tools.map((t) =>
    typeof t === "string"
      ? { kind: t as "reads" | "changes", name: `${t === "reads" ? "r" : "c"}${++counter.n}` }
      : "delegate" in t ? { kind: "delegate", fn: name(t.delegate, counter) } : { kind: "ai", fn: name(t, counter) },
  );
  const toolName = (t: ToolRef): string => ("fn" in t ? t.fn.name : t.name);
  return { name: fnName, tools, steps: raw.steps.map((s) => s.map((i) => toolName(tools[i % tools.length]!))) };
}

const allToolNames = (spec: ProgSpec): string[] => {
  const out: string[] = [];
  const walk = (fn: FnSpec): void => {
    for (const t of fn.tools) {
      out.push("fn" in t ? t.fn.name : t.name);
      if ("fn" in t) walk(t.fn);
    }
  };
  if (spec.root.kind === "ai") walk(spec.root.fn);
  else spec.root.calls.forEach(walk);
  return out;
};

const specArb: fc.Arbitrary<ProgSpec> = fc
  .record({
    program: fc.boolean(),
    fns: fc.array(rawFn(1), { minLength: 1, maxLength: 2 }),
    approve: fc.constantFrom<"none" | "changes" | "some">("none", "changes", "some"),
    picks: fc.array(fc.nat(20), { maxLength: 2 }),
    denies: fc.array(fc.nat(20), { maxLength: 2 }),
  })
  .map(({ program, fns, approve, picks, denies }) => {
    const counter = { n: 0 };
    const named = fns.map((f) => name(f, counter));
    const spec: ProgSpec = { root: program ? { kind: "program", name: "prog", calls: named } : { kind: "ai", fn: named[0]! }, approve: null, deny: [] };
    const names = allToolNames(spec);
    if (approve === "changes") spec.approve = "changes";
    if (approve === "some") spec.approve = picks.map((i) => names[i % names.length]!);
    spec.deny = denies.map((i) => names[i % names.length]!);
    return spec;
  });

const planArb = fc.array(
  fc.record({ n: fc.noBias(fc.nat(100_000)), fault: fc.constantFrom<"before-write" | "after-write">("before-write", "after-write") }),
  { maxLength: 6 },
);

let clock = 0;
afterEach(() => vi.restoreAllMocks());

/** Runs every turn of a schedule through `plans`; each conversation on its own store. */
async function runAll(spec: ProgSpec, inputs: string[], plansFor: (maxTicks: number) => CyclePlan[], maxTicks: number) {
  const inner = memoryStore();
  const effects = memoryLog();
  const answers: unknown[] = [];
  let crashes = 0;
  let reruns = 0;
  let given = 0;
  let delegatedResumes = 0;
  let ticks = 0;
  const violations: string[] = [];
  for (const input of inputs) {
    const d = await drive({
      inner, conversation: "prop", spec, effects, input, plans: plansFor(maxTicks), lease: LEASE,
      pass: async (ms) => void (clock += ms),
      onAppend: () => void (clock += 1),
    });
    answers.push(d.answer);
    violations.push(...d.violations);
    crashes += d.crashes;
    reruns += d.reruns;
    given += d.given;
    delegatedResumes += d.delegatedResumes;
    ticks = Math.max(ticks, d.maxTicks);
  }
  return { answers, effects: effects.all(), violations, crashes, reruns, given, delegatedResumes, ticks };
}

describe("crash → resume, property (fast-check)", () => {
  it("never runs a changing tool twice, never re-sends a recorded request, same answer as without crashes", async () => {
    clock = Date.parse("2026-01-01T00:00:00Z");
    vi.spyOn(Date, "now").mockImplementation(() => clock);
    let programs = 0;
    let schedules = 0;
    let crashes = 0;
    let reruns = 0;
    let given = 0;
    let delegatedResumes = 0;
    let withDelegates = 0;
    await fc.assert(
      fc.asyncProperty(specArb, fc.array(planArb, { minLength: 1, maxLength: 4 }), fc.integer({ min: 1, max: 2 }), async (spec, plans, turns) => {
        programs++;
        if (JSON.stringify(spec).includes('"delegate"')) withDelegates++;
        const inputs = Array.from({ length: turns }, (_, k) => `hello ${k}`);
        const base = await runAll(spec, inputs, () => [], 0);
        expect(base.violations).toEqual([]);
        const changes = changingTools(spec);
        const changed = (m: Map<string, number>) => [...m].filter(([k]) => changes.has(k.split("|")[0]!)).sort();
        // several crash schedules against one crash-free run
        for (const plan of plans) {
          const run = await runAll(spec, inputs, (max) => plan.map((p) => ({ crashAt: 1 + (p.n % (max + 2)), storeFault: p.fault })), base.ticks);
          schedules++;
          crashes += run.crashes;
          reruns += run.reruns;
          given += run.given;
          delegatedResumes += run.delegatedResumes;
          expect(run.answers).toEqual(base.answers);
          expect(run.violations).toEqual([]);
          // every changing call ran exactly once: as often as without crashes, never twice
          expect(changed(run.effects)).toEqual(changed(base.effects));
          for (const [, n] of changed(run.effects)) expect(n).toBe(1);
        }
      }),
      { numRuns: Number(process.env.FUNCTAI_PROP_RUNS ?? 2000), interruptAfterTimeLimit: 18_000 },
    );
    console.log(`crash property: ${programs} programs, ${schedules} crash schedules, ${crashes} crashes resumed, ${reruns} reruns asked, ${given} results given; ${withDelegates} programs with delegates, ${delegatedResumes} delegated turns answered in their own conversation`);
    expect(schedules).toBeGreaterThan(200);
  });
});
