/**
 * Leases: a running turn renews its lease (`lease: { renewMs, ttlMs }`), so
 * other readers see it running through a long tool; a lease that ran out is
 * `interrupted`; a renewal that finds another holder stops the turn before
 * its next side effect.
 */
import { describe, expect, it } from "vitest";
import { ConversationError, Waiting, memoryStore, readConversation, type Store } from "../../src/index.js";
import { LET_GO } from "../../src/conversation/host.js";
import { faultyStore, scripted } from "../../src/testing/index.js";
import { PAY_CALL, payDesk } from "./fixtures/pay-desk.js";
import { build, memoryLog, processStore, World, worldLM, type ProgSpec } from "./fixtures/world.js";
import { anotherHost, stalledRenewals } from "../fixtures/another-host.js";

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

const SLOW: ProgSpec = {
  root: { kind: "ai", fn: { name: "desk", tools: [{ kind: "reads", name: "look" }, { kind: "changes", name: "pay" }], steps: [["look"], ["pay"]] } },
  approve: null, deny: [],
};

const stateOf = async (store: ReturnType<typeof memoryStore>, world: World) => (await build(SLOW, world).conversation("lease", { store }).turns())[0]?.state;

describe("leases", () => {
  it("renewals keep a long turn running for other readers; each lease lasts ttlMs", async () => {
    const store = memoryStore();
    const effects = memoryLog();
    const world = new World({ effects, latencyMs: 120 }); // 5 model calls and tools of 120 ms: 600 ms, three times the ttl
    const chat = build(SLOW, world).conversation("lease", { store, lm: worldLM(world, SLOW), lease: { renewMs: 40, ttlMs: 200 } });
    const sent = chat.send({ text: "go" });
    let finished = false;
    void sent.finally(() => (finished = true));
    const seen: string[] = [];
    for (let i = 0; i < 200 && !finished; i++) {
      const state = await stateOf(store, new World({ effects }));
      if (!finished && state) seen.push(state);
      await sleep(25);
    }
    await sent;
    expect(seen.length).toBeGreaterThan(5);
    expect(new Set(seen)).toEqual(new Set(["running"])); // never interrupted while it ran, though it ran past several ttls
    expect(await stateOf(store, new World({ effects }))).toBe("done");
    const leases = (await store.read("lease")).filter((r) => r.kind === "lease") as unknown as { at: string; until: string }[];
    expect(leases.length).toBeGreaterThan(2);
    for (const l of leases) expect(Math.abs(Date.parse(l.until) - Date.parse(l.at) - 200)).toBeLessThanOrEqual(5);
  });

  it("a lease that ran out is interrupted (and only then may another process claim it)", async () => {
    const store = memoryStore();
    const effects = memoryLog();
    const world = new World({ effects, crashWhere: "before pay" });
    // its leases as another host's: a holder nobody here can tell alive or gone, so only its lease says
    const chat = build(SLOW, world).conversation("lease", { store: processStore(anotherHost(store), world), lm: worldLM(world, SLOW), lease: { renewMs: 1000, ttlMs: 300 } });
    await expect(chat.send({ text: "go" })).rejects.toThrow(/crash/);
    const other = new World({ effects });
    const turn = (await build(SLOW, other).conversation("lease", { store, lm: worldLM(other, SLOW) }).turns())[0]!;
    expect(turn.state).toBe("running"); // its lease has not run out yet
    await expect(turn.resume({ rerun: [2] })).rejects.toMatchObject({ code: "turn-claimed" });
    for (let i = 0; i < 40 && (await turn.refresh()).state === "running"; i++) await sleep(25);
    expect(turn.state).toBe("interrupted");
    expect(turn.unfinished.map((u) => [u.name, u.invocation])).toEqual([["pay", 2]]);
    expect(typeof (await turn.resume({ rerun: [2] }))).toBe("string");
    expect([...effects.all()].filter(([k]) => k.startsWith("pay|")).map(([, n]) => n)).toEqual([1]);
  });

  it("a turn that stopped in this process (a store that failed under it), its lease still standing, reads interrupted here at once: resumed here, the pay it may have started runs again only when asked", async () => {
    const store = memoryStore();
    const effects = memoryLog();
    const world = new World({ effects, crashWhere: "before pay" });
    const chat = build(SLOW, world).conversation("lease", { store: processStore(store, world), lm: worldLM(world, SLOW), lease: { renewMs: 1000, ttlMs: 60_000 } });
    await expect(chat.send({ text: "go" })).rejects.toThrow(/crash/);
    const other = new World({ effects });
    const turn = (await build(SLOW, other).conversation("lease", { store, lm: worldLM(other, SLOW) }).turns())[0]!;
    const lease = (await store.read("lease")).filter((r) => r.kind === "lease").at(-1) as unknown as { until: string };
    expect(Date.parse(lease.until)).toBeGreaterThan(Date.now() + 30_000); // its lease has long to run
    expect(turn.state).toBe("interrupted");
    expect(turn.unfinished.map((u) => [u.name, u.invocation])).toEqual([["pay", 2]]);
    await expect(turn.resume()).rejects.toMatchObject({ code: "turn-unfinished" });
    expect(typeof (await turn.resume({ rerun: [2] }))).toBe("string");
    expect([...effects.all()].filter(([k]) => k.startsWith("pay|")).map(([, n]) => n)).toEqual([1]);
  });

  it("a turn stopped by a renewal the store refused says it let go (a lease naming no process, already run out) once the store takes it: every reader finds it interrupted", async () => {
    const base = memoryStore();
    // the store refuses the turn's renewals (a lease after its first records), and takes the rest
    const isRenewal = (records: readonly object[]) =>
      records.some((r) => (r as { kind?: string }).kind === "lease" && !(r as { holder: string }).holder.startsWith(LET_GO)) &&
      !records.some((r) => (r as { kind?: string }).kind === "turn");
    const store = faultyStore(base, { failOn: (c) => (isRenewal(c.records) ? "before-write" : undefined) });
    const effects = memoryLog();
    const world = new World({ effects, latencyMs: 150 }); // a tool call long enough for a renewal or two
    const chat = build(SLOW, world).conversation("lease", { store, lm: worldLM(world, SLOW), lease: { renewMs: 40, ttlMs: 60_000 } });
    await expect(chat.send({ text: "go" })).rejects.toMatchObject({ code: "lease-lost", message: /could not be renewed/ });
    let records = await base.read("lease");
    for (let i = 0; i < 40 && !records.some((r) => r.kind === "lease" && String((r as { holder?: unknown }).holder).startsWith(LET_GO)); i++) {
      await sleep(25);
      records = await base.read("lease");
    }
    const last = records.filter((r) => r.kind === "lease").at(-1) as unknown as { holder: string; until: string; attempt: number };
    expect(last.holder.startsWith(LET_GO)).toBe(true);
    expect(last.attempt).toBe(1);
    // read as any process reads it, by the records alone
    const turn = [...readConversation(records, { now: Date.now() }).turns.values()][0]!;
    expect(turn.state).toBe("interrupted");
  });

  it("a claim won, then a read the store refused: the answer fails, and the turn is let go (a let-go lease), so every reader finds it interrupted, not running", async () => {
    const base = memoryStore();
    const { payer, paid } = payDesk();
    const lm = scripted([PAY_CALL, { text: "paid 5" }]);
    await expect(payer.conversation("claimed", { store: base, approve: "changes", lm }).send({ amount: 5 })).rejects.toBeInstanceOf(Waiting);
    let failNextRead = false;
    // the read after the claim fails once: the claim's lease (attempt 2) is in, the journal never opens
    const store: Store = Object.assign(Object.create(base) as Store, {
      append: async (id: string, records: readonly object[], opts?: { expect?: number; durable?: boolean }) => {
        const length = await base.append(id, records, opts);
        if (records.some((r) => (r as { kind?: string; attempt?: number }).kind === "lease" && (r as { attempt?: number }).attempt === 2)) failNextRead = true;
        return length;
      },
      read: (id: string, after?: number) => {
        if (!failNextRead) return base.read(id, after);
        failNextRead = false;
        return Promise.reject(new ConversationError("store-io", "the disk is gone"));
      },
    });
    const [turn] = await payer.conversation("claimed", { store, approve: "changes", lm }).turns();
    await expect(turn!.approve({ by: "sam" })).rejects.toMatchObject({ code: "store-io" });
    let records = await base.read("claimed");
    for (let i = 0; i < 40 && !records.some((r) => r.kind === "lease" && String((r as { holder?: unknown }).holder).startsWith(LET_GO)); i++) {
      await sleep(25);
      records = await base.read("claimed");
    }
    const last = records.filter((r) => r.kind === "lease").at(-1) as unknown as { holder: string; attempt: number };
    expect([last.holder.startsWith(LET_GO), last.attempt]).toEqual([true, 2]);
    expect([...readConversation(records, { now: Date.now() }).turns.values()][0]!.state).toBe("interrupted");
    const [again] = await payer.conversation("claimed", { store: base, approve: "changes", lm }).turns();
    expect(await again!.resume()).toBe("paid 5"); // its answer stands: the pay runs, once
    expect(paid).toEqual([5]);
  });

  it("a renewal that finds another holder stops the turn before its next side effect", async () => {
    const inner = memoryStore();
    const effects = memoryLog();
    // A's renewals are held up (a stalled disk): its lease runs out while it waits for the model
    // (another host's: this process tells its own holder alive while its turn runs here, and no lease running out would let B in)
    const stalled = stalledRenewals(inner);
    const a = new World({ effects, latencyMs: 300 });
    const sentA = build(SLOW, a).conversation("lease", { store: stalled, lm: worldLM(a, SLOW), lease: { renewMs: 50, ttlMs: 150 } }).send({ text: "go" });
    const errA = sentA.catch((e: unknown) => e);
    // B sees it interrupted and goes on with it
    const b = new World({ effects });
    const chatB = build(SLOW, b).conversation("lease", { store: inner, lm: worldLM(b, SLOW), lease: { renewMs: 50, ttlMs: 150 } });
    let turn = (await chatB.turns())[0];
    for (let i = 0; i < 60 && turn?.state !== "interrupted"; i++) {
      await sleep(20);
      turn = (await chatB.turns())[0];
    }
    expect(turn!.state).toBe("interrupted");
    const answer = await turn!.resume();
    expect(await errA).toMatchObject({ code: "lease-lost" });
    // A stopped before its next side effect: look and pay ran once each, both in B
    expect([...effects.all()].map(([k, n]) => [k.split("|")[0], n]).sort()).toEqual([["look", 1], ["pay", 1]]);
    expect(a.requests).toHaveLength(1);
    expect(answer).toMatch(/^desk:/);
    const holders = new Set((await inner.read("lease")).filter((r) => r.kind !== "lease" && r.kind !== "turn" && r.kind !== "program").map((r) => (r as { attempt?: number }).attempt));
    expect(holders).toEqual(new Set([2])); // every record after the claim is B's
  });
});
