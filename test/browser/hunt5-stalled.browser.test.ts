/**
 * Hunt: a tab that is alive but stalled, its lease run out while it still
 * holds the turn's Web Lock: a worker stopped dead by a synchronous loop,
 * or one whose lease renewals hang (it lives, holds the lock, renews
 * nothing). Others must read the turn `running` with `stalled: true`, must
 * not claim it; `abandon()` still ends it, and the stalled tab, woken, runs
 * and writes nothing more.
 */
import { describe, expect, it } from "vitest";
import { tabsUnderTest, until, untilInterrupted, untilStalled } from "./fixtures/hunt5-tabs.js";

const SHORT = { renewMs: 200, ttlMs: 1_000 };
const CLAIM = /^(turn-state|turn-claimed)$/;

const { scene, sendGated } = tabsUnderTest();

describe("a stalled tab", () => {
  for (const blockAt of ["started", "tool"] as const) {
    it(`a worker stopped dead ${blockAt === "started" ? "just after its refund's started record" : "inside its refund, once it took effect"}, its lease run out: three tabs read it running and stalled, none can claim it; abandoned, the woken worker is lease-lost and wrote nothing more`, async () => {
      const { t, db, tabs: [a, b, c, d] } = await scene("worker", "worker", "frame", "worker");
      const g = await sendGated(a, db, { blockAt, lease: SHORT });
      await until("blocked", () => t.has("blocked", "a"));
      await untilStalled(b, db);
      for (const x of [b, c, d]) expect(await x.last(db, "sam")).toMatchObject({ state: "running", stalled: true });
      // nobody may take it on, whatever they answer, even all at once
      const at = Date.now() + 200;
      const tries = await Promise.all([b.answer(db, "sam", "b", "results", at), c.answer(db, "sam", "c", "rerun", at), d.answer(db, "sam", "d", "resume", at)]);
      for (const o of tries) expect(o, JSON.stringify(o)).toMatchObject({ error: expect.stringMatching(CLAIM), requests: 0 });
      expect(t.effects("b") + t.effects("c") + t.effects("d")).toBe(0);
      expect(await c.answer(db, "sam", "c-abandon", "abandon")).toEqual({ ok: "abandoned", requests: 0 });
      const atAbandon = (await b.records(db, "sam")).length;
      g.release();
      await until("a's outcome", () => t.outcomes.has("a"));
      expect(t.outcomes.get("a")).toMatchObject({ error: "lease-lost", requests: 1 });
      expect(t.effects("a")).toBe(blockAt === "tool" ? 1 : 0);
      expect((await b.records(db, "sam")).slice(atAbandon)).toEqual([]);
      expect((await d.last(db, "sam"))?.state).toBe("abandoned");
    });
  }

  it("a worker that lives and holds its lock but whose lease renewals hang: stalled elsewhere, not claimable; abandoned, its renewal then let through is refused, the refund's signal aborts, nothing more is written", async () => {
    const { t, db, tabs: [a, b] } = await scene("worker", "frame");
    const g = await sendGated(a, db, { hang: true, stuckRenewals: true, lease: SHORT });
    await until("the refund ran", () => t.effects("a") === 1);
    await until("a renewal held back", () => t.has("stuck", "a"));
    await untilStalled(b, db);
    expect(await b.last(db, "sam")).toMatchObject({ state: "running", stalled: true });
    expect((await b.answer(db, "sam", "b", "results")).error).toMatch(CLAIM);
    expect((await b.answer(db, "sam", "b", "rerun")).error).toMatch(CLAIM);
    expect(t.effects("b")).toBe(0);
    expect(await b.answer(db, "sam", "b", "abandon")).toEqual({ ok: "abandoned", requests: 0 });
    const atAbandon = (await b.records(db, "sam")).length;
    g.release();
    await until("a's outcome", () => t.outcomes.has("a"));
    expect(t.outcomes.get("a")).toMatchObject({ error: "lease-lost", requests: 1 });
    expect(t.has("aborted", "a")).toBe(true);
    expect((await b.records(db, "sam")).slice(atAbandon)).toEqual([]);
    expect((await b.last(db, "sam"))?.state).toBe("abandoned");
    expect(t.effects("")).toBe(1);
  });

  it("a stalled worker then terminated: the turn reads interrupted at once (no longer stalled), and results take it on", async () => {
    const { t, db, tabs: [a, b] } = await scene("worker", "worker");
    await sendGated(a, db, { blockAt: "started", lease: SHORT });
    await untilStalled(b, db);
    a.kill();
    const last = await untilInterrupted(b, db);
    expect([last.stalled, last.unfinished]).toEqual([false, [["refund", 1]]]);
    expect(await b.answer(db, "sam", "b", "results")).toEqual({ ok: "Refunded.", requests: 1 });
    expect(t.effects("")).toBe(0);
  });

  it("a send from another tab while the head turn is stalled: it does not run the stalled turn's refund, and once the stalled turn is abandoned it goes on", async () => {
    const { t, db, tabs: [a, b, c] } = await scene("worker", "worker", "worker");
    const g = await sendGated(a, db, { blockAt: "started", lease: SHORT });
    await untilStalled(b, db);
    const sent = c.send({ db, conversation: "sam", tag: "c", lease: SHORT }, true);
    // it queues behind the running head (DESIGN: `next` is `{ waits }`), for as long as that head lives
    await until("the send's tab reads the head", async () => (await c.last(db, "sam"))?.stalled === true);
    const early = await Promise.race([sent, new Promise((r) => setTimeout(() => r("still waiting"), 2_000))]);
    expect(early).toBe("still waiting");
    expect(t.effects("")).toBe(0);
    expect(await b.answer(db, "sam", "b", "abandon")).toEqual({ ok: "abandoned", requests: 0 });
    expect(await sent).toEqual({ ok: "Refunded.", requests: 2 }); // a turn of its own, on the last done one
    expect(t.effects("c")).toBe(1);
    g.release();
    await until("a's outcome", () => t.outcomes.has("a"));
    expect(t.outcomes.get("a")).toMatchObject({ error: "lease-lost" });
    expect(t.effects("a")).toBe(0);
  });
});
