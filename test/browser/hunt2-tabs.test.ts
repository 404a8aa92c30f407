/**
 * Hunt: the exactly-once promise across REAL Chromium tabs. Each tab is a page
 * of one browser context (one origin: one IndexedDB, one Web Lock manager),
 * with a renderer and event loop of its own, driven from Node
 * (fixtures/hunt2-tabs.ts): a tab is closed (`page.close()`), reloaded, or
 * stopped dead by a synchronous loop in it just after its refund's `started`
 * record was kept. Refund runs are told to Node synchronously before the
 * refund goes on, so they are counted even for a tab that dies.
 */
import { existsSync } from "node:fs";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM, startTabs, until, type Tabs } from "./fixtures/hunt2-tabs.js";
import type { RunConfig } from "./fixtures/hunt2-tab.js";

interface Outcome { ok?: unknown; error?: string; waiting?: boolean; message?: string; requests: number }
interface Last { id: string; state: string; stalled: boolean; unfinished: [string, number][]; waiting: number }
interface Rec { seq: number; kind: string; state?: string; turn?: string; attempt?: number; holder?: string }
interface HuntApi {
  tab: string;
  send(cfg: RunConfig, wait?: boolean): Promise<Outcome | null>;
  last(db: string, conversation: string): Promise<Last | null>;
  answer(db: string, conversation: string, tag: string, how: "approve" | "deny" | "abandon" | "results" | "rerun" | "resume", at?: number, blockAfterAnswer?: boolean): Promise<Outcome>;
  records(db: string, conversation: string): Promise<Rec[]>;
  appendMany(db: string, conversation: string, count: number, marker: string): Promise<number>;
  readLoop(db: string, conversation: string, ms: number): Promise<number[]>;
  close(db: string): Promise<void>;
}

/** Calls `window.hunt2[name](...args)` in `page`. */
function call<K extends keyof Omit<HuntApi, "tab">>(page: Page, name: K, ...args: Parameters<HuntApi[K]>): ReturnType<HuntApi[K]> {
  return page.evaluate(
    ([n, a]) => ((globalThis as unknown as { hunt2: Record<string, (...x: unknown[]) => unknown> }).hunt2[n as string]!(...(a as unknown[]))),
    [name, args] as const,
  ) as ReturnType<HuntApi[K]>;
}

const freshDb = (): string => `hunt2-${crypto.randomUUID()}`;
const ANSWERED = /^(turn-claimed|approval-answered|turn-state|store-conflict|lease-lost)$/;

const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) {
  if (process.env.CI) throw new Error(`CI is set and there is no Chromium at ${CHROMIUM}: the tabs must be tested (apt-get install -y chromium).`);
  console.warn(`[functai] no Chromium at ${CHROMIUM}: test/browser/hunt2-tabs.test.ts is skipped (CI never skips it).`);
}

let tabs: Tabs;
beforeAll(async () => {
  if (haveChromium) tabs = await startTabs();
}, 60_000);
afterAll(async () => tabs?.close());

const effectsOf = (tag: string): number => tabs.told.effects.filter((e) => e.tag === tag).length;
const allEffects = (): number => tabs.told.effects.length;

describe.skipIf(!haveChromium)("real tabs on one IndexedDB store", () => {
  it("a tab closed just after its refund's started record was kept: another tab reads the turn interrupted at once (not after the 60 s lease), the refund unfinished; results resume it, nothing runs again", async () => {
    const db = freshDb();
    const [a, b] = [await tabs.open(), await tabs.open()];
    const before = allEffects();
    await call(a, "send", { db, conversation: "sam", tag: "close-a", blockAt: "started", lease: { renewMs: 10_000, ttlMs: 60_000 } });
    await until("tab A blocked after started", () => tabs.told.blocked.has("close-a"));
    const seen = await call(b, "last", db, "sam");
    expect([seen?.state, seen?.stalled]).toEqual(["running", false]); // lease a minute long, lock held
    const closedAt = Date.now();
    await a.close(); // the blocked tab is closed: its renderer goes, its Web Lock with it
    let last: Last | null = null;
    await until("interrupted", async () => (last = await call(b, "last", db, "sam"))?.state === "interrupted", 10_000);
    expect(Date.now() - closedAt).toBeLessThan(10_000);
    expect(last!.unfinished).toEqual([["refund", 1]]);
    expect(allEffects() - before).toBe(0); // it stopped before the refund ran
    const resumed = await call(b, "answer", db, "sam", "close-b", "results");
    expect(resumed).toEqual({ ok: "Refunded.", requests: 1 });
    expect(allEffects() - before).toBe(0);
    expect((await call(b, "last", db, "sam"))?.state).toBe("done");
    await b.close();
  });

  it("a tab closed while its refund runs: interrupted at once elsewhere; a rerun runs the refund once more, with the same idempotency key", async () => {
    const db = freshDb();
    const [a, b] = [await tabs.open(), await tabs.open()];
    await call(a, "send", { db, conversation: "sam", tag: "closerun-a", hang: true, lease: { renewMs: 10_000, ttlMs: 60_000 } });
    await until("the refund ran in tab A", () => effectsOf("closerun-a") === 1);
    await a.close();
    await until("interrupted", async () => (await call(b, "last", db, "sam"))?.state === "interrupted", 10_000);
    const rerun = await call(b, "answer", db, "sam", "closerun-b", "rerun");
    expect(rerun).toEqual({ ok: "Refunded.", requests: 1 });
    expect([effectsOf("closerun-a"), effectsOf("closerun-b")]).toEqual([1, 1]);
    const keys = tabs.told.effects.filter((e) => e.tag.startsWith("closerun-")).map((e) => e.key);
    expect(keys[0]).toBe(keys[1]);
    // answered once: a second answer is refused
    const again = await call(b, "answer", db, "sam", "closerun-c", "rerun");
    expect(again.error).toMatch(/^(turn-state)$/);
    expect(effectsOf("closerun-c")).toBe(0);
    await b.close();
  });

  it("a tab stopped dead just after its refund's started record, its lease run out: it still holds its Web Lock, so another tab reads it running and stalled and cannot take it; abandoned there, the woken tab runs nothing and writes nothing more", async () => {
    const db = freshDb();
    const [a, b] = [await tabs.open(), await tabs.open()];
    await call(a, "send", { db, conversation: "sam", tag: "stall-a", blockAt: "started", lease: { renewMs: 200, ttlMs: 1_000 } });
    await until("tab A blocked after started", () => tabs.told.blocked.has("stall-a"));
    let last: Last | null = null;
    await until("stalled", async () => (last = await call(b, "last", db, "sam"))?.stalled === true, 10_000);
    expect(last!.state).toBe("running");
    // nobody may claim it while its tab lives
    const resume = await call(b, "answer", db, "sam", "stall-b", "results");
    expect(resume.error).toBeDefined();
    expect(resume.error).toMatch(/^(turn-state|turn-claimed)$/);
    const rerun = await call(b, "answer", db, "sam", "stall-b", "rerun");
    expect(rerun.error).toMatch(/^(turn-state|turn-claimed)$/);
    const abandon = await call(b, "answer", db, "sam", "stall-b", "abandon");
    expect(abandon).toEqual({ ok: "abandoned", requests: 0 });
    const atAbandon = (await call(b, "records", db, "sam")).length;
    tabs.told.go.add("stall-a");
    await until("tab A's outcome", () => tabs.told.outcomes.has("stall-a"), 10_000);
    const outcome = tabs.told.outcomes.get("stall-a")!;
    expect(outcome.error).toBe("lease-lost");
    expect(outcome.requests).toBe(1);
    expect(effectsOf("stall-a") + effectsOf("stall-b")).toBe(0); // the refund never ran
    const records = await call(b, "records", db, "sam");
    expect(records.slice(atAbandon)).toEqual([]); // nothing written after the abandon
    expect((await call(b, "last", db, "sam"))?.state).toBe("abandoned");
    await a.close();
    await b.close();
  });

  for (const [blockAt, where, refunds] of [["reply", "with the model's first reply in hand", 0], ["tool", "inside its refund, just after it took effect", 1]] as const) {
    it(`a tab stopped dead ${where}, its lease run out: stalled, not claimable elsewhere; abandoned there, the woken tab writes nothing more and runs nothing more`, async () => {
      const db = freshDb();
      const [a, b] = [await tabs.open(), await tabs.open()];
      const tag = `stall-${blockAt}`;
      await call(a, "send", { db, conversation: "sam", tag, blockAt, lease: { renewMs: 200, ttlMs: 1_000 } });
      await until(`tab A blocked at ${blockAt}`, () => tabs.told.blocked.has(tag));
      await until("stalled", async () => (await call(b, "last", db, "sam"))?.stalled === true, 10_000);
      expect((await call(b, "answer", db, "sam", `${tag}-b`, "rerun")).error).toMatch(/^(turn-state|turn-claimed)$/);
      expect(await call(b, "answer", db, "sam", `${tag}-b`, "abandon")).toEqual({ ok: "abandoned", requests: 0 });
      const atAbandon = (await call(b, "records", db, "sam")).length;
      tabs.told.go.add(tag);
      await until("tab A's outcome", () => tabs.told.outcomes.has(tag), 10_000);
      expect(tabs.told.outcomes.get(tag)).toMatchObject({ error: "lease-lost", requests: 1 });
      expect([effectsOf(tag), effectsOf(`${tag}-b`)]).toEqual([refunds, 0]);
      expect((await call(b, "records", db, "sam")).slice(atAbandon)).toEqual([]);
      expect((await call(b, "last", db, "sam"))?.state).toBe("abandoned");
      await Promise.all([a.close(), b.close()]);
    });
  }

  it("a tab stopped dead just after its refund's started record, its lease run out, then woken with nobody having touched the turn: it goes on and finishes; the refund ran once, no reply paid twice", async () => {
    const db = freshDb();
    const [a, b] = [await tabs.open(), await tabs.open()];
    await call(a, "send", { db, conversation: "sam", tag: "wake-a", blockAt: "started", lease: { renewMs: 200, ttlMs: 1_000 } });
    await until("tab A blocked after started", () => tabs.told.blocked.has("wake-a"));
    await until("stalled", async () => (await call(b, "last", db, "sam"))?.stalled === true, 10_000);
    tabs.told.go.add("wake-a");
    await until("tab A's outcome", () => tabs.told.outcomes.has("wake-a"), 10_000);
    expect(tabs.told.outcomes.get("wake-a")).toMatchObject({ ok: "Refunded.", requests: 2 });
    expect(effectsOf("wake-a")).toBe(1);
    const records = await call(b, "records", db, "sam");
    expect(records.filter((r) => r.kind === "lease").map((r) => r.attempt).every((n) => n === 1)).toBe(true);
    expect((await call(b, "last", db, "sam"))?.state).toBe("done");
    await Promise.all([a.close(), b.close()]);
  });

  for (const [how, refunds] of [["results", 0], ["rerun", 1], ["approve", 1], ["deny", 0]] as const) {
    it(`a person's ${how} is kept, then their tab is closed before it claims the turn: another tab resumes it with no answer needed, and the refund runs ${refunds} more time(s), as the person said`, async () => {
      const db = freshDb();
      const [a, b, c] = [await tabs.open(), await tabs.open(), await tabs.open()];
      const tag = `kept-${how}`;
      if (how === "results" || how === "rerun") {
        await call(a, "send", { db, conversation: "sam", tag: `${tag}-a`, hang: true, lease: { renewMs: 10_000, ttlMs: 60_000 } });
        await until("the refund ran", () => effectsOf(`${tag}-a`) === 1);
        await a.close();
        await until("interrupted", async () => (await call(c, "last", db, "sam"))?.state === "interrupted", 10_000);
      } else {
        expect(await call(a, "send", { db, conversation: "sam", tag: `${tag}-a`, approve: true, lease: { renewMs: 200, ttlMs: 1_000 } }, true)).toMatchObject({ waiting: true });
        await a.close();
      }
      const ran = effectsOf(`${tag}-a`);
      await call(b, "answer", db, "sam", `${tag}-b`, how, 0, true);
      await until("tab B blocked after its answer was kept", () => tabs.told.blocked.has(`${tag}-b`));
      expect(tabs.told.appends.filter((x) => x.tag === `${tag}-b`).flatMap((x) => x.kinds)).not.toContain("lease"); // not claimed yet
      await b.close();
      let last: Last | null = null;
      await until("interrupted or waiting, answered", async () => ["interrupted", "waiting"].includes((last = await call(c, "last", db, "sam"))?.state ?? ""), 10_000);
      expect([last!.unfinished, last!.waiting]).toEqual([[], 0]); // the person's answer stands
      expect(await call(c, "answer", db, "sam", `${tag}-c`, "resume")).toEqual({ ok: "Refunded.", requests: 1 });
      expect([effectsOf(`${tag}-a`), effectsOf(`${tag}-b`), effectsOf(`${tag}-c`)]).toEqual([ran, 0, refunds]);
      expect((await call(c, "last", db, "sam"))?.state).toBe("done");
      await c.close();
    });
  }

  it("a tab reloaded while its refund runs: the reloaded page reads its old turn interrupted, the refund unfinished, and resumes it with its result", async () => {
    const db = freshDb();
    const a = await tabs.open();
    await call(a, "send", { db, conversation: "sam", tag: "reload-a", hang: true, lease: { renewMs: 10_000, ttlMs: 60_000 } });
    await until("the refund ran", () => effectsOf("reload-a") === 1);
    await a.reload();
    await a.waitForFunction(() => (globalThis as { hunt2?: unknown }).hunt2 !== undefined);
    let last: Last | null = null;
    await until("interrupted after the reload", async () => (last = await call(a, "last", db, "sam"))?.state === "interrupted", 10_000);
    expect(last!.unfinished).toEqual([["refund", 1]]);
    expect(await call(a, "answer", db, "sam", "reload-a2", "results")).toEqual({ ok: "Refunded.", requests: 1 });
    expect([effectsOf("reload-a"), effectsOf("reload-a2")]).toEqual([1, 0]);
    await a.close();
  });

  /** Two tabs answer one waiting turn in the same instant, `rounds` times; returns each round's outcomes and refunds run. */
  async function race(how: ["approve" | "abandon" | "deny", "approve" | "abandon" | "deny"], rounds: number) {
    const [a, b, c] = [await tabs.open(), await tabs.open(), await tabs.open()];
    const db = freshDb();
    const seen: { outcomes: Outcome[]; refunds: number; state: string }[] = [];
    const winners: string[] = [];
    for (let i = 0; i < rounds; i++) {
      const conv = `race-${how.join("-")}-${i}`;
      const waiting = await call(a, "send", { db, conversation: conv, tag: `${conv}-a`, approve: true, lease: { renewMs: 200, ttlMs: 2_000 } }, true);
      expect(waiting?.waiting).toBe(true);
      const tags = [`${conv}-b`, `${conv}-c`];
      const at = Date.now() + 300;
      const outcomes = await Promise.all([call(b, "answer", db, conv, tags[0]!, how[0], at), call(c, "answer", db, conv, tags[1]!, how[1], at)]);
      const state = (await call(a, "last", db, conv))!.state;
      const refunds = effectsOf(tags[0]!) + effectsOf(tags[1]!) + effectsOf(`${conv}-a`);
      seen.push({ outcomes, refunds, state });
      winners.push(outcomes[0]!.error === undefined ? how[0] : how[1]);
    }
    await Promise.all([a.close(), b.close(), c.close()]);
    console.log(`${how.join(" vs ")}: won ${winners.join(", ")}`);
    return seen;
  }

  it("approve and abandon at the same instant from two tabs, 6 times: one answer stands; the refund ran once exactly when the turn is done, never when abandoned", async () => {
    for (const { outcomes, refunds, state } of await race(["approve", "abandon"], 6)) {
      const won = outcomes.filter((o) => o.error === undefined);
      expect(won).toHaveLength(1);
      expect(outcomes.find((o) => o.error !== undefined)!.error).toMatch(ANSWERED);
      if (won[0] === outcomes[0]) expect([state, refunds, won[0]!.ok]).toEqual(["done", 1, "Refunded."]);
      else expect([state, refunds]).toEqual(["abandoned", 0]);
    }
  });

  it("approve and deny at the same instant from two tabs, 6 times: one answer stands; the refund ran once exactly when approved", async () => {
    for (const { outcomes, refunds, state } of await race(["approve", "deny"], 6)) {
      const won = outcomes.filter((o) => o.error === undefined);
      expect(won).toHaveLength(1);
      expect(outcomes.find((o) => o.error !== undefined)!.error).toMatch(ANSWERED);
      expect(state).toBe("done");
      expect(refunds).toBe(won[0] === outcomes[0] ? 1 : 0);
    }
  });

  it("results and rerun at the same instant from two tabs, on a turn whose tab closed mid-refund, 5 times: one answer stands; the refund runs again exactly when the rerun stood", async () => {
    const [b, c] = [await tabs.open(), await tabs.open()];
    const db = freshDb();
    const rrWinners: string[] = [];
    for (let i = 0; i < 5; i++) {
      const conv = `rr-${i}`;
      const a = await tabs.open();
      await call(a, "send", { db, conversation: conv, tag: `${conv}-a`, hang: true, lease: { renewMs: 10_000, ttlMs: 60_000 } });
      await until("the refund ran", () => effectsOf(`${conv}-a`) === 1);
      await a.close();
      await until("interrupted", async () => (await call(b, "last", db, conv))?.state === "interrupted", 10_000);
      const at = Date.now() + 300;
      const outcomes = await Promise.all([call(b, "answer", db, conv, `${conv}-b`, "results", at), call(c, "answer", db, conv, `${conv}-c`, "rerun", at)]);
      const won = outcomes.filter((o) => o.error === undefined);
      expect(won, JSON.stringify(outcomes)).toHaveLength(1);
      rrWinners.push(won[0] === outcomes[0] ? "results" : "rerun");
      expect(outcomes.find((o) => o.error !== undefined)!.error).toMatch(ANSWERED);
      expect(effectsOf(`${conv}-b`)).toBe(0);
      expect(effectsOf(`${conv}-c`)).toBe(won[0] === outcomes[1] ? 1 : 0);
      expect((await call(b, "last", db, conv))!.state).toBe("done");
    }
    console.log(`results vs rerun: won ${rrWinners.join(", ")}`);
    await Promise.all([b.close(), c.close()]);
  });

  it("a tab reads a conversation while another appends batches of 2 000 records: every read sees whole batches", async () => {
    const db = freshDb();
    const [a, b] = [await tabs.open(), await tabs.open()];
    await call(a, "appendMany", db, "big", 1, "seed"); // the database exists before the reader starts
    const reading = call(b, "readLoop", db, "big", 4_000);
    let n = 1;
    for (let i = 0; i < 6; i++) n = await call(a, "appendMany", db, "big", 2_000, `batch-${i}`);
    const seen = await reading;
    expect(n).toBe(12_001);
    expect(seen.length).toBeGreaterThan(2);
    expect(seen.filter((len) => (len - 1) % 2_000 !== 0)).toEqual([]);
    expect(new Set(seen).size).toBeGreaterThan(1); // it saw the batches arrive
    await Promise.all([a.close(), b.close()]);
  });
});
