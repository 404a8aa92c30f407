/**
 * Hunt 7, on a real PostgreSQL server: a user's own `pg.Pool` of one client,
 * which the user's code holds (checked out: a transaction of its own, say,
 * around a call of the AI function on the same pool). README ("Many hosts:
 * PostgreSQL", Errors: "connecting gives up after 10 s, never hangs") is the
 * contract. (The same pool busy with a query that ends is fine:
 * hunt7-edges-pool.test.ts.)
 */
import pg from "pg";
import { describe, expect, it } from "vitest";
import { postgresStore } from "../../adapters/postgres/index.js";
import { rec } from "../store/contract.js";
import { outcome } from "./fixtures/hunt7-edges-desk.js";
import { NO_SERVER, SERVER_URL, dropSchema, freshSchema } from "./server.js";

const url = SERVER_URL ?? "";
const PENDING = "still pending after 13 s";

describe.skipIf(NO_SERVER !== null)("postgresStore on a pool whose only client the user holds", () => {
  // Found by hunt 7 (failed before; fixed by `take` in pg-db.ts, a given pool's connect within CONNECT_TIMEOUT_MS): pg-db.ts:146-151 waits on the given pool's connect() with no deadline (CONNECT_TIMEOUT_MS goes only into
  // the config of the store's own clients and of a pool it makes; a pg.Pool's default connectionTimeoutMillis is 0,
  // wait forever): with every client checked out by the user, the append never settles and nothing says why — a turn
  // run inside the user's own transaction on a pool of one deadlocks silently. Fix: race a given pool's connect()
  // against CONNECT_TIMEOUT_MS and fail store-io naming it ("no client of the given pool was free in 10 s: raise its
  // max, or release the clients your code holds").
  it("the append fails store-io within the 10 s connect limit, naming the pool that has no free client (never waits forever)", async () => {
    const schema = freshSchema();
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    const store = postgresStore({ pool }, { schema });
    const mine = await pool.connect();
    try {
      await mine.query("BEGIN");
      const got = await Promise.race([outcome(store.append("c", [rec()])), new Promise((r) => setTimeout(() => r(PENDING), 13_000).unref())]);
      expect(got).toMatch(/^store-io: .*pool/s);
    } finally {
      await mine.query("ROLLBACK");
      mine.release();
      await store.close();
      await pool.end();
      await dropSchema(schema);
    }
  }, 19_000);

  it("once the user releases the client, the append that waited lands (nothing lost, nothing written twice)", async () => {
    const schema = freshSchema();
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    const store = postgresStore({ pool }, { schema });
    try {
      expect(await store.append("c", [rec("a")])).toBe(1);
      const mine = await pool.connect();
      let landed = false;
      const append = store.append("c", [rec("b"), rec("c")]).then((n) => ((landed = true), n));
      // it can only wait: the pool's only client is the user's
      expect((await mine.query(`SELECT count(*)::int AS n FROM "${schema}".batches`)).rows[0]).toEqual({ n: 1 });
      expect(landed).toBe(false);
      mine.release();
      expect(await append).toBe(3);
      expect((await store.read("c")).map((r) => [r.kind, r.seq])).toEqual([
        ["a", 1],
        ["b", 2],
        ["c", 3],
      ]);
    } finally {
      await store.close();
      await pool.end();
      await dropSchema(schema);
    }
  }, 19_000);
});
