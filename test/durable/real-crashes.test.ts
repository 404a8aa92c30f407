/**
 * Real crashes, many: child processes work on multi-tool turns (reads and
 * changes, an AI function as a tool, a delegated one, a program calling AI
 * functions, an approval rule) and are killed with SIGKILL at random
 * moments: at a random store append (before it is written, or after it is
 * written but before it is acknowledged), before or after a random tool,
 * inside a random model call (its request in flight, or its reply just
 * arrived), or after a random delay.
 * Another child, then this process, goes on from what the side-effect log
 * says really happened. A changing tool never runs twice, no request whose
 * reply was recorded is sent again, and the answer is the crash-free one.
 */
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import { memoryStore } from "../../src/index.js";
import { drive } from "./fixtures/drive.js";
import { reportReliability } from "./fixtures/reliability.js";
import { rng } from "./fixtures/rng.js";
import { bundled, fixture, pool, removeBundles, runChild } from "./fixtures/spawn.js";
import { changingTools, fileLog, memoryLog, type ProgSpec } from "./fixtures/world.js";

const LEASE = { renewMs: 50, ttlMs: 200 };
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
afterAll(removeBundles);

const SPECS: ProgSpec[] = [
  {
    root: { kind: "ai", fn: { name: "desk", tools: [{ kind: "reads", name: "find" }, { kind: "changes", name: "refund" }, { kind: "changes", name: "notify" }], steps: [["find"], ["refund", "find"], ["notify", "notify"]] } },
    approve: null, deny: [],
  },
  {
    root: {
      kind: "ai",
      fn: {
        name: "lead",
        tools: [{ kind: "ai", fn: { name: "helper", tools: [{ kind: "reads", name: "look" }, { kind: "changes", name: "write" }], steps: [["look"], ["write", "look"]] } }, { kind: "changes", name: "send" }],
        steps: [["helper", "send"], ["helper"]],
      },
    },
    approve: null, deny: [],
  },
  {
    root: {
      kind: "program", name: "flow",
      calls: [
        { name: "first", tools: [{ kind: "reads", name: "scan" }, { kind: "changes", name: "pay" }], steps: [["scan", "pay"], ["pay"]] },
        { name: "second", tools: [{ kind: "changes", name: "file" }, { kind: "ai", fn: { name: "clerk", tools: [{ kind: "changes", name: "stamp" }], steps: [["stamp"]] } }], steps: [["clerk", "file"]] },
      ],
    },
    approve: null, deny: [],
  },
  {
    root: {
      kind: "ai",
      fn: {
        name: "front",
        tools: [{ kind: "delegate", fn: { name: "backoffice", tools: [{ kind: "reads", name: "lookup" }, { kind: "changes", name: "book" }], steps: [["lookup"], ["book"]] } }, { kind: "changes", name: "confirm" }],
        steps: [["backoffice"], ["confirm"]],
      },
    },
    approve: null, deny: [],
  },
  {
    root: { kind: "ai", fn: { name: "guard", tools: [{ kind: "reads", name: "peek" }, { kind: "changes", name: "wire" }, { kind: "changes", name: "drop" }], steps: [["peek", "wire"], ["drop"], ["wire"]] } },
    approve: ["wire", "drop"], deny: ["drop"],
  },
];

interface Case {
  i: number;
  spec: ProgSpec;
  input: string;
  dir: string;
  kills: { killAt?: number; storeFault?: "before-write" | "after-write"; killAfterMs?: number }[];
}

const changed = (spec: ProgSpec, m: Map<string, number>) => [...m].filter(([k]) => changingTools(spec).has(k.split("|")[0]!)).sort();

describe("real crashes (SIGKILL at random moments), resumed from what really happened", () => {
  it("dozens of killed processes: no changing tool twice, nothing paid twice, the crash-free answer", async () => {
    const seed = Number(process.env.FUNCTAI_SEED ?? Date.now() % 1_000_000);
    const r = rng(seed);
    // how many crash points (appends, before and after tools) a crash-free run of each spec goes through
    const ticks = await Promise.all(SPECS.map(async (spec) =>
      (await drive({ inner: memoryStore(), conversation: "t", spec, effects: memoryLog(), input: "t", lease: LEASE, pass: sleep, modelTicks: true })).maxTicks));
    const cases: Case[] = Array.from({ length: 30 }, (_, i) => {
      const children = 1 + r(2);
      const kills = Array.from({ length: children }, () =>
        r(4) === 0 ? { killAfterMs: r(150) } : { killAt: 1 + r(ticks[i % SPECS.length]!), storeFault: r(2) === 0 ? ("before-write" as const) : ("after-write" as const) });
      return { i, spec: SPECS[i % SPECS.length]!, input: `case ${i}`, dir: mkdtempSync(join(tmpdir(), "functai-kill-")), kills };
    });
    const child = await bundled(fixture("crash-child.ts"));
    let killed = 0;
    let spawned = 0;
    const results = await pool(cases.map((c) => async () => {
      for (const kill of c.kills) {
        const config = { dir: c.dir, conversation: "kill", spec: c.spec, input: c.input, effects: join(c.dir, "effects"), violations: join(c.dir, "violations.txt"), latencyMs: [1, 8], lease: LEASE, modelTicks: true, ...kill };
        const end = await runChild(child, [JSON.stringify(config)]);
        spawned++;
        if (end.signal === "SIGKILL") killed++;
        else expect(end.code, `case ${c.i} (seed ${seed}): ${end.stderr}`).toBe(0);
      }
      // this process goes on, crash-free
      const effects = fileLog(join(c.dir, "effects"));
      // a process killed while it held the file lock (writing a lease renewal) leaves the lock behind: the store
      // breaks a dead holder's lock once it is lockStaleMs old (5 s by default)
      const d = await drive({ inner: fsStore(c.dir, { lockStaleMs: 200 }), conversation: "kill", spec: c.spec, effects, input: c.input, lease: LEASE, pass: sleep, maxCycles: 20 });
      const baseLog = memoryLog();
      const base = await drive({ inner: memoryStore(), conversation: "kill", spec: c.spec, effects: baseLog, input: c.input, lease: LEASE, pass: sleep });
      const childViolations = existsSync(join(c.dir, "violations.txt")) ? readFileSync(join(c.dir, "violations.txt"), "utf8").split("\n").filter(Boolean) : [];
      return { c, d, base, effects: effects.all(), baseEffects: baseLog.all(), childViolations };
    }), 4);
    // measured before the checks below assert them: changing tools run more than once, recorded replies asked again
    let doubleRuns = 0;
    let paidTwice = 0;
    for (const { c, d, effects, childViolations } of results) {
      for (const [, n] of changed(c.spec, effects)) doubleRuns += Math.max(0, n - 1);
      paidTwice += [...d.violations, ...childViolations].filter((v) => v.startsWith("asked again")).length;
    }
    reportReliability("real crashes", { sigkills: killed, doubleRuns, repliesPaidTwice: paidTwice });
    for (const { c, d, base, effects, baseEffects, childViolations } of results) {
      const where = `case ${c.i} (seed ${seed}, kills ${JSON.stringify(c.kills)})`;
      expect(d.answer, where).toEqual(base.answer);
      expect([...d.violations, ...childViolations], where).toEqual([]);
      const ran = changed(c.spec, effects);
      expect(ran.map(([k]) => k), where).toEqual(changed(c.spec, baseEffects).map(([k]) => k));
      for (const [key, n] of ran) expect(n, `${where}: ${key}`).toBe(1);
    }
    console.log(`real crashes: ${spawned} child processes, ${killed} killed with SIGKILL, ${cases.length} turns finished (seed ${seed})`);
    expect(killed).toBeGreaterThanOrEqual(24);
  });
});
