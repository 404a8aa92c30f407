/**
 * Hunt, on a real PostgreSQL server (FUNCTAI_TEST_PG): a host that stops
 * dead (its event loop blocked) while the server ends its connections (a
 * network partition), so another host takes its turn over at once (its
 * advisory lock is gone), then the first wakes; and people racing on one
 * turn from two hosts (each a store of its own: its own pool and lock
 * session): an approval against an abandon, two resumes that say different
 * things of the same unfinished refund.
 */
import { existsSync, writeFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { postgresStore } from "../../adapters/postgres/index.js";
import { Waiting } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { NO_SERVER, SERVER_URL, admin, dropSchema, freshSchema } from "../postgres/server.js";
import { hereDesk, paths, refunds, startBlockChild, until } from "./fixtures/hunt-block.js";
import { removeBundles } from "./fixtures/spawn.js";

afterAll(removeBundles);
const LEASE = { renewMs: 10_000, ttlMs: 30_000 }; // never runs out here: only the advisory lock tells who lives
const CALL = { toolCalls: [{ id: "r", name: "refund", input: { order: "A-1" } }] };

const store = (schema: string) => postgresStore({ connectionString: SERVER_URL! }, { schema });
const recordsOf = async (schema: string, conversation: string) =>
  (await admin<{ record: string }>(`SELECT record::text AS record FROM "${schema}".records WHERE conversation = $1 ORDER BY seq`, [conversation])).map(
    (r) => JSON.parse(r.record) as Record<string, unknown>,
  );
/** Ends every connection of the host named `app` (the server side of a network partition). */
const cutOff = (app: string) => admin("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1", [app]);

describe.skipIf(NO_SERVER !== null)("a host that stops dead while its connections are cut, then wakes (PostgreSQL)", () => {
  // As on the file store (hunt-pause-window.test.ts), and harder: a lease's time is not what lets another host claim
  // (the lock is), so the woken holder learns of the loss from its lock session's own events, read after the write,
  // and a lock taken again renews the lease, which finds the other host's claim (0194991). Before, it ran the refund again.
  it("stopped just after its refund's started record committed, its connections cut: woken after another host reran the refund, it runs it no more", async () => {
    await stoppedAndCut("started", async (chat, lm, effects) => {
      const [turn] = await chat.turns();
      expect(turn!.unfinished.map((u) => u.name)).toEqual(["refund"]);
      expect(refunds(effects)).toEqual([]);
      expect(await turn!.resume({ rerun: [1] })).toBe("Refunded.");
      expect(lm.requests).toHaveLength(1);
      expect(refunds(effects)).toHaveLength(1);
    }, ["Refunded."]);
  });

  it("stopped with the model's reply in hand, its connections cut: woken, it writes nothing and runs nothing", async () => {
    await stoppedAndCut("reply", async (chat, lm) => {
      const [turn] = await chat.turns();
      expect(turn!.unfinished).toEqual([]);
      expect(await turn!.resume()).toBe("Refunded.");
      expect(lm.requests).toHaveLength(2); // the reply in flight there, asked again (allowed), and the answer
    }, [CALL, "Refunded."]);
  });
});

/**
 * A child host that stops dead at `blockAt`, its connections cut by the
 * server; `here` (this process) finds the turn interrupted and goes on with
 * it in `takeOver`; then the child wakes: it must end without a record more,
 * and the refund must have run once in all.
 */
async function stoppedAndCut(
  blockAt: "started" | "reply",
  takeOver: (chat: ReturnType<ReturnType<typeof hereDesk>["conversation"]>, lm: ReturnType<typeof scripted>, effects: string) => Promise<void>,
  replies: Parameters<typeof scripted>[0],
): Promise<void> {
  const schema = freshSchema();
  const p = paths();
  const app = `hunt-${schema}`;
  const child = await startBlockChild({ pg: { url: SERVER_URL!, schema, app }, conversation: "w", blockAt, blocked: p.blocked, go: p.go, effects: p.effects, lease: LEASE }, false);
  const here = store(schema);
  try {
    await until(`the child stopped (${blockAt})`, () => existsSync(p.blocked));
    await cutOff(app);
    const lm = scripted(replies);
    const chat = hereDesk(p.effects).conversation("w", { store: here, lm, lease: LEASE });
    await until("the turn reads interrupted (its lock went with its session)", async () => (await chat.turns())[0]?.state === "interrupted");
    await takeOver(chat, lm, p.effects);
    const length = (await recordsOf(schema, "w")).length;
    writeFileSync(p.go, "");
    const end = await child.done;
    expect(end.out?.error, `${JSON.stringify(end.out)} ${end.stderr}`).toMatch(/^(lease-lost|turn-claimed|store-io)$/);
    expect((await recordsOf(schema, "w")).length).toBe(length);
    expect(refunds(p.effects)).toHaveLength(1);
  } finally {
    child.proc.kill("SIGKILL");
    await here.close();
    await dropSchema(schema);
  }
}

describe.skipIf(NO_SERVER !== null)("people racing on one turn from two hosts (PostgreSQL)", () => {
  it("an approval and an abandon at once, 8 times: one wins each time; the refund ran once exactly when the turn is done, never when abandoned", async () => {
    const schema = freshSchema();
    const effects = paths().effects;
    const [a, b, c] = [store(schema), store(schema), store(schema)];
    try {
      const outcomes = new Set<string>();
      for (let i = 0; i < 8; i++) {
        const id = `race-${i}`;
        const before = refunds(effects).length;
        await expect(hereDesk(effects).conversation(id, { store: a, lm: scripted([CALL]), approve: ["refund"] }).send({ request: "Refund A-1." })).rejects.toBeInstanceOf(Waiting);
        const lmB = scripted(["Refunded."]);
        const [tb] = await hereDesk(effects).conversation(id, { store: b, lm: lmB }).turns();
        const [tc] = await hereDesk(effects).conversation(id, { store: c, lm: scripted([]) }).turns();
        const [approved, abandoned] = await Promise.allSettled([tb!.approve({ by: "b" }), tc!.abandon()]);
        const [final] = await hereDesk(effects).conversation(id, { store: a }).turns();
        const ran = refunds(effects).length - before;
        outcomes.add(`${approved.status}/${abandoned.status}/${final!.state}`);
        if (final!.state === "abandoned") {
          expect(ran).toBe(0);
          expect(approved.status).toBe("rejected");
          expect(lmB.requests).toHaveLength(0);
        } else {
          expect(final!.state).toBe("done");
          expect(approved).toMatchObject({ status: "fulfilled", value: "Refunded." });
          expect(abandoned.status).toBe("rejected");
          expect(ran).toBe(1);
        }
        if (approved.status === "rejected") expect((approved.reason as { code?: string }).code).toMatch(/^(turn-state|turn-claimed|approval-answered)$/);
        if (abandoned.status === "rejected") expect((abandoned.reason as { code?: string }).code).toMatch(/^(turn-state|turn-claimed)$/);
      }
      expect(outcomes.size).toBeGreaterThanOrEqual(1);
    } finally {
      await Promise.all([a.close(), b.close(), c.close()]);
      await dropSchema(schema);
    }
  });

  it("two hosts resume one interrupted turn at once, one saying the refund ran (its result), one asking for a rerun: one answer is kept, and the refund runs exactly when a rerun was kept", async () => {
    const schema = freshSchema();
    const [a, b] = [store(schema), store(schema)];
    try {
      for (let i = 0; i < 4; i++) {
        const p = paths();
        const id = `both-${i}`;
        // a host stops for good just after its refund's started record (killed): the turn reads interrupted, the refund unfinished
        const child = await startBlockChild({ pg: { url: SERVER_URL!, schema, app: `dead-${i}` }, conversation: id, blockAt: "started", blocked: p.blocked, go: p.go, effects: p.effects, lease: LEASE }, false);
        await until("the child stopped after its started record", () => existsSync(p.blocked));
        child.proc.kill("SIGKILL");
        await child.done;
        const lmA = scripted(["Refunded (given)."]);
        const lmB = scripted(["Refunded (rerun)."]);
        const chatA = hereDesk(p.effects).conversation(id, { store: a, lm: lmA, lease: LEASE });
        const chatB = hereDesk(p.effects).conversation(id, { store: b, lm: lmB, lease: LEASE });
        await until("the turn reads interrupted", async () => (await chatA.turns())[0]?.state === "interrupted");
        const [ta] = await chatA.turns();
        const [tb] = await chatB.turns();
        const ends = await Promise.allSettled([ta!.resume({ results: { 1: "refunded by hand" } }), tb!.resume({ rerun: [1] })]);
        const won = ends.filter((e) => e.status === "fulfilled");
        expect(won, JSON.stringify(ends.map((e) => (e.status === "rejected" ? String(e.reason) : e.value)))).toHaveLength(1);
        for (const e of ends) if (e.status === "rejected") expect((e.reason as { code?: string }).code).toMatch(/^(turn-claimed|turn-state)$/);
        const records = await recordsOf(schema, id);
        const answers = records.filter((r) => r["kind"] === "tool" && (r["state"] === "given" || r["state"] === "rerun"));
        expect(answers).toHaveLength(1); // one person's word is kept, never both
        // and the resume that goes on is the one whose word was kept (the other is told: turn-state or turn-claimed)
        expect((won[0] as PromiseFulfilledResult<string>).value).toBe(answers[0]!["state"] === "rerun" ? "Refunded (rerun)." : "Refunded (given).");
        expect(refunds(p.effects)).toHaveLength(answers[0]!["state"] === "rerun" ? 1 : 0);
        expect(lmA.requests.length + lmB.requests.length).toBe(1); // the refund call's reply came from the journal; one answer paid
        expect(records.filter((r) => r["kind"] === "ended")).toHaveLength(1);
      }
    } finally {
      await Promise.all([a.close(), b.close()]);
      await dropSchema(schema);
    }
  });
});
