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
