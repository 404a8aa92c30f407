/**
 * Hunt: a holder that stops dead (its whole event loop blocked, as in a
 * suspended VM) at the worst moments, on the file store shared with another
 * "host" (the child runs in a pid namespace of its own, so this process can
 * only go by its lease). Its lease runs out, this process takes the turn
 * over, then the holder wakes: it must not run a changing tool or write a
 * record again, and no reply that arrived here is paid twice.
 */
import { existsSync, writeFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import type { ConversationRecord } from "../../src/records/types.js";
import { scripted } from "../../src/testing/index.js";
import { hereDesk, paths, refunds, startBlockChild, until } from "./fixtures/hunt-block.js";
import { removeBundles } from "./fixtures/spawn.js";

afterAll(removeBundles);
const LEASE = { renewMs: 50, ttlMs: 300 };
const leases = (records: readonly ConversationRecord[]) =>
  records.filter((r) => r.kind === "lease").map((r) => (r as unknown as { attempt: number; holder: string }).attempt);

describe("a holder on another host that stops dead, then wakes after its turn was taken over (file store)", () => {
  // The durable write of a changing tool's `started` record is the longest wait before its side effect: a holder
  // that stops there and wakes after another host took the turn over (and a person asked for a rerun) must not run
  // the refund again. It ran it a second time before the engine asked about the lease again after that write (0194991).
  it("stopped just after its refund's started record was kept: woken, it runs the refund no more (the rerun here was the one run)", async () => {
    const p = paths();
    const child = await startBlockChild({ dir: p.dir, conversation: "w", blockAt: "started", blocked: p.blocked, go: p.go, effects: p.effects, lease: LEASE }, true);
    try {
      await until("the child stopped after its started record", () => refunds(p.effects).length === 0 && existsSync(p.blocked));
      const store = fsStore(p.dir);
      const lm = scripted(["Refunded."]);
      const chat = hereDesk(p.effects).conversation("w", { store, lm, lease: LEASE });
      await until("the turn reads interrupted (its lease ran out, its holder cannot be looked up)", async () => (await chat.turns())[0]?.state === "interrupted");
      const [turn] = await chat.turns();
      expect(turn!.unfinished.map((u) => u.name)).toEqual(["refund"]);
      expect(refunds(p.effects)).toEqual([]); // it never got to run it
      expect(await turn!.resume({ rerun: [1] })).toBe("Refunded."); // a person, rightly: it did not run
      expect(lm.requests).toHaveLength(1); // the refund call's reply came from the journal
      expect(refunds(p.effects)).toHaveLength(1);
      const length = (await store.read("w")).length;
      writeFileSync(p.go, "");
      const end = await child.done;
      expect(end.out, end.stderr).toMatchObject({ error: "lease-lost", requests: 1 });
      expect((await store.read("w")).length).toBe(length); // nothing written after the takeover
      expect(refunds(p.effects)).toHaveLength(1); // the promise: the woken holder does not run the refund
    } finally {
      child.proc.kill("SIGKILL");
    }
  });

  // The write that keeps what came before a paid request (here the refund's result) is the longest wait before the
  // request: a holder that stops there and wakes after another host went on with the turn must not pay for the reply
  // that host already paid for. It paid it a second time before the engine asked about the lease after that write.
  it("stopped just after its refund's done record was kept, before paying the next reply: woken, it pays for nothing more", async () => {
    const p = paths();
    const child = await startBlockChild({ dir: p.dir, conversation: "w", blockAt: "done", blocked: p.blocked, go: p.go, effects: p.effects, lease: LEASE }, true);
    try {
      await until("the child stopped after its done record", () => existsSync(p.blocked));
      const store = fsStore(p.dir);
      const lm = scripted(["Refunded."]);
      const chat = hereDesk(p.effects).conversation("w", { store, lm, lease: LEASE });
      await until("the turn reads interrupted", async () => (await chat.turns())[0]?.state === "interrupted");
      const [turn] = await chat.turns();
      expect(turn!.unfinished).toEqual([]); // the refund is done: nothing for a person to settle
      expect(await turn!.resume()).toBe("Refunded.");
      expect(lm.requests).toHaveLength(1); // the answer, paid here once; the refund's call came from the journal
      const length = (await store.read("w")).length;
      writeFileSync(p.go, "");
      const end = await child.done;
      expect(end.out, end.stderr).toMatchObject({ error: "lease-lost", requests: 1 }); // the answer is not paid again there
      expect((await store.read("w")).length).toBe(length);
      expect(refunds(p.effects)).toHaveLength(1);
    } finally {
      child.proc.kill("SIGKILL");
    }
  });

  it("stopped with the model's reply in hand (not yet kept): woken, it writes nothing and runs nothing; the takeover paid only that reply again", async () => {
    const p = paths();
    const child = await startBlockChild({ dir: p.dir, conversation: "w", blockAt: "reply", blocked: p.blocked, go: p.go, effects: p.effects, lease: LEASE }, true);
    try {
      await until("the child stopped in its model call", () => existsSync(p.blocked));
      const store = fsStore(p.dir);
      const lm = scripted([{ toolCalls: [{ id: "r", name: "refund", input: { order: "A-1" } }] }, "Refunded."]);
      const chat = hereDesk(p.effects).conversation("w", { store, lm, lease: LEASE });
      await until("the turn reads interrupted", async () => (await chat.turns())[0]?.state === "interrupted");
      const [turn] = await chat.turns();
      expect(turn!.unfinished).toEqual([]); // its reply was never kept, nor any started record
      expect(await turn!.resume()).toBe("Refunded.");
      expect(lm.requests).toHaveLength(2); // the reply that was in flight there is asked again (allowed), then the answer
      expect(refunds(p.effects)).toHaveLength(1);
      const length = (await store.read("w")).length;
      writeFileSync(p.go, "");
      const end = await child.done;
      expect(end.out, end.stderr).toMatchObject({ error: "lease-lost", requests: 1 });
      expect((await store.read("w")).length).toBe(length);
      expect(refunds(p.effects)).toHaveLength(1);
      expect(leases(await store.read("w"))).toEqual(expect.arrayContaining([1, 2]));
    } finally {
      child.proc.kill("SIGKILL");
    }
  });
});

describe("clocks 40 s apart on one host (file store)", () => {
  it("a holder whose clock is 40 s behind, busy in its refund: its lease reads run out here at once, but its pid runs: stalled, never claimable; it finishes, the refund ran once", async () => {
    const p = paths();
    const child = await startBlockChild(
      { dir: p.dir, conversation: "skew", blockAt: "none", blocked: p.blocked, go: p.go, effects: p.effects, lease: { renewMs: 100, ttlMs: 1_000 }, clockOffsetMs: -40_000, toolWaitsFor: p.release },
      false,
    );
    try {
      await until("the refund runs in the child", () => refunds(p.effects).length === 1);
      const store = fsStore(p.dir);
      const ahead = { now: () => Date.now() + 40_000, after: (ms: number, fn: () => void) => { const t = setTimeout(fn, ms); return { cancel: () => clearTimeout(t) }; }, every: (ms: number, fn: () => void) => { const t = setInterval(fn, ms); return { cancel: () => clearInterval(t) }; } };
      for (const clock of [undefined, ahead]) {
        const lm = scripted(["Refunded."]);
        const chat = hereDesk(p.effects).conversation("skew", { store, lm, lease: LEASE, ...(clock ? { clock } : {}) });
        const [turn] = await chat.turns();
        expect(turn!.state).toBe("running");
        expect(turn!.stalled).toBe(true); // its lease says it ran out (by this clock), its pid says it lives
        await expect(turn!.resume({ rerun: [1] })).rejects.toMatchObject({ code: "turn-state" });
        expect(lm.requests).toHaveLength(0);
      }
    } finally {
      writeFileSync(p.release, "");
    }
    const end = await child.done;
    expect(end.out, end.stderr).toMatchObject({ ok: "Refunded.", requests: 2 });
    expect(refunds(p.effects)).toHaveLength(1);
    expect(new Set(leases(await fsStore(p.dir).read("skew")))).toEqual(new Set([1])); // nobody else ever claimed it
  });
});
