/**
 * Hunt: a tab that goes away in the middle of a changing tool (a worker
 * terminated, a frame removed, a frame navigated away). Its Web Lock goes
 * with it, so another tab reads the turn `interrupted` at once (its lease
 * still has a minute to run), the refund unfinished; nothing runs it again
 * on its own; a person's `results` or `rerun` takes it on.
 */
import { afterEach, describe, expect, it } from "vitest";
import { lockName } from "../../adapters/indexeddb/liveness.js";
import { type Tab, freshDb, frameTab, gate, told, until, workerTab } from "./fixtures/hunt5-tabs.js";

const LONG = { renewMs: 10_000, ttlMs: 60_000 };

let open: Tab[] = [];
afterEach(() => {
  for (const t of open) t.kill();
  open = [];
});

const keep = <T extends Tab>(t: T): T => (open.push(t), t);

/** Whether any context of this origin holds (or asks for) the Web Lock of `conversation`'s turn `turn` in `db`. */
async function lockHeld(db: string, conversation: string, turn: string): Promise<boolean> {
  const { held = [], pending = [] } = await navigator.locks.query();
  return [...held, ...pending].some((l) => l.name === lockName(db, conversation, turn));
}

type Closer = "worker terminated" | "frame removed" | "frame navigated away";
const closers: [Closer, "worker" | "frame"][] = [["worker terminated", "worker"], ["frame removed", "frame"], ["frame navigated away", "frame"]];

describe("a tab closed in the middle of a changing tool", () => {
  for (const [closer, kind] of closers) {
    for (const how of ["results", "rerun"] as const) {
      it(`${closer} while its refund runs: interrupted at once elsewhere, the lock let go, the refund unfinished and not run again on its own; ${how} takes it on`, async () => {
        const t = told();
        const db = freshDb();
        const a = keep(kind === "worker" ? await workerTab(t) : await frameTab(t));
        const b = keep(await workerTab(t));
        await a.send({ db, conversation: "sam", tag: "a", hang: true, lease: LONG });
        await until("the refund ran", () => t.effects("a") === 1);
        const running = await b.last(db, "sam");
        expect([running?.state, running?.stalled]).toEqual(["running", false]);
        expect(await lockHeld(db, "sam", running!.id)).toBe(true);
        if (closer === "frame navigated away") await a.navigateAway();
        else a.kill();
        let last: Awaited<ReturnType<Tab["last"]>> = null;
        await until("interrupted", async () => (last = await b.last(db, "sam"))?.state === "interrupted");
        expect(last!.unfinished).toEqual([["refund", 1]]);
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
    const t = told();
    const db = freshDb();
    const a = keep(await workerTab(t));
    const b = keep(await frameTab(t));
    const g = gate();
    await a.send({ db, conversation: "sam", tag: "a", blockAt: "started", go: g.url, lease: LONG });
    await until("blocked after started", () => t.has("blocked", "a"));
    a.kill();
    g.release();
    let last: Awaited<ReturnType<Tab["last"]>> = null;
    await until("interrupted", async () => (last = await b.last(db, "sam"))?.state === "interrupted");
    expect(last!.unfinished).toEqual([["refund", 1]]);
    expect(t.effects("")).toBe(0);
    expect(await b.answer(db, "sam", "b", "results")).toEqual({ ok: "Refunded.", requests: 1 });
    expect(t.effects("")).toBe(0);
  });

  it("a worker stopped dead inside its refund once it took effect, then terminated: interrupted, the refund unfinished; rerun runs it once more with the same idempotency key", async () => {
    const t = told();
    const db = freshDb();
    const a = keep(await workerTab(t));
    const b = keep(await workerTab(t));
    const g = gate();
    await a.send({ db, conversation: "sam", tag: "a", blockAt: "tool", go: g.url, lease: LONG });
    await until("blocked in the refund", () => t.has("blocked", "a"));
    a.kill();
    g.release();
    await until("interrupted", async () => (await b.last(db, "sam"))?.state === "interrupted");
    expect(await b.answer(db, "sam", "b", "rerun")).toEqual({ ok: "Refunded.", requests: 1 });
    const keys = t.events.filter((e) => e.event === "effect").map((e) => e.key);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toBe(keys[1]);
  });

  it("a new send in another tab after the closed tab's turn: a new turn on the last done one; the interrupted refund is not run again by it", async () => {
    const t = told();
    const db = freshDb();
    const a = keep(await frameTab(t));
    const b = keep(await workerTab(t));
    await a.send({ db, conversation: "sam", tag: "a", hang: true, lease: LONG });
    await until("the refund ran", () => t.effects("a") === 1);
    a.kill();
    await until("interrupted", async () => (await b.last(db, "sam"))?.state === "interrupted");
    const before = (await b.records(db, "sam")).length;
    // the new turn's own model asks for a refund of its own: that one runs (once); the old one stays unfinished
    expect(await b.send({ db, conversation: "sam", tag: "b", lease: LONG }, true)).toEqual({ ok: "Refunded.", requests: 2 });
    expect([t.effects("a"), t.effects("b")]).toEqual([1, 1]);
    const records = (await b.records(db, "sam")).slice(before);
    expect(records.filter((r) => r.kind === "tool" && r.state === "started")).toHaveLength(1);
  });
});
