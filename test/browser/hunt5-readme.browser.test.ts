/**
 * Hunt: what README.md tells browser users, checked in real tabs (workers
 * and a same-origin frame) on IndexedDB:
 * - "in browsers, a tab that asks for the turn's Web Lock while another tab
 *   holds it is refused after 2 s at most" (turn-claimed), not kept waiting;
 * - a stalled turn "reads running with turn.stalled === true; resume refuses
 *   it (turn-state), abandon() still ends it";
 * - "so does a turn that stopped in the process that reads it (its store
 *   failed under it …) … with PostgreSQL or a browser, the freed lock tells";
 * - "A string store is … an IndexedDB database in browsers";
 * - "a call waits for the database to open while another tab blocks it …
 *   for openTimeoutMs …, then fails with store-io".
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { indexedDBStore } from "../../adapters/indexeddb/index.js";
import { ai, isFunctaiError } from "../../src/index.js";
import { storeAt } from "../../src/runtime/stores.js";
import { scripted } from "../../src/testing/index.js";
import { freshDb, tabsUnderTest, told, until, untilInterrupted, untilStalled, workerTab } from "./fixtures/hunt5-tabs.js";

const LONG = { renewMs: 10_000, ttlMs: 60_000 };
const SHORT = { renewMs: 200, ttlMs: 1_000 };

const { keep, here, scene, sendGated } = tabsUnderTest();

describe("README, browsers", () => {
  it("a tab that asks for a running turn's Web Lock while another tab holds it is refused (turn-claimed) while the holder still holds it", async () => {
    const { t, db, tabs: [a] } = await scene("worker");
    await a.send({ db, conversation: "sam", tag: "a", hang: true, lease: LONG });
    await until("the refund ran", () => t.effects("a") === 1);
    const turn = (await a.last(db, "sam"))!.id;
    const mine = here(db);
    const e = await mine.liveness!.hold("sam", turn).then(
      (release) => (release(), "granted"),
      (x: unknown) => x,
    );
    expect(isFunctaiError(e, "turn-claimed"), String(e)).toBe(true);
    expect(await mine.liveness!.isHeld("sam", turn)).toBe(true); // refused while the holder lives, not when it let go
  });

  it("a stalled turn: running and stalled in every other tab; resume is refused with turn-state, as README says; abandon() ends it", async () => {
    const { t, db, tabs: [a, b, c] } = await scene("worker", "worker", "frame");
    const g = await sendGated(a, db, { blockAt: "started", lease: SHORT });
    await untilStalled(b, db);
    expect(await c.last(db, "sam")).toMatchObject({ state: "running", stalled: true });
    for (const how of ["resume", "results", "rerun"] as const) expect(await b.answer(db, "sam", `b-${how}`, how)).toMatchObject({ error: "turn-state", requests: 0 });
    expect(await c.answer(db, "sam", "c", "abandon")).toEqual({ ok: "abandoned", requests: 0 });
    g.release();
    await until("a's outcome", () => t.outcomes.has("a"));
    expect(t.outcomes.get("a")).toMatchObject({ error: "lease-lost" });
    expect(t.effects("")).toBe(0);
  });

  for (const fault of ["before-write", "after-write"] as const) {
    it(`a live tab whose store failed under its turn (the refund's done record: ${fault}): the freed lock tells, another tab reads it interrupted at once (its lease has a minute left) and answers it`, async () => {
      const { t, db, tabs: [a, b] } = await scene("worker", "frame");
      await a.send({ db, conversation: "sam", tag: "a", failDone: fault, lease: LONG });
      await until("a's outcome", () => t.outcomes.has("a"));
      expect(t.outcomes.get("a")).toMatchObject({ error: "store-io", requests: 1 });
      expect(t.effects("a")).toBe(1);
      expect(await a.tab()).toBeTypeOf("string"); // the tab lives on
      const last = await untilInterrupted(b, db);
      if (fault === "before-write") {
        expect(last.unfinished).toEqual([["refund", 1]]);
        expect(await b.answer(db, "sam", "b", "results")).toEqual({ ok: "Refunded.", requests: 1 });
      } else {
        expect(last.unfinished).toEqual([]); // its done record was kept: no person needed
        expect(await b.answer(db, "sam", "b", "resume")).toEqual({ ok: "Refunded.", requests: 1 });
      }
      expect(t.effects("")).toBe(1);
      expect((await a.last(db, "sam"))?.state).toBe("done");
    });
  }

  it("a string store in a browser is the IndexedDB database of that name: another tab reads the conversation there", async () => {
    const t = told();
    const name = freshDb();
    const fn = ai("desk", { description: "Answer refund requests.", input: { request: z.string() } });
    const lm = scripted(["Hello."]);
    expect(await fn.conversation("sam", { store: name, lm }).send({ request: "Hi." })).toBe("Hello.");
    await storeAt(name).close?.(); // the page's own handle of that name lets go (so the database can be deleted after)
    const b = keep(await workerTab(t));
    expect((await b.records(name, "sam")).map((r) => r.kind)).toEqual(["program", "turn", "lease", "reply", "ended"]);
    expect((await b.last(name, "sam"))?.state).toBe("done");
    await b.close(name);
    here(name); // deleted after the test
  });

  it("a stalled tab keeps its connection open, so another tab's deletion waits; a call in a third tab waits openTimeoutMs for the database, then fails with store-io saying why", async () => {
    const { t, db, tabs: [a, b] } = await scene("worker", "worker");
    await sendGated(a, db, { blockAt: "started", lease: LONG });
    await until("a blocked", () => t.has("blocked", "a"));
    let deleted: string | undefined;
    void b.deleteDb(db).then((d) => (deleted = d)); // (waits: the stalled tab cannot even be told to close its connection)
    await until("the deletion asked", () => t.has("deleting", db));
    // tab b's "deleting" can reach this page before its deletion reaches the database: a third tab's open that goes
    // first opens and reads (seen once in CI), so it is asked again, a new store each time, until the deletion is there
    let e: unknown;
    for (let tries = 0; e === undefined && tries < 20; tries++) {
      const third = indexedDBStore(db, { openTimeoutMs: 1_000 });
      e = await third.read("sam").then(() => undefined, (x: unknown) => x);
      await third.close!();
      if (e === undefined) await new Promise((r) => setTimeout(r, 50));
    }
    expect(isFunctaiError(e, "store-io"), String(e)).toBe(true);
    expect((e as Error).message).toMatch(/did not open within 1000 ms/);
    expect(deleted).toBeUndefined();
    a.kill(); // the stalled tab goes: the deletion goes through
    await until("deleted", () => deleted !== undefined);
    expect(deleted).toBe("deleted");
  });
});
