import { describe, expect, it } from "vitest";
import pg from "pg";
import { SCHEMA_VERSION, postgresStore } from "../../adapters/postgres/index.js";
import { rec, storeContract } from "../store/contract.js";
import { until } from "./fixtures/hosts.js";
import { NO_SERVER, SERVER_URL, admin, dropSchema, freshSchema } from "./server.js";

const url = SERVER_URL ?? "";

describe.skipIf(NO_SERVER !== null)("on a real PostgreSQL server", () => {
  storeContract("postgresStore", async () => {
    const schema = freshSchema();
    return {
      store: postgresStore({ connectionString: url }, { schema }),
      reopen: async () => postgresStore({ connectionString: url }, { schema }),
      cleanup: () => dropSchema(schema).then(() => undefined),
    };
  });

  it("works on the caller's own pool, and leaves it open on close", async () => {
    const schema = freshSchema();
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    const store = postgresStore({ pool }, { schema });
    expect(await store.append("c", [rec(), rec()])).toBe(2);
    await store.close();
    expect((await pool.query("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
    await pool.end();
    await dropSchema(schema);
  });

  it("stores on one pool whose long schema names share their first 35 characters each prepare statements of their own", async () => {
    // PostgreSQL keeps 63 bytes of a prepared statement's name: "functai.append_many_relaxed." and 35 more were one name to it
    const stem = `${freshSchema()}_`.padEnd(53, "x");
    const [one, two] = [`${stem}_1`, `${stem}_2`];
    const pool = new pg.Pool({ connectionString: url, max: 1 }); // one connection: both stores prepare on it
    const named: string[] = [];
    pool.on("connect", (client) => {
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
        const name = (args[0] as { name?: unknown } | null)?.name;
        if (typeof name === "string") named.push(name);
        return query(...args);
      };
    });
    const stores = [postgresStore({ pool }, { schema: one }), postgresStore({ pool }, { schema: two })];
    try {
      for (const [i, store] of stores.entries()) {
        expect(await store.append("c", [rec("x", { i })])).toBe(1);
        expect(await store.append("c", [rec("x", { i })], { durable: false })).toBe(2);
        // grouped, durable and relaxed, and grouped reads (two lanes out, the rest together)
        const ids = ["a", "b", "c", "d"];
        expect(await Promise.all(ids.map((id) => store.append(id, [rec("x", { i })])))).toEqual([1, 1, 3, 1]);
        expect(await Promise.all(ids.map((id) => store.append(id, [rec("x", { i })], { durable: false })))).toEqual([2, 2, 4, 2]);
        const read = await Promise.all(ids.map((id) => store.read(id)));
        expect(read.map((records) => records.map((r) => (r as { i?: unknown }).i))).toEqual([[i, i], [i, i], [i, i, i, i], [i, i]]);
      }
      expect(named.length).toBeGreaterThan(0);
      for (const name of named) expect(Buffer.byteLength(name), name).toBeLessThanOrEqual(63);
    } finally {
      await Promise.all(stores.map((s) => s.close()));
      await pool.end();
      await Promise.all([dropSchema(one), dropSchema(two)]);
    }
  });

  it("close() with calls in flight lets each finish, then ends every connection: nothing waits on the pool's connect timeout", async () => {
    const schema = freshSchema();
    const app = `functai_close_${schema}`;
    const store = postgresStore({ connectionString: `${url}${url.includes("?") ? "&" : "?"}application_name=${app}` }, { schema });
    const first = rec();
    await store.append("c", [first]);
    const started = Date.now();
    const outcomes = await Promise.allSettled([store.append("c", [rec()]), store.read("c", 0), store.length!("c"), store.close()]);
    const shown = outcomes.map((o) => (o.status === "fulfilled" ? o.value : `${(o.reason as { code?: string }).code}: ${(o.reason as Error).message}`));
    expect(shown[0]).toBe(2);
    expect((shown[1] as { seq: number }[]).map((r) => r.seq)).toContain(1);
    expect([1, 2]).toContain(shown[2]);
    expect(shown[3]).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(5_000); // the pool's connect timeout is 10 s
    await expect(store.append("c", [rec()])).rejects.toMatchObject({ code: "store-io", message: expect.stringContaining("closed") });
    expect((await admin(`SELECT count(*)::int AS n FROM "${schema}".batches`))[0]!["n"]).toBe(2); // the append in flight was kept
    // a wait that has not started listening yet when its store is closed: false at once, not at its timeout
    const other = postgresStore({ connectionString: `${url}${url.includes("?") ? "&" : "?"}application_name=${app}` }, { schema });
    await other.length!("c"); // the tables known: the wait goes straight to listening
    const at = Date.now();
    const [woke] = await Promise.all([other.wait!("c", 5, 20_000), other.close()]);
    expect(woke).toBe(false);
    expect(Date.now() - at).toBeLessThan(5_000);
    await until("the store's connections are gone", async () => (await admin("SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1", [app]))[0]!["n"] === 0);
    await dropSchema(schema);
  });

  it("several stores using a fresh schema at once create it once", async () => {
    const schema = freshSchema();
    const stores = Array.from({ length: 6 }, () => postgresStore({ connectionString: url }, { schema }));
    const lengths = await Promise.all(stores.map((s, i) => s.append("c", [rec("x", { i })])));
    expect([...lengths].sort()).toEqual([1, 2, 3, 4, 5, 6]);
    expect(await admin(`SELECT value FROM "${schema}".meta`)).toEqual([{ value: String(SCHEMA_VERSION) }]);
    await Promise.all(stores.map((s) => s.close()));
    await dropSchema(schema);
  });

  it("appends without an expected length racing on new conversations all land (none reads another's new row as a conflict)", async () => {
    const schema = freshSchema();
    const stores = Array.from({ length: 8 }, () => postgresStore({ connectionString: url }, { schema }));
    await stores[0]!.append("warm", [rec()]); // the tables made first: this races appends, not the schema
    for (let round = 0; round < 25; round++) {
      const id = `new-${round}`;
      const lengths = await Promise.all(stores.map((s, i) => s.append(id, [rec("x", { i })])));
      expect([...lengths].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    }
    await Promise.all(stores.map((s) => s.close()));
    await dropSchema(schema);
  });

  it("an append notifies only while some store waits on its conversation (a NOTIFY serializes commits)", async () => {
    const schema = freshSchema();
    const a = postgresStore({ connectionString: url }, { schema });
    const b = postgresStore({ connectionString: url }, { schema });
    await a.append("c", [rec()]);
    const listener = new pg.Client({ connectionString: url });
    await listener.connect();
    const heard: string[] = [];
    listener.on("notification", (n) => heard.push(n.payload ?? ""));
    await listener.query(`LISTEN functai_${schema}`);
    await a.append("c", [rec()]);
    await a.append("other", [rec()]);
    const woke = b.wait!("c", 2, 20_000);
    await until("the waiter is in", async () => (await admin(`SELECT count(*)::int AS n FROM "${schema}".waiters`))[0]!["n"] === 1);
    await a.append("c", [rec()]);
    expect(await woke).toBe(true);
    await until("the waiter took itself out", async () => (await admin(`SELECT count(*)::int AS n FROM "${schema}".waiters`))[0]!["n"] === 0);
    await a.append("c", [rec()]); // nobody waits any more
    await listener.query("SELECT 1"); // notifications sent before this answer have arrived
    expect(heard).toEqual(["c 3"]);
    await listener.end();
    await Promise.all([a.close(), b.close()]);
    await dropSchema(schema);
  });

  it("a committed append is durable and notifies on commit: wait wakes in another store", async () => {
    const schema = freshSchema();
    const a = postgresStore({ connectionString: url }, { schema });
    const b = postgresStore({ connectionString: url }, { schema });
    await a.append("c", [rec()]);
    const woke = b.wait!("c", 1, 20_000);
    await a.append("c", [rec()], { expect: 1 });
    expect(await woke).toBe(true);
    await Promise.all([a.close(), b.close()]);
    await dropSchema(schema);
  });
});
