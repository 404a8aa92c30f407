/**
 * Hunt: several tabs (workers: a thread each, so they truly race; and a
 * same-origin frame) answer one turn at the same wall-clock instant.
 * Exactly one answer may take the turn on; the refund (a changing tool) runs
 * as the winning answer says, never twice; every loser is told with a code
 * and pays no model request.
 */
import { describe, expect, it } from "vitest";
import { type How, type Outcome, type Tab, freshDb, frameTab, gate, tabsUnderTest, told, until, untilInterrupted, workerTab } from "./fixtures/hunt5-tabs.js";

const LOST = /^(turn-claimed|approval-answered|turn-state|store-conflict|lease-lost)$/;
const LONG = { renewMs: 10_000, ttlMs: 60_000 };

const { keep } = tabsUnderTest();

async function tabs(workers: number, frames: number, into = told()) {
  const made = [
    ...(await Promise.all(Array.from({ length: workers }, () => workerTab(into)))),
    ...(await Promise.all(Array.from({ length: frames }, () => frameTab(into)))),
  ].map(keep);
  return { tabs: made, told: into };
}

/** The answers of `answerers`, all given at one instant 300 ms from now. */
const atOnce = (answerers: Tab[], db: string, conv: string, how: How | How[]): Promise<Outcome[]> => {
  const at = Date.now() + 300;
  return Promise.all(answerers.map((x, i) => x.answer(db, conv, `${conv}-${i}`, Array.isArray(how) ? how[i]! : how, at)));
};

function oneWon(outcomes: Outcome[]): Outcome {
  const won = outcomes.filter((o) => o.error === undefined);
  expect(won, JSON.stringify(outcomes)).toHaveLength(1);
  for (const o of outcomes.filter((x) => x.error !== undefined)) {
    expect(o.error, JSON.stringify(o)).toMatch(LOST);
    expect(o.requests).toBe(0); // a loser pays nothing
  }
  return won[0]!;
}

describe("tabs racing to answer one turn", () => {
  it("four tabs approve one waiting turn at the same instant, 5 times: one approval takes it on, the refund runs once, the others are refused with a code", async () => {
    const { tabs: [a, ...answerers], told: t } = await tabs(4, 1);
    const db = freshDb();
    const codes: string[] = [];
    for (let round = 0; round < 5; round++) {
      const conv = `approve-${round}`;
      expect(await a!.send({ db, conversation: conv, tag: `${conv}-a`, approve: true, lease: { renewMs: 200, ttlMs: 2_000 } }, true)).toMatchObject({ waiting: true, requests: 1 });
      const outcomes = await atOnce(answerers, db, conv, "approve");
      expect(oneWon(outcomes)).toEqual({ ok: "Refunded.", requests: 1 });
      codes.push(...outcomes.flatMap((o) => (o.error ? [o.error] : [])));
      expect(t.effects(`${conv}-`)).toBe(1);
      expect((await a!.last(db, conv))?.state).toBe("done");
    }
    console.log(`approve x4: losers told ${[...new Set(codes)].join(", ")}`);
  });

  it("approve, deny, abandon and approve from four tabs at the same instant, 5 times: one answer stands; the refund ran once exactly when an approval won", async () => {
    const { tabs: [a, ...answerers], told: t } = await tabs(4, 1);
    const db = freshDb();
    const hows: How[] = ["approve", "deny", "abandon", "approve"];
    const winners: string[] = [];
    for (let round = 0; round < 5; round++) {
      const conv = `mixed-${round}`;
      expect(await a!.send({ db, conversation: conv, tag: `${conv}-a`, approve: true, lease: { renewMs: 200, ttlMs: 2_000 } }, true)).toMatchObject({ waiting: true });
      const outcomes = await atOnce(answerers, db, conv, hows);
      const won = oneWon(outcomes);
      const how = hows[outcomes.indexOf(won)]!;
      winners.push(how);
      const state = (await a!.last(db, conv))?.state;
      if (how === "approve") expect([state, t.effects(`${conv}-`), won]).toEqual(["done", 1, { ok: "Refunded.", requests: 1 }]);
      if (how === "deny") expect([state, t.effects(`${conv}-`)]).toEqual(["done", 0]);
      if (how === "abandon") expect([state, t.effects(`${conv}-`)]).toEqual(["abandoned", 0]);
    }
    console.log(`approve/deny/abandon/approve: won ${winners.join(", ")}`);
  });

  for (const [how, more] of [["results", 0], ["rerun", 1]] as const) {
    it(`a worker tab terminated inside its refund; four tabs resume the interrupted turn with ${how} at the same instant, 4 times: one goes on, the refund runs ${more} more time(s), the others are refused`, async () => {
      const { tabs: answerers, told: t } = await tabs(3, 1);
      const db = freshDb();
      for (let round = 0; round < 4; round++) {
        const conv = `${how}-${round}`;
        const [a] = (await tabs(1, 0, t)).tabs;
        await a!.send({ db, conversation: conv, tag: `${conv}-a`, hang: true, lease: LONG });
        await until("the refund ran", () => t.effects(`${conv}-a`) === 1);
        a!.kill();
        await untilInterrupted(answerers[0]!, db, conv);
        const outcomes = await atOnce(answerers, db, conv, how);
        expect(oneWon(outcomes)).toEqual({ ok: "Refunded.", requests: 1 });
        expect(t.effects(`${conv}-`)).toBe(1 + more);
        expect((await answerers[1]!.last(db, conv))?.state).toBe("done");
      }
    });
  }

  it("a worker tab terminated in its second model request (the refund done); four tabs resume() at the same instant: one pays one request, the refund never runs again", async () => {
    const { tabs: answerers, told: t } = await tabs(3, 1);
    const db = freshDb();
    for (let round = 0; round < 4; round++) {
      const conv = `reply-${round}`;
      const [a] = (await tabs(1, 0, t)).tabs;
      const g = gate();
      await a!.send({ db, conversation: conv, tag: `${conv}-a`, blockAt: "second-reply", go: g.url, lease: LONG });
      await until("blocked in the second request", () => t.has("blocked", `${conv}-a`));
      a!.kill();
      g.release();
      const last = await untilInterrupted(answerers[0]!, db, conv);
      expect(last.unfinished).toEqual([]); // the refund's done record was kept with the request that followed it
      const outcomes = await atOnce(answerers, db, conv, "resume");
      expect(oneWon(outcomes)).toEqual({ ok: "Refunded.", requests: 1 });
      expect(t.effects(`${conv}-`)).toBe(1);
      expect((await answerers[1]!.last(db, conv))?.state).toBe("done");
    }
  });
});
