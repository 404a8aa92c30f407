/**
 * Processes at once: racers resuming the same interrupted turn (one goes
 * on, the others are told `turn-claimed`, the tool runs once), and a turn
 * waiting in one process approved in another (the changing tool runs once
 * there; tools that only read and model replies are not repeated).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import { createActor } from "xstate";
import { memoryStore, readConversation, Waiting } from "../../src/index.js";
import { turnMachine } from "../../src/machine.js";
import { streamOn } from "../../src/conversation/internal.js";
import { drive } from "./fixtures/drive.js";
import { bundled, fixture, removeBundles, runChild } from "./fixtures/spawn.js";
import { build, fileLog, memoryLog, recordedRequests, World, worldLM, type ProgSpec } from "./fixtures/world.js";

const LEASE = { renewMs: 50, ttlMs: 200 };
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
afterAll(removeBundles);

const DESK: ProgSpec = {
  root: { kind: "ai", fn: { name: "desk", tools: [{ kind: "reads", name: "find" }, { kind: "changes", name: "refund" }], steps: [["find"], ["refund"]] } },
  approve: null, deny: [],
};

interface Printed {
  ok?: unknown;
  error?: string;
  message?: string;
  waiting?: string[];
  state?: string;
  requests: number;
  violations: string[];
}

async function child(config: Record<string, unknown>): Promise<Printed> {
  const end = await runChild(await bundled(fixture("turn-child.ts")), [JSON.stringify(config)]);
  expect(end.code, end.stderr).toBe(0);
  return JSON.parse(end.stdout.trim().split("\n").at(-1)!) as Printed;
}

/** What a crash-free run answers. */
async function crashFree(spec: ProgSpec, input: string): Promise<unknown> {
  return (await drive({ inner: memoryStore(), conversation: "free", spec, effects: memoryLog(), input, lease: LEASE, pass: sleep })).answer;
}

describe("racing resumers", () => {
  it("six processes resume the same interrupted turn at once: one goes on, five are told turn-claimed, the tool runs once", async () => {
    const dir = mkdtempSync(join(tmpdir(), "functai-race-"));
    const store = fsStore(dir, { lockStaleMs: 200 });
    const effects = fileLog(join(dir, "effects"));
    // a process dies (SIGKILL) just before refund runs (its started record is kept); a holder still alive would keep the turn
    const first = { dir, conversation: "race", spec: DESK, input: "race", effects: join(dir, "effects"), action: "send", lease: LEASE, crashWhere: "before refund" };
    const end = await runChild(await bundled(fixture("turn-child.ts")), [JSON.stringify(first)]);
    expect(end.signal, end.stderr).toBe("SIGKILL");
    const reader = build(DESK, new World({ effects })).conversation("race", { store });
    const [turn] = await reader.turns(); // its holder is gone: interrupted at once, whatever its lease says
    expect(turn!.state).toBe("interrupted");
    expect(turn!.unfinished.map((u) => u.name)).toEqual(["refund"]);

    // (time for six children to start on a loaded machine: one that starts after the winner finished is told turn-state)
    const goAt = Date.now() + 5000;
    const config = { dir, conversation: "race", spec: DESK, input: "race", effects: join(dir, "effects"), action: "resume", goAt, latencyMs: 400, lease: LEASE };
    const outs = await Promise.all(Array.from({ length: 6 }, () => child(config)));
    const winners = outs.filter((o) => "ok" in o);
    const losers = outs.filter((o) => !("ok" in o));
    expect(winners).toHaveLength(1);
    expect(winners[0]!.ok).toEqual(await crashFree(DESK, "race"));
    expect(losers.map((o) => o.error)).toEqual(Array(5).fill("turn-claimed"));
    for (const o of losers) expect(o.message).toMatch(/was resumed elsewhere first|claimed by another process/);
    expect(outs.flatMap((o) => o.violations)).toEqual([]);
    const ran = effects.all();
    expect([...ran].filter(([k]) => k.startsWith("refund|")).map(([, n]) => n)).toEqual([1]);
    expect((await reader.turns())[0]!.state).toBe("done");
  });
});

describe("approval from another process", () => {
  const GATED: ProgSpec = { ...DESK, approve: ["refund"] };

  async function waitingInChild() {
    const dir = mkdtempSync(join(tmpdir(), "functai-approve-"));
    const config = { dir, conversation: "sam", spec: GATED, input: "refund A-1042", effects: join(dir, "effects"), lease: LEASE };
    const sent = await child({ ...config, action: "send" });
    expect(sent).toMatchObject({ waiting: ["refund"], state: "waiting", requests: 2 });
    return { dir, config, effects: fileLog(join(dir, "effects")) };
  }

  it("a turn waiting in a child is approved here: refund runs once here, find does not run again, no reply is paid twice", async () => {
    const { dir, effects } = await waitingInChild();
    expect([...effects.all().keys()].map((k) => k.split("|")[0])).toEqual(["find"]);
    const store = fsStore(dir, { lockStaleMs: 200 });
    const world = new World({ effects, recorded: recordedRequests(await store.read("sam")) });
    const chat = build(GATED, world).conversation("sam", { store, lm: worldLM(world, GATED) });
    const turn = (await chat.turns()).at(-1)!;
    expect(turn.state).toBe("waiting");
    expect(turn.waiting.map((a) => [a.name, a.path, a.invocation])).toEqual([["refund", "desk/refund", 2]]);
    const answer = await turn.approve({ by: "maria" });
    expect(answer).toEqual(await crashFree(DESK, "refund A-1042"));
    expect(world.requests).toHaveLength(1); // only the reply after refund; the two before it were recorded
    expect(world.violations).toEqual([]);
    expect([...effects.all()].map(([k, n]) => [k.split("|")[0], n]).sort()).toEqual([["find", 1], ["refund", 1]]);
    const err = await turn.approve({ by: "maria" }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "approval-answered" });
  });

  it("the waiting child kept the actor's persisted snapshot; another process rehydrates the actor from it and goes on", async () => {
    const { dir, effects } = await waitingInChild();
    const store = fsStore(dir, { lockStaleMs: 200 });
    const records = await store.read("sam");
    const kinds = records.map((r) => r.kind);
    expect(kinds.indexOf("snapshot")).toBeGreaterThan(kinds.indexOf("waiting"));
    const info = readConversation(records, { now: Date.now() }).turns.values().next().value!;
    // the record names its machine and version: { machine: "turn@1", snapshot }
    const kept = info.snapshot as { machine: string; snapshot: { value: string; context: { pending: { name: string }[]; seq: number } } };
    expect(kept.machine).toBe("turn@1");
    const snapshot = kept.snapshot;
    expect(snapshot.value).toBe("awaitingApproval");
    expect(snapshot.context.pending.map((a) => a.name)).toEqual(["refund"]);
    // the same actor, rehydrated from the record alone
    const actor = createActor(turnMachine, { snapshot: snapshot as never, input: { turn: info.id, name: "desk" } });
    actor.start();
    expect(actor.getSnapshot().value).toBe("awaitingApproval");
    expect(actor.getSnapshot().context.pending.map((a) => a.name)).toEqual(["refund"]);
    actor.stop();
    // the turn goes on here from that snapshot: its events are numbered on from where the child's stopped
    const world = new World({ effects, recorded: recordedRequests(records) });
    const turn = (await build(GATED, world).conversation("sam", { store, lm: worldLM(world, GATED) }).turns()).at(-1)!;
    const s = streamOn(turn); // as the handle read it: the same records as `info`
    const seqs: number[] = [];
    for await (const e of s) {
      seqs.push(e.seq);
      if (e.type === "approval") void s.approve({ by: "maria" });
    }
    expect(await s).toEqual(await crashFree(DESK, "refund A-1042"));
    expect(snapshot.context.seq).toBeGreaterThan(2);
    expect(seqs[0]).toBeGreaterThan(snapshot.context.seq); // a fresh actor would number from 1
    expect([...effects.all()].map(([k, n]) => [k.split("|")[0], n]).sort()).toEqual([["find", 1], ["refund", 1]]);
    expect(world.violations).toEqual([]);
  });

  it("a turn waiting in one child is approved by a second child", async () => {
    const { config, effects } = await waitingInChild();
    const approved = await child({ ...config, action: "approve" });
    expect(approved.ok).toEqual(await crashFree(DESK, "refund A-1042"));
    expect(approved.requests).toBe(1);
    expect(approved.violations).toEqual([]);
    expect([...effects.all()].map(([k, n]) => [k.split("|")[0], n]).sort()).toEqual([["find", 1], ["refund", 1]]);
  });

  it("four processes approve the same waiting turn at once: one goes on, the others are told approval-answered, refund runs once", async () => {
    const { config, effects } = await waitingInChild();
    const goAt = Date.now() + 2000;
    const outs = await Promise.all(Array.from({ length: 4 }, () => child({ ...config, action: "approve", goAt, latencyMs: 200 })));
    expect(outs.filter((o) => "ok" in o).map((o) => o.ok)).toEqual([await crashFree(DESK, "refund A-1042")]);
    expect(outs.filter((o) => !("ok" in o)).map((o) => o.error)).toEqual(Array(3).fill("approval-answered"));
    expect(outs.flatMap((o) => o.violations)).toEqual([]);
    expect([...effects.all()].map(([k, n]) => [k.split("|")[0], n]).sort()).toEqual([["find", 1], ["refund", 1]]);
  });

  it("Waiting carries the turn and its approvals; the next send is refused conversation-busy", async () => {
    const dir = mkdtempSync(join(tmpdir(), "functai-busy-"));
    const world = new World({ effects: memoryLog() });
    const chat = build(GATED, world).conversation("busy", { store: fsStore(dir), lm: worldLM(world, GATED), approve: ["refund"] });
    const w = await chat.send({ text: "one" }).catch((e: unknown) => e);
    expect(w).toBeInstanceOf(Waiting);
    expect((w as Waiting).turn.state).toBe("waiting");
    expect((w as Waiting).approvals.map((a) => a.name)).toEqual(["refund"]);
    expect((w as Waiting).turn.waiting).toEqual((w as Waiting).approvals);
    await expect(chat.send({ text: "two" })).rejects.toMatchObject({ code: "conversation-busy" });
  });
});
