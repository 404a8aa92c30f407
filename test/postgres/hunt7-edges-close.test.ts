/**
 * Hunt 7, on a real PostgreSQL server: two stores in one process on one
 * schema, one closed while the other waits, holds and appends; close twice;
 * every call after close. The PostgresStore type's `close` ("refuses calls
 * from now on, lets those under way settle (a wait resolves false), then
 * ends the connections the store opened (a pool given to it is left to its
 * owner)") and README ("Many hosts: PostgreSQL") are the contract. Waits
 * after close and close twice on one store are hunt6-list-wait.test.ts's;
 * hold and isHeld after close, server-limits.test.ts's.
 */
import pg from "pg";
import { describe, expect, it } from "vitest";
import { postgresStore } from "../../adapters/postgres/index.js";
import { rec } from "../store/contract.js";
import { outcome, until } from "./fixtures/hunt7-edges-desk.js";
import { NO_SERVER, SERVER_URL, admin, dropSchema, freshSchema } from "./server.js";

const url = SERVER_URL ?? "";
const withApp = (app: string): string => {
  const u = new URL(url);
  u.searchParams.set("application_name", app);
  return u.toString();
};
const backends = async (app: string): Promise<number> =>
  (await admin<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1", [app]))[0]!.n;

describe.skipIf(NO_SERVER !== null)("two stores in one process on one schema", () => {
  it("one closed while the other waits, holds a turn and appends: its own wait ends false; the other's wait wakes, its lock stays, its appends land; its connections end", async () => {
    const schema = freshSchema();
    const appB = `hunt7-b-${Math.random().toString(36).slice(2, 10)}`;
    const a = postgresStore({ connectionString: url }, { schema });
    const b = postgresStore({ connectionString: withApp(appB) }, { schema });
    try {
      expect(await a.append("c", [rec()])).toBe(1);
      expect(await b.append("c", [rec()])).toBe(2);
      const releaseA = await a.liveness!.hold("c", "ta");
      const releaseB = await b.liveness!.hold("c", "tb");
      const waitA = a.wait!("c", 2, 15_000);
      const waitB = b.wait!("c", 2, 15_000);
      const appendsA = Array.from({ length: 20 }, (_, i) => a.append(`d${i % 4}`, [rec()]));
      await until("b listens", async () => (await backends(appB)) >= 2);
      await b.close();
      expect(await waitB).toBe(false);
      expect(await backends(appB)).toBe(0);
      expect(await a.liveness!.isHeld("c", "ta")).toBe(true);
      expect(await a.liveness!.isHeld("c", "tb")).toBe(false); // b's lock went with its session
      expect((await Promise.all(appendsA)).sort((x, y) => x - y)).toEqual([1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5]);
      expect(await a.append("c", [rec("x", { turn: "ta" })])).toBe(3); // fenced by a's lock: still held
      expect(await waitA).toBe(true);
      expect(await outcome(b.append("c", [rec()]))).toMatch(/^store-io: .*closed/);
      releaseA();
      releaseB(); // (after close: a no-op, never an error)
      expect(await a.length!("c")).toBe(3);
    } finally {
      await a.close();
      await b.close();
      await dropSchema(schema);
    }
  }, 20_000);

  it("two stores on one given pool: one closed while the other's appends and wait are out; the other goes on, also after the server ends the pool's idle connections", async () => {
    const schema = freshSchema();
    const app = `hunt7-pool-${Math.random().toString(36).slice(2, 10)}`;
    const pool = new pg.Pool({ connectionString: url, max: 3, application_name: app } as pg.PoolConfig);
    const a = postgresStore({ pool }, { schema });
    const b = postgresStore({ pool }, { schema });
    try {
      expect(await a.append("c", [rec()])).toBe(1);
      expect(await b.append("c", [rec()])).toBe(2);
      const waitB = b.wait!("w", 0, 15_000);
      const appendsB = Array.from({ length: 30 }, (_, i) => b.append(`e${i % 3}`, [rec(), rec()]));
      await a.close();
      expect((await Promise.all(appendsB)).sort((x, y) => x - y)).toEqual(Array.from({ length: 30 }, (_, i) => 2 * (Math.floor(i / 3) + 1)));
      expect(await a.append("w", [rec()]).catch((e: { code?: string }) => e.code)).toBe("store-io");
      expect(pool.listenerCount("error")).toBeGreaterThanOrEqual(1); // b's is still on it
      // the server ends every connection of the pool (and b's own listener and lock session): no unhandled 'error', b goes on
      await admin("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1", [app]);
      await until("the pool's connections are gone", async () => (await backends(app)) === 0);
      expect(await b.append("c", [rec()])).toBe(3);
      const woke = postgresStore({ connectionString: url }, { schema });
      expect(await woke.append("w", [rec()])).toBe(1);
      await woke.close();
      expect(await waitB).toBe(true);
      expect((await b.read("c")).map((r) => r.seq)).toEqual([1, 2, 3]);
    } finally {
      await a.close();
      await b.close();
      await pool.end();
      await dropSchema(schema);
    }
  }, 20_000);
});

describe.skipIf(NO_SERVER !== null)("postgresStore: close", () => {
  it("close before any use opens nothing and makes no schema; close twice at once settles both; every call after close is store-io saying so", async () => {
    const schema = freshSchema();
    const app = `hunt7-c-${Math.random().toString(36).slice(2, 10)}`;
    const store = postgresStore({ connectionString: withApp(app) }, { schema });
    await Promise.all([store.close(), store.close()]);
    await store.close();
    const closed = /^store-io: .*closed/s;
    const calls: [string, () => Promise<unknown>][] = [
      ["append", () => store.append("c", [rec()])],
      ["append expect", () => store.append("c", [rec()], { expect: 0 })],
      ["read", () => store.read("c")],
      ["read after", () => store.read("c", 5)],
      ["scan", () => store.scan!("c", 0, () => undefined)],
      ["length", () => store.length!("c")],
      ["list", () => store.list!()],
      ["wait", () => store.wait!("c", 0, 1_000)],
      ["hold", () => store.liveness!.hold("c", "t")],
      ["isHeld", () => store.liveness!.isHeld("c", "t")],
    ];
    for (const [name, call] of calls) expect(await outcome(call()), name).toMatch(closed);
    expect(await backends(app)).toBe(0);
    expect(await admin("SELECT 1 FROM pg_namespace WHERE nspname = $1", [schema])).toEqual([]);
  }, 20_000);

  it("closed while a read of 8,000 records and a list are out: both settle whole, then close does; calls made after close began are refused", async () => {
    const schema = freshSchema();
    const store = postgresStore({ connectionString: url }, { schema });
    try {
      expect(await store.append("long", Array.from({ length: 8_000 }, (_, i) => rec("r", { i, pad: "x".repeat(200) })))).toBe(8_000);
      const read = store.read("long");
      const list = store.list!();
      const closing = store.close();
      const late = outcome(store.read("long"));
      const [records, ids] = await Promise.all([read, list]);
      expect(records.length).toBe(8_000);
      expect(records.every((r, k) => r.seq === k + 1)).toBe(true);
      expect(ids).toEqual(["long"]);
      await closing;
      expect(await late).toMatch(/^store-io: .*closed/s);
    } finally {
      await store.close();
      await dropSchema(schema);
    }
  }, 20_000);
});
