/**
 * Hunt 10 (scale): two `serve`s on one PostgreSQL database, many
 * companions on each, answering turns at once; a server whose database is
 * slow racing the other for one turn; and requests through B about a turn
 * A is running. Conversation ids at the limit (200 characters, dots, dashes).
 */
import { describe, expect, it } from "vitest";
import { postgresStore } from "../../adapters/postgres/index.js";
import { connect, serve } from "../../adapters/websocket/index.js";
import { readConversation } from "../../src/index.js";
import type { Store } from "../../src/store/types.js";
import type { ConversationRecord } from "../../src/records/types.js";
import { keeper } from "../websocket/fixtures.js";
import { answered, bigDesk, bulk, DONE, idsOf, LONG_ID, slowPool } from "./fixtures/hunt10-scale-kit.js";
import { NO_SERVER, SERVER_URL, dropSchema, freshSchema } from "./server.js";

const keep = keeper();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const turnsOf = async (store: Store, id: string) => [...readConversation(await store.read(id), { now: Date.now() }).turns.values()];
const CODES = /^(approval-answered|turn-state|turn-claimed)$/;
/** A's refund call, started: the turn A runs is held in it (by the test's gate). */
const refundStarted = (r: ConversationRecord) => r.kind === "tool" && r.name === "refund" && r.state === "started";

async function database() {
  const schema = freshSchema();
  keep({ close: () => dropSchema(schema).then(() => undefined) });
  const writer = keep(postgresStore({ connectionString: SERVER_URL! }, { schema }));
  await bulk(writer, idsOf("c", 1000));
  return { schema, writer };
}

describe.skipIf(NO_SERVER !== null)("two servers, many companions, one database (PostgreSQL)", () => {
  it("20 companions on each of two servers approve 40 different turns at once: each is replied to with the outcome, each turn ran once and is done", async () => {
    const { schema, writer } = await database();
    const w = bigDesk(60);
    const ids = Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? LONG_ID(`r${i}`) : `r${i}.x-y`));
    for (const id of ids) await w.waitOn(writer, id);
    const dA = bigDesk(60);
    const dB = bigDesk(60);
    const sA = keep(
      await serve({
        store: keep(postgresStore({ connectionString: SERVER_URL! }, { schema })),
        programs: [dA.served],
        keys: ["k1"],
        port: 0,
        pollMs: 50,
      }),
    );
    const sB = keep(
      await serve({
        store: keep(postgresStore({ connectionString: SERVER_URL! }, { schema })),
        programs: [dB.served],
        keys: ["k1"],
        port: 0,
        pollMs: 50,
      }),
    );
    const companions = await Promise.all(ids.map(async (_, i) => keep(await connect((i < 20 ? sA : sB).url, { key: "k1" }))));
    const list = await companions[0]!.waiting();
    expect(list.map((e) => e.conversation).sort()).toEqual([...ids].sort());
    const turnOf = new Map(list.map((e) => [e.conversation, e.turn]));
    // (each server gets turns of both halves of the id list: companion i answers conversation ids[(i * 7) % 40])
    const outcomes = await Promise.allSettled(
      companions.map((c, i) => {
        const id = ids[(i * 7) % 40]!;
        return answered(c.approve({ conversation: id, turn: turnOf.get(id)!, by: `p${i}` }), `approval ${i}`, 30_000);
      }),
    );
    const failed = outcomes.flatMap((o, i) => (o.status === "rejected" ? [`${i}: ${String(o.reason)}`] : []));
    expect(failed).toEqual([]);
    for (const o of outcomes) expect(o).toMatchObject({ status: "fulfilled", value: DONE });
    expect(dA.REFUNDS.length).toBe(20);
    expect(dB.REFUNDS.length).toBe(20);
    for (const id of ids) {
      const turns = await turnsOf(writer, id);
      expect(turns.map((t) => [t.state, t.answers.length])).toEqual([["done", 1]]);
    }
    for (const c of [companions[0]!, companions[39]!]) expect(await c.waiting()).toEqual([]);
  }, 60_000);

  it("approved through A whose database answers each statement 150 ms late, and through B a moment later (0-900 ms): exactly one runs it, the other is refused with a code, both are answered", async () => {
    const { schema, writer } = await database();
    const w = bigDesk(20);
    const offsets = [0, 150, 300, 600, 900];
    const ids = offsets.map((ms) => LONG_ID(`slow${ms}`));
    for (const id of ids) await w.waitOn(writer, id);
    let latency = 0;
    const pool = slowPool(SERVER_URL!, () => latency, 10);
    keep({ close: () => pool.end() });
    const dA = bigDesk(20);
    const dB = bigDesk(20);
    const sA = keep(await serve({ store: keep(postgresStore({ pool }, { schema })), programs: [dA.served], keys: ["k1"], port: 0, pollMs: 100 }));
    const sB = keep(
      await serve({
        store: keep(postgresStore({ connectionString: SERVER_URL! }, { schema })),
        programs: [dB.served],
        keys: ["k1"],
        port: 0,
        pollMs: 100,
      }),
    );
    const cA = keep(await connect(sA.url, { key: "k1" }));
    const cB = keep(await connect(sB.url, { key: "k1" }));
    const turnOf = new Map((await cB.waiting()).map((e) => [e.conversation, e.turn]));
    latency = 150;
    const seen: string[] = [];
    for (const [i, id] of ids.entries()) {
      const ref = { conversation: id, turn: turnOf.get(id)! };
      const before = dA.REFUNDS.length + dB.REFUNDS.length;
      const a = answered(cA.approve({ ...ref, by: "a" }), "A's approval", 20_000);
      await sleep(offsets[i]!);
      const b = answered(cB.approve({ ...ref, by: "b" }), "B's approval", 20_000);
      const [ra, rb] = await Promise.allSettled([a, b]);
      const why = JSON.stringify(
        [ra, rb].map((r) => (r.status === "rejected" ? `${(r.reason as { code?: string }).code}: ${String(r.reason)}` : r.value)),
      );
      const won = [ra, rb].filter((r) => r.status === "fulfilled");
      expect(won, why).toEqual([{ status: "fulfilled", value: DONE }]);
      for (const r of [ra, rb]) if (r.status === "rejected") expect((r.reason as { code?: string }).code, why).toMatch(CODES);
      expect(dA.REFUNDS.length + dB.REFUNDS.length - before, why).toBe(1);
      const turns = await turnsOf(writer, id);
      expect(
        turns.map((t) => [t.state, t.answers.length]),
        why,
      ).toEqual([["done", 1]]);
      seen.push(`${offsets[i]}:${ra.status === "fulfilled" ? "A" : "B"}`);
    }
    expect(seen).toHaveLength(offsets.length);
  }, 60_000);

  it("while A runs an approved turn (held in its refund): status through B reads running, resume, abandon and a second approval through B are refused with a code and write nothing; released, A's companion is told done, the refund ran once", async () => {
    const { schema, writer } = await database();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const w = bigDesk(5);
    const id = LONG_ID("run");
    await w.waitOn(writer, id);
    const dA = bigDesk(5, gate);
    const dB = bigDesk(5);
    const sA = keep(
      await serve({
        store: keep(postgresStore({ connectionString: SERVER_URL! }, { schema })),
        programs: [dA.served],
        keys: ["k1"],
        port: 0,
        pollMs: 50,
      }),
    );
    const sB = keep(
      await serve({
        store: keep(postgresStore({ connectionString: SERVER_URL! }, { schema })),
        programs: [dB.served],
        keys: ["k1"],
        port: 0,
        pollMs: 50,
      }),
    );
    const cA = keep(await connect(sA.url, { key: "k1" }));
    const cB = keep(await connect(sB.url, { key: "k1" }));
    const [entry] = await cB.waiting();
    const ref = { conversation: id, turn: entry!.turn };
    const approved = answered(cA.approve({ ...ref, by: "a" }), "A's approval", 20_000);
    // wait for the state the test means: A held in its refund, i.e. its `started` record written. Status reads running from
    // A's lease record on, a moment before A gets to the refund and writes that record (a count read in between took it for B's)
    const deadline = Date.now() + 15_000;
    let before = await writer.read(id);
    while (!before.some(refundStarted) && Date.now() < deadline) before = (await sleep(25), await writer.read(id));
    expect(before.filter(refundStarted), JSON.stringify(before)).toHaveLength(1);
    const claim = before.filter((r) => r.kind === "lease").at(-1)!;
    expect(await cB.status(ref)).toMatchObject({ state: "running", approvals: [], unfinished: [] });
    const refusals = await Promise.allSettled([
      answered(cB.resume(ref), "B's resume"),
      answered(cB.abandon(ref), "B's abandon"),
      answered(cB.approve({ ...ref, by: "b" }), "B's approval"),
    ]);
    const why = JSON.stringify(
      refusals.map((r) => (r.status === "rejected" ? `${(r.reason as { code?: string }).code}: ${String(r.reason)}` : r.value)),
    );
    expect(
      refusals.map((r) => r.status),
      why,
    ).toEqual(["rejected", "rejected", "rejected"]);
    // (a resume of a turn another host runs is refused turn-claimed, as README says; so is the abandon, which opens the turn first)
    for (const r of refusals) expect((r as PromiseRejectedResult).reason.code, why).toMatch(CODES);
    expect(await cB.status(ref)).toMatchObject({ state: "running", approvals: [], unfinished: [] });
    // nothing written by B: held in its refund, A writes only renewals of its own lease (same holder and attempt; every
    // 10 s, which a loaded machine may reach); B's approval, claim (a newer attempt), abandon or stop would all show here
    const after = await writer.read(id);
    expect(after.slice(0, before.length)).toEqual(before);
    const leaseOf = (r: ConversationRecord) => r as { kind: string; holder?: unknown; attempt?: unknown };
    const renewal = (r: ConversationRecord) =>
      r.kind === "lease" && leaseOf(r).holder === leaseOf(claim).holder && leaseOf(r).attempt === leaseOf(claim).attempt;
    expect(
      after.slice(before.length).filter((r) => !renewal(r)),
      JSON.stringify(after.slice(before.length)),
    ).toEqual([]);
    expect(dA.REFUNDS).toHaveLength(0);
    release();
    expect(await approved).toBe(DONE);
    expect(await cB.status(ref)).toMatchObject({ state: "done", value: DONE });
    expect(dA.REFUNDS.length + dB.REFUNDS.length).toBe(1);
    expect((await turnsOf(writer, id)).map((t) => [t.state, t.answers.length])).toEqual([["done", 1]]);
  }, 60_000);
});
