/**
 * A pool given to the store stays the caller's: a store made per request
 * on one shared pool and closed leaves nothing behind on it (its listeners
 * were never removed: after ten stores Node warned of a leak, and each
 * closed store stayed reachable from the pool), and a pool of one
 * connection serves appends, reads, waits and liveness at once.
 */
import { describe, expect, it } from "vitest";
import pg from "pg";
import { postgresStore } from "../../adapters/postgres/index.js";
import { rec } from "../store/contract.js";
import { NO_SERVER, SERVER_URL, dropSchema, freshSchema } from "./server.js";

const url = SERVER_URL ?? "";

describe.skipIf(NO_SERVER !== null)("postgresStore on a pool given to it", () => {
  it("a closed store leaves no listener on the caller's pool", async () => {
    const schema = freshSchema();
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    const before = { error: pool.listenerCount("error"), connect: pool.listenerCount("connect") };
    for (let i = 0; i < 12; i++) {
      const store = postgresStore({ pool }, { schema });
      expect(await store.append(`c${i}`, [rec()])).toBe(1);
      await store.close();
    }
    expect({ error: pool.listenerCount("error"), connect: pool.listenerCount("connect") }).toEqual(before);
    await pool.end();
    await dropSchema(schema);
  }, 30_000);

  it("a pool of one connection serves a held turn's append, reads, a wait and isHeld at once", async () => {
    const schema = freshSchema();
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    const store = postgresStore({ pool }, { schema });
    const release = await store.liveness!.hold("c", "t1");
    const waiting = store.wait!("d", 0, 10_000);
    const all = Promise.all([
      store.append("c", [{ ...rec(), turn: "t1" }]),
      store.append("d", [rec()]),
      store.read("c"),
      store.liveness!.isHeld("c", "t1"),
      waiting,
    ]);
    const [c, d, read, held, woke] = await all;
    expect([c, d, read.length, held, woke]).toEqual([1, 1, 1, true, true]);
    release();
    await store.close();
    await pool.end();
    await dropSchema(schema);
  }, 30_000);
});

describe.skipIf(NO_SERVER !== null)("postgresStore: a wait whose own statement fails", () => {
  it("rejects with store-io (never resolves false as if it had timed out)", async () => {
    const schema = freshSchema();
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    const store = postgresStore({ pool }, { schema });
    expect(await store.append("c", [rec()])).toBe(1);
    expect(await store.wait!("c", 0, 1_000)).toBe(true); // listening now
    await pool.end(); // the waiter's statement cannot run
    const started = Date.now();
    let outcome: unknown;
    try {
      outcome = await store.wait!("c", 1, 3_000);
    } catch (e) {
      outcome = (e as { code?: unknown }).code;
    }
    expect(outcome).toBe("store-io");
    expect(Date.now() - started).toBeLessThan(2_500);
    await store.close();
    await dropSchema(schema);
  }, 30_000);
});
