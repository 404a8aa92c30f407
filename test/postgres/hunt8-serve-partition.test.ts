/**
 * Hunt 8, `serve` on two hosts over one PostgreSQL database, server A's
 * database connections through a TCP proxy (fixtures/hunt7-proxy.ts) that
 * cuts or freezes them at the approval record's append. README "Remote
 * approval over WebSocket" (an approve by its id, retried, is refused
 * `approval-answered` once the first got through) and "Many hosts:
 * PostgreSQL" (an approval through any server runs the turn once; a group
 * whose outcome is unknown fails with that error, never sent twice);
 * serve's `answeredGraceMs` (a turn answered but not run on is listed for a
 * resume). The companion must hear a coded reply, never silence, and the
 * refund must run once.
 */
import { describe, expect, it } from "vitest";
import { postgresStore } from "../../adapters/postgres/index.js";
import { connect, serve, type WaitingEntry } from "../../adapters/websocket/index.js";
import { readConversation } from "../../src/index.js";
import { keeper, waitingDesk } from "../websocket/fixtures.js";
import { hunt7Proxy } from "./fixtures/hunt7-proxy.js";
import { until } from "./fixtures/hunt7-net-desk.js";
import { NO_SERVER, SERVER_URL, dropSchema, freshSchema } from "./server.js";

const keep = keeper();
const DONE = "The last tool said: refunded 39.00 for A-1042";
const isApproval = (text: string): boolean => text.includes('"kind":"approval"') || text.includes('"kind": "approval"');

/** "sam" waiting; server A on a store through the proxy, server B straight to the server; a companion on each. */
async function setup() {
  const schema = freshSchema();
  keep({ close: () => dropSchema(schema).then(() => undefined) });
  const via = await hunt7Proxy(SERVER_URL!, { application_name: `hunt8-pa-${schema}` });
  const maker = keep(postgresStore({ connectionString: SERVER_URL! }, { schema }));
  await waitingDesk(["sam"], { store: maker });
  const storeA = keep(postgresStore({ connectionString: via.url }, { schema }));
  keep(via); // closed before storeA: a frozen connection would hold the store's close up
  const storeB = keep(postgresStore({ connectionString: SERVER_URL! }, { schema }));
  const a = await waitingDesk([], { store: storeA });
  const b = await waitingDesk([], { store: storeB });
  const serverA = keep(await serve({ store: storeA, programs: [a.served], keys: ["k1"], port: 0, pollMs: 50 }));
  const serverB = keep(await serve({ store: storeB, programs: [b.served], keys: ["k1"], port: 0, pollMs: 50, answeredGraceMs: 500 }));
  const cA = keep(await connect(serverA.url, { key: "k1" }));
  const cB = keep(await connect(serverB.url, { key: "k1" }));
  const lists: WaitingEntry[][] = [];
  cB.on("waiting", (l) => lists.push(l));
  const [w] = await cA.waiting();
  expect(w).toMatchObject({ conversation: "sam", state: "waiting" });
  const ref = { conversation: "sam", turn: w!.turn };
  const id = w!.approvals[0]!.id;
  const turnOf = async () => readConversation(await storeB.read("sam"), { now: Date.now() }).turns.get(ref.turn)!;
  const refunds = () => a.REFUNDS.length + b.REFUNDS.length;
  return { via, a, b, cA, cB, lists, ref, id, turnOf, refunds };
}

/** How a request came out: `ok <value>` or `error <code>`. */
const outcome = (p: PromiseLike<unknown>): Promise<string> => Promise.resolve(p).then((v) => `ok ${String(v)}`, (e: { code?: string }) => `error ${e.code ?? String(e)}`);

describe.skipIf(NO_SERVER !== null)("serve on two hosts, server A's database connection cut or frozen at the approval's append (PostgreSQL)", () => {
  it("cut right after the approval's append committed: A's companion hears store-io; its retry by id is refused approval-answered; B lists the turn for a resume after the grace; resumed through B it runs once", async () => {
    const { via, a, cA, cB, lists, ref, id, turnOf, refunds } = await setup();
    const cut = via.when(isApproval, (l) => l.cutReply());
    const first = await outcome(cA.approve({ ...ref, id, by: "maria" }));
    const link = await cut;
    expect(link.replyCut).toBe(true);
    expect(first).toBe("error store-io");
    const turn = await turnOf();
    expect(turn.answers.map((x) => [x.verdict, x.by])).toEqual([["yes", "maria"]]); // it committed
    expect(turn.state).toBe("waiting");
    expect(a.REFUNDS).toHaveLength(0);
    // the retry a companion makes after a store error: by its id, refused, never a second answer
    expect(await outcome(cA.approve({ ...ref, id, by: "maria" }))).toBe("error approval-answered");
    // B offers it for a resume once the grace (500 ms) passed: interrupted, nothing unfinished
    await until("B pushes it for a resume", () => lists.some((l) => l.some((e) => e.turn === ref.turn && e.state === "interrupted")), 15_000);
    expect((await cB.waiting()).find((e) => e.turn === ref.turn)).toMatchObject({ state: "interrupted", approvals: [], unfinished: [] });
    expect(await cB.resume(ref)).toBe(DONE);
    expect(refunds()).toBe(1);
    expect((await turnOf()).state).toBe("done");
    await until("B's list is empty", async () => (await cB.waiting()).length === 0);
  }, 60_000);

  it("A's connections all frozen right after the approval's append was sent (it commits, A hears nothing): B runs the answered turn on; healed, A's companion is told a coded end, never done; the refund ran once, in B", async () => {
    const { via, a, b, cA, cB, ref, id, turnOf, refunds } = await setup();
    const frozen = via.when(isApproval, () => via.partition());
    const first = outcome(cA.approve({ ...ref, id, by: "maria" }));
    await frozen;
    await until("the answer is committed", async () => (await turnOf()).answers.length === 1);
    // through B: a second yes is refused; a resume goes on with the answered turn there
    expect(await outcome(cB.approve({ ...ref, id, by: "other" }))).toBe("error approval-answered");
    expect(await outcome(cB.resume(ref))).toBe(`ok ${DONE}`);
    expect(b.REFUNDS).toHaveLength(1);
    via.heal();
    const end = await Promise.race([first, new Promise<string>((r) => setTimeout(() => r("silence"), 20_000))]);
    expect(end).toMatch(/^error (turn-state|turn-claimed|approval-answered|lease-lost)$/);
    expect(a.REFUNDS).toHaveLength(0);
    expect(refunds()).toBe(1);
    const turn = await turnOf();
    expect(turn.state).toBe("done");
    expect(turn.answers).toHaveLength(1);
    expect(await cB.status(ref)).toMatchObject({ state: "done", value: DONE });
  }, 60_000);

  it("A partitioned before the approval reaches the database: B still lists it waiting (nothing committed) and A's companion is answered once healed; the turn runs once, in A", async () => {
    const { via, a, b, cA, cB, ref, id, turnOf } = await setup();
    const sent = (): number => via.links.reduce((n, l) => n + l.sent.length, 0);
    via.partition();
    const before = sent();
    const first = outcome(cA.approve({ ...ref, id, by: "maria" }));
    await until("A's request is held in the partition", () => sent() > before);
    await new Promise((r) => setTimeout(r, 1_000)); // (a partition of a second: nothing can be awaited, nothing gets through)
    expect((await turnOf()).answers).toEqual([]);
    expect((await cB.waiting()).find((e) => e.turn === ref.turn)).toMatchObject({ state: "waiting" });
    via.heal();
    expect(await first).toBe(`ok ${DONE}`);
    expect(a.REFUNDS).toHaveLength(1);
    expect(b.REFUNDS).toHaveLength(0);
    expect((await turnOf()).state).toBe("done");
    await until("B's list is empty", async () => (await cB.waiting()).length === 0);
  }, 60_000);
});
