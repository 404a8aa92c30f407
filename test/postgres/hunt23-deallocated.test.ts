/**
 * Hunt 23: a given pool's connections whose prepared statements were let go
 * of (`DEALLOCATE ALL`, or `DISCARD ALL`, which a pool's user may run to
 * reset a connection it hands back). pg still took the store's statements
 * for prepared on them, so every append and read the store sent on such a
 * connection failed, for good: "prepared statement … does not exist"
 * (store-io "see the server's message"), with nothing to do but restart.
 * Such a statement never ran (the server refused its Bind), so it is safe
 * to send again, on a connection that prepares it anew.
 */
import pg from "pg";
import { describe, expect, it } from "vitest";
import { postgresStore } from "../../adapters/postgres/index.js";
import { rec } from "../store/contract.js";
import { NO_SERVER, SERVER_URL, dropSchema, freshSchema } from "./server.js";

const url = SERVER_URL ?? "";

/** Runs `sql` on every connection of `pool` at once (each checked out, so none is left out). */
async function onEveryConnection(pool: pg.Pool, size: number, sql: string): Promise<void> {
  const clients = await Promise.all(Array.from({ length: size }, () => pool.connect()));
  try {
    for (const c of clients) await c.query(sql);
  } finally {
    for (const c of clients) c.release();
  }
}

describe.skipIf(NO_SERVER !== null)("postgresStore on a given pool whose prepared statements were let go of", () => {
  for (const [reset, size] of [
    ["DEALLOCATE ALL", 1],
    ["DISCARD ALL", 1],
    ["DEALLOCATE ALL", 3],
  ] as const) {
    it(`${reset} on each of ${size} connection(s): appends, reads and lengths go on, nothing written twice`, async () => {
      const schema = freshSchema();
      const pool = new pg.Pool({ connectionString: url, max: size });
      const store = postgresStore({ pool }, { schema });
      try {
        // every statement the store prepares, prepared on every connection
        await Promise.all(Array.from({ length: size * 2 }, (_, i) => store.append(`c${i}`, [rec()])));
        await Promise.all(Array.from({ length: size * 2 }, (_, i) => store.read(`c${i}`)));
        expect(await store.append("c0", [rec()], { expect: 1, durable: false })).toBe(2);
        await onEveryConnection(pool, size, reset);
        expect(await store.append("c0", [rec()], { expect: 2 })).toBe(3);
        expect(await store.append("c0", [rec()], { expect: 3, durable: false })).toBe(4);
        expect((await store.read("c0")).map((r) => r.seq)).toEqual([1, 2, 3, 4]);
        expect(await store.length!("c0")).toBe(4);
        const more = await Promise.all(Array.from({ length: size * 2 }, (_, i) => store.append(`c${i}`, [rec()])));
        expect(more).toEqual(Array.from({ length: size * 2 }, (_, i) => (i === 0 ? 5 : 2)));
        expect((await store.read("c1")).map((r) => r.seq)).toEqual([1, 2]);
      } finally {
        await store.close();
        await pool.end();
        await dropSchema(schema);
      }
    }, 20_000);
  }
});
