/**
 * Hunt 23: a given pool's connection that its user handed back in the middle
 * of a transaction (node-postgres's classic slip: an error between BEGIN and
 * COMMIT, and `client.release()` in a finally with no ROLLBACK). The store
 * sent its append on it as on any other: the append ran inside the user's
 * open transaction and resolved with its length, "durable", while no other
 * connection saw it (and the user's later ROLLBACK, or the connection's
 * loss, would take it away). On a connection whose transaction had failed,
 * every statement of the store failed for good ("current transaction is
 * aborted"). Such a connection is not the store's to use: it is dropped
 * (the pool opens another), and the statement goes on another connection.
 */
import pg from "pg";
import { describe, expect, it } from "vitest";
import { postgresStore } from "../../adapters/postgres/index.js";
import { rec } from "../store/contract.js";
import { NO_SERVER, SERVER_URL, dropSchema, freshSchema } from "./server.js";

const url = SERVER_URL ?? "";

/** Hands a connection of `pool` back inside a transaction: open ("T"), or failed ("E"). */
async function leftInTransaction(pool: pg.Pool, failed: boolean): Promise<void> {
  const client = await pool.connect();
  await client.query("BEGIN");
  if (failed) await client.query("SELECT 1/0").catch(() => undefined);
  client.release();
}

describe.skipIf(NO_SERVER !== null)("postgresStore on a given pool whose connection was handed back inside a transaction", () => {
  for (const failed of [false, true]) {
    it(`${failed ? "a failed" : "an open"} transaction: the append commits on its own (another store sees it at once), and reads go on`, async () => {
      const schema = freshSchema();
      const pool = new pg.Pool({ connectionString: url, max: 1 });
      const store = postgresStore({ pool }, { schema });
      const other = postgresStore({ connectionString: url }, { schema });
      try {
        expect(await store.append("c", [rec()])).toBe(1); // (the tables made first)
        await leftInTransaction(pool, failed);
        expect(await store.append("c", [rec()], { expect: 1 })).toBe(2);
        expect((await other.read("c")).map((r) => r.seq)).toEqual([1, 2]); // committed: seen by another connection
        await leftInTransaction(pool, failed);
        expect((await store.read("c")).map((r) => r.seq)).toEqual([1, 2]);
        await leftInTransaction(pool, failed);
        expect(await store.length!("c")).toBe(2);
        await leftInTransaction(pool, failed);
        expect(await store.append("c", [rec()], { expect: 2, durable: false })).toBe(3);
        expect(await other.length!("c")).toBe(3);
      } finally {
        await store.close();
        await other.close();
        await pool.end();
        await dropSchema(schema);
      }
    }, 20_000);
  }
});
