/**
 * Hunt: a tab that goes away in the middle of a changing tool (a worker
 * terminated, a frame removed, a frame navigated away). Its Web Lock goes
 * with it, so another tab reads the turn `interrupted` at once (its lease
 * still has a minute to run), the refund unfinished; nothing runs it again
 * on its own; a person's `results` or `rerun` takes it on.
 */
import { describe, expect, it } from "vitest";
import { lockName } from "../../adapters/indexeddb/liveness.js";
import { type Kind, frameTab, tabsUnderTest, until, untilInterrupted } from "./fixtures/hunt5-tabs.js";

const LONG = { renewMs: 10_000, ttlMs: 60_000 };

const { keep, scene, sendGated } = tabsUnderTest();

/** Whether any context of this origin holds (or asks for) the Web Lock of `conversation`'s turn `turn` in `db`. */
async function lockHeld(db: string, conversation: string, turn: string): Promise<boolean> {
  const { held = [], pending = [] } = await navigator.locks.query();
  return [...held, ...pending].some((l) => l.name === lockName(db, conversation, turn));
}

/** Worker `a` stopped dead at `blockAt` (waited for as `blocked`), then terminated and its gate released; tab `b` (of `other`) reads the turn interrupted: that reading. */
async function stoppedDeadThenTerminated(blockAt: "started" | "tool", blocked: string, other: Kind) {
  const { t, db, tabs: [a, b] } = await scene("worker", other);
  const g = await sendGated(a, db, { blockAt, lease: LONG });
  await until(blocked, () => t.has("blocked", "a"));
  a.kill();
  g.release();
  return { t, db, b, last: await untilInterrupted(b, db) };
}

type Closer = "worker terminated" | "frame removed" | "frame navigated away";
const closers: [Closer, "worker" | "frame"][] = [["worker terminated", "worker"], ["frame removed", "frame"], ["frame navigated away", "frame"]];

describe("a tab closed in the middle of a changing tool", () => {
  for (const [closer, kind] of closers) {
    for (const how of ["results", "rerun"] as const) {
      it(`${closer} while its refund runs: interrupted at once elsewhere, the lock let go, the refund unfinished and not run again on its own; ${how} takes it on`, async () => {
        const { t, db, tabs: [a, b] } = await scene(kind, "worker");
        await a.send({ db, conversation: "sam", tag: "a", hang: true, lease: LONG });
        await until("the refund ran", () => t.effects("a") === 1);
        const running = await b.last(db, "sam");
        expect([running?.state, running?.stalled]).toEqual(["running", false]);
        expect(await lockHeld(db, "sam", running!.id)).toBe(true);
        if (closer === "frame navigated away") await a.navigateAway();
        else a.kill();
        const last = await untilInterrupted(b, db);
        expect(last.unfinished).toEqual([["refund", 1]]);
        expect(await lockHeld(db, "sam", running!.id)).toBe(false);
        // read again, from two more tabs: reading runs nothing
        const c = keep(await frameTab(t));
        expect((await c.last(db, "sam"))?.state).toBe("interrupted");
        expect((await b.last(db, "sam"))?.unfinished).toEqual([["refund", 1]]);
        expect(t.effects("")).toBe(1);
        // a resume that names no answer is refused, naming the tool
        expect(await c.answer(db, "sam", "c-plain", "resume")).toMatchObject({ error: "turn-unfinished", requests: 0 });
        expect(await b.answer(db, "sam", "b", how)).toEqual({ ok: "Refunded.", requests: 1 });
        expect(t.effects("a")).toBe(1);
        expect(t.effects("b")).toBe(how === "rerun" ? 1 : 0);
        expect((await c.last(db, "sam"))?.state).toBe("done");
        const aborted = t.events.filter((e) => e.event === "aborted" && e.tag === "a").length;
        expect(aborted).toBe(0); // the closed tab ran nothing more
      });
    }
  }

  it("a worker stopped dead just after its refund's started record, then terminated: interrupted at once, the refund never ran; results resume it with one request", async () => {
    const { t, db, b, last } = await stoppedDeadThenTerminated("started", "blocked after started", "frame");
    expect(last.unfinished).toEqual([["refund", 1]]);
    expect(t.effects("")).toBe(0);
    expect(await b.answer(db, "sam", "b", "results")).toEqual({ ok: "Refunded.", requests: 1 });
    expect(t.effects("")).toBe(0);
  });

  it("a worker stopped dead inside its refund once it took effect, then terminated: interrupted, the refund unfinished; rerun runs it once more with the same idempotency key", async () => {
    const { t, db, b } = await stoppedDeadThenTerminated("tool", "blocked in the refund", "worker");
    expect(await b.answer(db, "sam", "b", "rerun")).toEqual({ ok: "Refunded.", requests: 1 });
    const keys = t.events.filter((e) => e.event === "effect").map((e) => e.key);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toBe(keys[1]);
  });

  it("a new send in another tab after the closed tab's turn: a new turn on the last done one; the interrupted refund is not run again by it", async () => {
    const { t, db, tabs: [a, b] } = await scene("frame", "worker");
    await a.send({ db, conversation: "sam", tag: "a", hang: true, lease: LONG });
    await until("the refund ran", () => t.effects("a") === 1);
    a.kill();
    await untilInterrupted(b, db);
    const before = (await b.records(db, "sam")).length;
    // the new turn's own model asks for a refund of its own: that one runs (once); the old one stays unfinished
    expect(await b.send({ db, conversation: "sam", tag: "b", lease: LONG }, true)).toEqual({ ok: "Refunded.", requests: 2 });
    expect([t.effects("a"), t.effects("b")]).toEqual([1, 1]);
    const records = (await b.records(db, "sam")).slice(before);
    expect(records.filter((r) => r.kind === "tool" && r.state === "started")).toHaveLength(1);
  });
});
