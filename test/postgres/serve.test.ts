/**
 * `serve` over the Postgres store: two WebSocket servers (two app servers
 * behind a load balancer) on one database. Each lists every waiting turn,
 * whichever server made it; an approval through either runs the turn once.
 */
import { afterEach, describe, expect, it } from "vitest";
import { postgresStore } from "../../adapters/postgres/index.js";
import { connect, serve } from "../../adapters/websocket/index.js";
import { readConversation } from "../../src/index.js";
import { waitingDesk } from "../websocket/fixtures.js";
import { NO_SERVER, SERVER_URL, dropSchema, freshSchema } from "./server.js";

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const x of open.splice(0).reverse()) await x.close();
});
const keep = <T extends { close(): Promise<void> }>(x: T): T => (open.push(x), x);

describe.skipIf(NO_SERVER !== null)("serve over a Postgres store", () => {
  it("two servers on one database both list every waiting turn; an approval through either runs it once", async () => {
    const schema = freshSchema();
    keep({ close: () => dropSchema(schema).then(() => undefined) }); // last, once the servers are closed
    const storeA = keep(postgresStore({ connectionString: SERVER_URL! }, { schema }));
    const storeB = keep(postgresStore({ connectionString: SERVER_URL! }, { schema }));
    // turns made waiting on both "app servers"
    const first = await waitingDesk(["a1", "a2", "a3"], { store: storeA });
    const second = await waitingDesk(["b1", "b2"], { store: storeB });
    const s1 = keep(await serve({ store: storeA, programs: [first.served], keys: ["k1"], port: 0 }));
    const s2 = keep(await serve({ store: storeB, programs: [second.served], keys: ["k1"], port: 0 }));
    const c1 = keep(await connect(s1.url, { key: "k1" }));
    const c2 = keep(await connect(s2.url, { key: "k1" }));
    const names = (list: { conversation: string }[]) => list.map((w) => w.conversation).sort();
    expect(names(await c1.waiting())).toEqual(["a1", "a2", "a3", "b1", "b2"]);
    expect(names(await c2.waiting())).toEqual(["a1", "a2", "a3", "b1", "b2"]);
    // both companions answer every turn at once, through different servers: one answer is kept per turn
    for (const w of await c1.waiting()) {
      const ref = { conversation: w.conversation, turn: w.turn };
      const results = await Promise.allSettled([Promise.resolve(c1.approve({ ...ref, by: "one" })), Promise.resolve(c2.approve({ ...ref, by: "two" }))]);
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
      expect(results.find((r): r is PromiseRejectedResult => r.status === "rejected")!.reason).toMatchObject({ code: "approval-answered" });
      const turn = readConversation(await storeA.read(w.conversation), { now: Date.now() }).turns.get(w.turn)!;
      expect(turn.state).toBe("done");
      expect(turn.answers).toHaveLength(1);
    }
    expect(first.REFUNDS.length + second.REFUNDS.length).toBe(5); // once per turn, in whichever server ran it
    await until(async () => (await c2.waiting()).length === 0);
    expect(await c1.waiting()).toEqual([]);
  });
});

async function until(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200 && !(await check()); i++) await new Promise((r) => setTimeout(r, 50));
}
