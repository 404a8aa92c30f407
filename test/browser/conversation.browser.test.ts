// Real Chromium: a conversation on IndexedDB, answered and resumed from a second handle, as another tab would.
import { deleteDB } from "idb";
import { afterEach, describe, expect, it } from "vitest";
import { indexedDBStore } from "../../adapters/indexeddb/index.js";
import { HOLD_WAIT_MS } from "../../adapters/indexeddb/liveness.js";
import { type ConversationError, Waiting, type Store, type Turn } from "../../src/index.js";
import { desk, firstTab, MESSAGE, oneTab, secondTab } from "./desk.js";

const LEASE = { renewMs: 200, ttlMs: 1_000 };

const opened: { name: string; store: Store }[] = [];
afterEach(async () => {
  await Promise.all(opened.map((h) => h.store.close?.()));
  await Promise.all([...new Set(opened.map((h) => h.name))].map((n) => deleteDB(n)));
  opened.length = 0;
});

/** A handle on the IndexedDB database `name`, closed and deleted after the test. */
function open(name: string): Store {
  const store = indexedDBStore(name);
  opened.push({ name, store });
  return store;
}

const freshName = (): string => `functai-conv-${crypto.randomUUID()}`;

/** Polls `turn` until `ok`, at most `ms`; fails with what it last saw. */
async function until(turn: Turn, ok: (t: Turn) => boolean, ms: number): Promise<void> {
  const end = performance.now() + ms;
  while (!ok(await turn.refresh())) {
    if (performance.now() > end) throw new Error(`turn ${turn.id} still ${turn.state} after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("a conversation in IndexedDB, across handles (tabs)", () => {
  it("a turn waits; another handle approves it; the refund runs once, the lookup is not run again", async () => {
    const name = freshName();
    const [a, b] = [open(name), open(name)];
    const { fn, REFUNDS, LOOKUPS } = desk();
    const lmA = firstTab();
    const chat = fn.conversation("sam", { store: a, approve: "changes", lm: lmA, lease: LEASE });

    const waiting = await chat.send(MESSAGE).catch((e: unknown) => e);
    expect(waiting).toBeInstanceOf(Waiting);
    expect((waiting as Waiting).approvals.map((x) => [x.name, x.input])).toEqual([["refund", { order_id: "A-1042", amount: 39 }]]);
    expect(REFUNDS).toEqual([]);
    const before = await a.length!("sam");

    // A's handle hears of B's appends (BroadcastChannel), without polling.
    const heard = a.wait!("sam", before, 10_000);
    const lmB = secondTab();
    const turn = (await fn.conversation("sam", { store: b, lm: lmB, lease: LEASE }).turns()).at(-1)!;
    expect(turn.state).toBe("waiting");
    expect(await b.list!()).toEqual(["sam"]);
    const answer = await turn.approve({ by: "maria" });
    expect(await heard).toBe(true);

    expect(answer).toBe("The last tool said: refunded 39.00 for A-1042");
    expect(REFUNDS).toEqual([["A-1042", 39]]);
    expect(LOOKUPS).toEqual(["A-1042"]);
    expect(lmA.requests).toHaveLength(2);
    expect(lmB.requests).toHaveLength(1); // the two replies A had were reused
    const seenByA = (await chat.turns()).at(-1)!;
    expect([seenByA.state, seenByA.value]).toEqual(["done", answer]);
    // an approval is answered once
    const again = await turn.approve({ by: "kim" }).catch((e: unknown) => e);
    expect((again as ConversationError).code).toBe("approval-answered");
  });

  it("a turn answered in the tab where it just went waiting, at once, is claimed there: its own Web Lock, let go as it waited, never reads as another tab's", async () => {
    const store = open(freshName());
    const { fn, REFUNDS } = desk();
    for (let i = 0; i < 10; i++) {
      const lm = oneTab();
      const chat = fn.conversation(`sam-${i}`, { store, approve: "changes", lm, lease: LEASE });
      const waiting = await chat.send(MESSAGE).catch((e: unknown) => e);
      expect(waiting).toBeInstanceOf(Waiting);
      expect(await (waiting as Waiting).turn.approve({ by: "maria" })).toBe("The last tool said: refunded 39.00 for A-1042");
    }
    expect(REFUNDS).toHaveLength(10);
  });

  it("two tabs approve one waiting turn at once: one runs it, the other is refused (turn-claimed) within seconds, while the winner's refund still runs", async () => {
    const name = freshName();
    const [a, b, c] = [open(name), open(name), open(name)];
    const { fn, REFUNDS } = desk({ hang: true }); // the winner's refund never returns: its run never ends
    const chat = fn.conversation("sam", { store: a, approve: "changes", lm: firstTab(), lease: LEASE });
    expect(await chat.send(MESSAGE).catch((e: unknown) => e)).toBeInstanceOf(Waiting);
    const [turnB, turnC] = await Promise.all([b, c].map(async (s) => (await fn.conversation("sam", { store: s, lm: secondTab(), lease: LEASE }).turns()).at(-1)!));
    const asked = performance.now();
    const outcomes = [turnB!, turnC!].map((t) => t.approve({ by: "maria" }).then(() => "answered", (e: unknown) => e));
    const first = await Promise.race(outcomes);
    expect(first).toMatchObject({ code: expect.stringMatching(/^(turn-claimed|approval-answered)$/) });
    expect(performance.now() - asked).toBeLessThan(HOLD_WAIT_MS + 2_000);
    for (let i = 0; i < 40 && REFUNDS.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(REFUNDS).toEqual([["A-1042", 39]]); // the winner runs it, once
  });

  it("a tab that dies mid-refund leaves the turn interrupted; another handle gives the result and resumes it", async () => {
    const name = freshName();
    const [a, b] = [open(name), open(name)];
    const dying = desk({ hang: true });
    const lmA = firstTab();
    const chat = dying.fn.conversation("sam", { store: a, lm: lmA, lease: LEASE });
    void chat.send(MESSAGE).catch(() => undefined); // its refund never returns

    const { fn, REFUNDS, LOOKUPS } = desk();
    const lmB = secondTab();
    const turns = () => fn.conversation("sam", { store: b, lm: lmB, lease: LEASE }).turns();
    const t0 = performance.now();
    while (dying.REFUNDS.length === 0) {
      if (performance.now() - t0 > 10_000) throw new Error("the refund never started");
      await new Promise((r) => setTimeout(r, 20));
    }
    const turn = (await turns()).at(-1)!;
    expect(turn.state).toBe("running"); // its lease is renewed while the tool runs

    // The tab dies: its store handle closes (its Web Lock is freed, its renewals fail).
    await a.close!();
    const died = performance.now();
    await until(turn, (t) => t.state === "interrupted", 5_000);
    expect(performance.now() - died).toBeLessThan(LEASE.ttlMs + 1_500);
    expect(turn.unfinished.map((u) => [u.name, u.invocation, u.input])).toEqual([["refund", 2, { order_id: "A-1042", amount: 39 }]]);

    const refused = await turn.resume().catch((e: unknown) => e);
    expect((refused as ConversationError).code).toBe("turn-unfinished");
    expect(String((refused as Error).message)).toContain("refund (invocation 2) started and may have run");

    const answer = await turn.resume({ results: { 2: "refunded 39.00 for A-1042" } });
    expect(answer).toBe("The last tool said: refunded 39.00 for A-1042");
    expect(dying.REFUNDS).toEqual([["A-1042", 39]]); // it ran once, in the tab that died
    expect(REFUNDS).toEqual([]); // and not again here
    expect([dying.LOOKUPS, LOOKUPS]).toEqual([["A-1042"], []]); // the recorded lookup was reused
    expect(lmB.requests).toHaveLength(1);
    expect((await turns()).at(-1)!.state).toBe("done");
  });

  it("rerun: when the person says it did not run, the refund runs again, here", async () => {
    const name = freshName();
    const [a, b] = [open(name), open(name)];
    const dying = desk({ hang: true });
    void dying.fn.conversation("sam", { store: a, lm: firstTab(), lease: LEASE }).send(MESSAGE).catch(() => undefined);
    const t0 = performance.now();
    while (dying.REFUNDS.length === 0) {
      if (performance.now() - t0 > 10_000) throw new Error("the refund never started");
      await new Promise((r) => setTimeout(r, 20));
    }
    await a.close!();
    const { fn, REFUNDS } = desk();
    const turn = (await fn.conversation("sam", { store: b, lm: secondTab(), lease: LEASE }).turns()).at(-1)!;
    await until(turn, (t) => t.state === "interrupted", 5_000);
    expect(await turn.resume({ rerun: [2] })).toBe("The last tool said: refunded 39.00 for A-1042");
    expect(REFUNDS).toEqual([["A-1042", 39]]);
  });

  // A hidden tab's timers are throttled, so its lease can lapse while it runs; its Web Lock cannot.
  it("a turn whose lease lapsed but whose tab still holds its Web Lock reads as running, until the tab goes", async () => {
    const name = freshName();
    const [a, b] = [open(name), open(name)];
    const slow = desk({ hang: true });
    // renewals far apart: the lease lapses while the tab (this realm) is alive and holds the lock
    void slow.fn.conversation("sam", { store: a, lm: firstTab(), lease: { renewMs: 60_000, ttlMs: 300 } }).send(MESSAGE).catch(() => undefined);
    const t0 = performance.now();
    while (slow.REFUNDS.length === 0) {
      if (performance.now() - t0 > 10_000) throw new Error("the refund never started");
      await new Promise((r) => setTimeout(r, 20));
    }
    const turn = (await desk().fn.conversation("sam", { store: b, lm: secondTab() }).turns()).at(-1)!;
    await new Promise((r) => setTimeout(r, 800));
    expect(await b.liveness!.isHeld("sam", turn.id)).toBe(true);
    expect((await turn.refresh()).state).toBe("running");
    const busy = await desk().fn.conversation("sam", { store: b, lm: secondTab() }).turns();
    expect(busy.at(-1)!.state).toBe("running");
    await a.close!(); // the tab goes: its lock is freed
    await until(turn, (t) => t.state === "interrupted", 2_000);
    expect(turn.unfinished.map((u) => u.name)).toEqual(["refund"]);
  });

  // The lock is held from before the first lease to after the last record: a free lock means the tab is gone.
  it("a closed tab's turn reads interrupted at once, long before its lease would run out", async () => {
    const name = freshName();
    const [a, b] = [open(name), open(name)];
    const slow = desk({ hang: true });
    void slow.fn.conversation("sam", { store: a, lm: firstTab(), lease: { renewMs: 10_000, ttlMs: 60_000 } }).send(MESSAGE).catch(() => undefined);
    const t0 = performance.now();
    while (slow.REFUNDS.length === 0) {
      if (performance.now() - t0 > 10_000) throw new Error("the refund never started");
      await new Promise((r) => setTimeout(r, 20));
    }
    const turn = (await desk().fn.conversation("sam", { store: b, lm: secondTab() }).turns()).at(-1)!;
    expect(turn.state).toBe("running"); // its lease holds for a minute
    await a.close!(); // the tab goes
    const closed = performance.now();
    await until(turn, (t) => t.state === "interrupted", 3_000);
    expect(performance.now() - closed).toBeLessThan(3_000); // not the 60 s lease
    expect(turn.unfinished.map((u) => [u.name, u.invocation])).toEqual([["refund", 2]]);
    const answer = await turn.resume({ results: { 2: "refunded 39.00 for A-1042" } });
    expect(answer).toBe("The last tool said: refunded 39.00 for A-1042");
    expect(slow.REFUNDS).toEqual([["A-1042", 39]]);
  });
});
