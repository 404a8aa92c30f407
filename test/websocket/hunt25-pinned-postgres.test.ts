/**
 * Two app servers on one PostgreSQL database, each its own store (its own
 * pool and lock session). Two people were shown the refund, through
 * different servers; the second server looks at the store rarely, so its
 * person still sees the refund after the first person's yes let the turn go
 * on to ask for the email. The second person's yes (no approval named) is
 * refused (approval-answered), never taken for the email nobody saw. Then
 * both say yes at the same moment: one is kept. Runs when FUNCTAI_TEST_PG
 * is set.
 */
import { describe, expect, it } from "vitest";
import { postgresStore } from "../../adapters/postgres/index.js";
import { connect, serve } from "../../adapters/websocket/index.js";
import { readConversation } from "../../src/index.js";
import { dropSchema, freshSchema, NO_SERVER, SERVER_URL } from "../postgres/server.js";
import { keeper } from "./fixtures.js";
import { twoStepDesk } from "./fixtures/hunt25-kit.js";

const keep = keeper();
const settle = <T>(p: PromiseLike<T>) =>
  Promise.race([
    Promise.resolve(p).then(
      (v) => ({ v }),
      (e: unknown) => ({ e }),
    ),
    new Promise<"hang">((r) => setTimeout(() => r("hang"), 15_000)),
  ]);

describe.skipIf(NO_SERVER !== null)("two people approving the refund they saw, through two servers on one database (PostgreSQL)", () => {
  it("8 turns, answered one after the other or at once: one yes kept each, the other refused; no email is sent unseen", async () => {
    const schema = freshSchema();
    keep({ close: () => dropSchema(schema).then(() => undefined) });
    const storeA = keep(postgresStore({ connectionString: SERVER_URL! }, { schema }));
    const storeB = keep(postgresStore({ connectionString: SERVER_URL! }, { schema }));
    const ids = Array.from({ length: 8 }, (_, i) => `pin-${i}`);
    const first = await twoStepDesk(ids, { store: storeA });
    const second = await twoStepDesk([], { store: storeB });
    const s1 = keep(await serve({ store: storeA, programs: [first.fn], port: 0 }));
    // (the second server reads the store at its start, and then rarely: what its companion shows lags)
    const s2 = keep(await serve({ store: storeB, programs: [second.fn], port: 0, pollMs: 60_000 }));
    const a = keep(await connect(s1.url));
    const b = keep(await connect(s2.url));
    const shown = await b.waiting();
    expect(shown).toHaveLength(ids.length);
    expect((await a.waiting()).map((w) => w.approvals[0]!.name)).toEqual(ids.map(() => "refund"));
    for (const [i, w] of shown.entries()) {
      const ref = { conversation: w.conversation, turn: w.turn };
      let both: Awaited<ReturnType<typeof settle>>[];
      if (i % 2 === 0) {
        // one after the other: b's person still sees the refund when a's yes was kept
        both = [await settle(a.approve({ ...ref, by: "a" }))];
        expect(b.last.find((x) => x.turn === w.turn)!.approvals.map((x) => x.name)).toEqual(["refund"]);
        both.push(await settle(b.approve({ ...ref, by: "b" })));
      } else both = await Promise.all([settle(a.approve({ ...ref, by: "a" })), settle(b.approve({ ...ref, by: "b" }))]);
      expect(both).not.toContain("hang");
      const codes = both.map((r) => ("e" in (r as object) ? (r as { e: { code: string } }).e.code : "replied"));
      expect(codes.sort()).toEqual(["approval-answered", "turn-waiting"]);
      const turn = readConversation(await storeA.read(w.conversation), { now: Date.now() }).turns.get(w.turn)!;
      expect(turn.answers).toHaveLength(1);
      expect(turn.state).toBe("waiting");
      expect(turn.waiting.map((x) => x.name)).toEqual(["email"]);
    }
    const ran = [...first.RAN, ...second.RAN];
    expect(ran.filter((r) => r.startsWith("refund"))).toHaveLength(ids.length);
    expect(ran.filter((r) => r.startsWith("email"))).toEqual([]);
  }, 60_000);
});
