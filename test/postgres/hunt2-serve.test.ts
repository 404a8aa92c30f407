/**
 * Hunt: `serve` on two hosts over one PostgreSQL database (two app servers
 * behind a load balancer, each its own store: its own pool and lock
 * session). One companion answers through server A while another answers
 * the same turn through server B at the same moment (an approval against an
 * abandon, a denial, or a second approval), many times: the refund runs at
 * most once, and only on a yes that stood; each answer gets a reply (an
 * outcome or an error with a code), never silence.
 */
import { afterEach, describe, expect, it } from "vitest";
import { postgresStore } from "../../adapters/postgres/index.js";
import { connect, serve } from "../../adapters/websocket/index.js";
import { readConversation } from "../../src/index.js";
import { waitingDesk } from "../websocket/fixtures.js";
import { NO_SERVER, SERVER_URL, admin, dropSchema, freshSchema } from "./server.js";

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const x of open.splice(0).reverse()) await x.close();
});
const keep = <T extends { close(): Promise<void> }>(x: T): T => (open.push(x), x);

/** `p`'s outcome, or a failure saying it was never answered within `ms` (a reply silently dropped). */
const answered = <T>(p: Promise<T>, what: string, ms = 15_000): Promise<T> =>
  Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`no reply to ${what} within ${ms} ms`)), ms))]);

/**
 * Two app servers on one database: server A's store (on `urlA`) with turns `ids` waiting, server B's on its own
 * store; a companion connected to each.
 */
async function twoServers(urlA: string, schema: string, ids: string[]) {
  const storeA = keep(postgresStore({ connectionString: urlA }, { schema }));
  const storeB = keep(postgresStore({ connectionString: SERVER_URL! }, { schema }));
  const first = await waitingDesk(ids, { store: storeA });
  const second = await waitingDesk([], { store: storeB });
  const s1 = keep(await serve({ store: storeA, programs: [first.served], keys: ["k1"], port: 0 }));
  const s2 = keep(await serve({ store: storeB, programs: [second.served], keys: ["k1"], port: 0 }));
  return { storeA, storeB, first, second, c1: keep(await connect(s1.url, { key: "k1" })), c2: keep(await connect(s2.url, { key: "k1" })) };
}

describe.skipIf(NO_SERVER !== null)("two servers on one database, two people answering one turn at once (PostgreSQL)", () => {
  it("an approval through A against an abandon, a denial or a second approval through B, 12 times: the refund runs once exactly when the yes stood, every answer is replied to", async () => {
    const schema = freshSchema();
    keep({ close: () => dropSchema(schema).then(() => undefined) });
    const ids = Array.from({ length: 12 }, (_, i) => `race-${i}`);
    const { storeA, first, second, c1, c2 } = await twoServers(SERVER_URL!, schema, ids);
    const waiting = await c1.waiting();
    expect(waiting.map((w) => w.conversation).sort()).toEqual([...ids].sort());
    const seen = new Set<string>();
    for (const [i, w] of waiting.entries()) {
      const ref = { conversation: w.conversation, turn: w.turn };
      const before = first.REFUNDS.length + second.REFUNDS.length;
      const other = (["abandon", "deny", "approve"] as const)[i % 3]!;
      const b =
        other === "abandon"
          ? c2.abandon(ref).then(() => "abandoned")
          : Promise.resolve(other === "deny" ? c2.deny({ ...ref, reason: "no", by: "two" }) : c2.approve({ ...ref, by: "two" }));
      const [yes, theirs] = await Promise.allSettled([answered(Promise.resolve(c1.approve({ ...ref, by: "one" })), "A's approval"), answered(b, `B's ${other}`)]);
      for (const s of [yes, theirs]) if (s.status === "rejected") expect((s.reason as { code?: string }).code, String(s.reason)).toMatch(/^(approval-answered|turn-state|turn-claimed)$/);
      expect([yes, theirs].filter((s) => s.status === "fulfilled").length, `${other}: ${JSON.stringify([yes, theirs].map((s) => (s.status === "rejected" ? String(s.reason) : s.value)))}`).toBeGreaterThanOrEqual(1);
      const turn = readConversation(await storeA.read(w.conversation), { now: Date.now() }).turns.get(w.turn)!;
      const ran = first.REFUNDS.length + second.REFUNDS.length - before;
      seen.add(`${other}:${yes.status}/${theirs.status}/${turn.state}`);
      expect(turn.answers.length).toBeLessThanOrEqual(1); // one answer kept, never two
      const yesStood = turn.answers[0]?.verdict === "yes";
      expect(ran, `${other}: ${turn.state}`).toBe(yesStood && turn.state === "done" ? 1 : 0);
      if (turn.state === "abandoned") expect(ran).toBe(0);
      else expect(turn.state).toBe("done");
      // the one whose answer stood is told the turn's outcome, the other an error (a yes kept and then beaten to the claim
      // by an abandon is told turn-state: the turn is abandoned, its yes recorded but never acted on)
      if (yesStood && turn.answers[0]!.by === "one" && turn.state === "done") expect(yes.status, `${other}: ${yes.status === "rejected" ? `${String(yes.reason)} ${(yes.reason as { code?: string }).code}` : ""} / ${theirs.status === "rejected" ? String(theirs.reason) : String(theirs.value)}; ${turn.state}`).toBe("fulfilled");
    }
    expect(seen.size).toBeGreaterThanOrEqual(1);
  }, 60_000);

  it("server A's connections ended by the server while turns wait; then approvals through A and through B at once: each turn runs once, each approval is replied to", async () => {
    const schema = freshSchema();
    keep({ close: () => dropSchema(schema).then(() => undefined) });
    const app = `serve-a-${schema}`;
    const url = new URL(SERVER_URL!);
    url.searchParams.set("application_name", app);
    const ids = Array.from({ length: 6 }, (_, i) => `cut-${i}`);
    const { storeB, first, second, c1, c2 } = await twoServers(url.toString(), schema, ids);
    const waiting = await c1.waiting();
    expect(waiting).toHaveLength(6);
    // every connection of server A's store (its pool, its lock session, its LISTEN) ended by the server
    const ended = await admin<{ ok: boolean }>("SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE application_name = $1", [app]);
    expect(ended.filter((e) => e.ok).length).toBeGreaterThanOrEqual(1);
    for (const w of waiting) {
      const ref = { conversation: w.conversation, turn: w.turn };
      const before = first.REFUNDS.length + second.REFUNDS.length;
      const ends = await Promise.allSettled([
        answered(Promise.resolve(c1.approve({ ...ref, by: "one" })), "A's approval"),
        answered(Promise.resolve(c2.approve({ ...ref, by: "two" })), "B's approval"),
      ]);
      const why = JSON.stringify(ends.map((s) => (s.status === "rejected" ? `${(s.reason as { code?: string }).code}: ${String(s.reason)}` : s.value)));
      for (const s of ends) if (s.status === "rejected") expect((s.reason as { code?: string }).code, why).toMatch(/^(approval-answered|turn-state|turn-claimed|store-io)$/);
      const turn = readConversation(await storeB.read(w.conversation), { now: Date.now() }).turns.get(w.turn)!;
      const ran = first.REFUNDS.length + second.REFUNDS.length - before;
      expect(turn.answers, why).toHaveLength(1);
      if (turn.state === "done") {
        expect(ran, why).toBe(1);
        expect(ends.filter((s) => s.status === "fulfilled"), why).toHaveLength(1);
      } else {
        // a server that could not keep its answer (store-io) leaves the turn to whoever answers next: never run twice
        expect(ran, why).toBe(0);
        expect(["waiting", "interrupted"]).toContain(turn.state);
      }
    }
  }, 60_000);
});
