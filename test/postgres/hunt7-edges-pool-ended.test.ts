/**
 * Hunt 7, on a real PostgreSQL server: a user's own `pg.Pool` ended by its
 * owner while the store's appends are out, some of them still waiting for a
 * client of the pool. README ("Many hosts: PostgreSQL": "connecting gives up
 * after 10 s, never hangs"; an append is one statement, all or none) and the
 * PostgresStore type's `close` ("lets those under way settle") are the
 * contract. (A pool ended while a turn waits in a tool, no connect pending,
 * is hunt6-close-midturn.test.ts's, and it passes.)
 */
import pg from "pg";
import { describe, expect, it } from "vitest";
import { postgresStore } from "../../adapters/postgres/index.js";
import { rec } from "../store/contract.js";
import { outcome } from "./fixtures/hunt7-edges-desk.js";
import { NO_SERVER, SERVER_URL, admin, dropSchema, freshSchema } from "./server.js";

const url = SERVER_URL ?? "";
const PENDING = Symbol("still pending");
/** `p`, or PENDING once `ms` have passed. */
const within = <T>(p: Promise<T>, ms: number): Promise<T | typeof PENDING> =>
  Promise.race([p, new Promise<typeof PENDING>((r) => setTimeout(() => r(PENDING), ms).unref())]);

describe.skipIf(NO_SERVER !== null)("postgresStore: its given pool ended while appends wait for a client", () => {
  // Found by hunt 7 (failed before; fixed by `take` in pg-db.ts, a given pool's connect within CONNECT_TIMEOUT_MS): the store waits on a given pool's connect() with no deadline of its own (pg-db.ts:146-151: `ready.pool.connect()`,
  // then `connecting(() => pool.connect())`; CONNECT_TIMEOUT_MS is only put in the config of the store's own clients and
  // of a pool it makes). pg-pool's end() never answers the connects it has queued (pg-pool 3.14 _pulseQueue returns
  // when `ending`), so those appends never settle, the appends grouped behind their two lanes never go, and close()
  // — which waits for the calls under way — never settles either. Nothing is written (no half-write), but the host
  // hangs. Fix: race a given pool's connect() against CONNECT_TIMEOUT_MS (store-io naming a pool with no free
  // client, or ended), and let close() fail the calls still waiting for a connection instead of waiting on them.
  it("forty appends out when the owner ends the pool: each settles within the 10 s connect limit (landed at its length, or store-io) and close settles", async () => {
    const schema = freshSchema();
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    const store = postgresStore({ pool }, { schema });
    try {
      for (const c of ["a", "b", "c", "d"]) expect(await store.append(c, [rec(c)])).toBe(1);
      const outs = Array.from({ length: 40 }, (_, i) => outcome(store.append("abcd"[i % 4]!, [rec("x", { i }), rec("y", { i })])));
      await pool.end();
      const settled = await within(Promise.all(outs), 13_000);
      // (whatever happened, nothing was half-written: every batch of two is whole)
      const rows = await admin<{ n: number; whole: boolean }>(
        `SELECT count(*)::int AS n, bool_and(json_array_length(records) = 1 OR json_array_length(records) = 2) AS whole FROM "${schema}".batches`,
      );
      expect(rows[0]!.whole).toBe(true);
      expect(settled).not.toBe(PENDING);
      for (const o of settled as unknown[]) if (typeof o !== "number") expect(o).toMatch(/^store-io: /);
      expect(await within(store.close(), 3_000)).not.toBe(PENDING);
    } finally {
      await within(store.close(), 1_000);
      await dropSchema(schema);
    }
  }, 19_000);
});
