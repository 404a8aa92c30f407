/**
 * Many waits at once on a small pool, and waits under way when the server
 * terminates the listening connection: every wait wakes for its append,
 * none is lost and none holds a pool connection while it waits.
 */
import pg from "pg";
import { describe, expect, it } from "vitest";
import { postgresStore } from "../../adapters/postgres/index.js";
import { rec } from "../store/contract.js";
import { until } from "./fixtures/hosts.js";
import { NO_SERVER, SERVER_URL, admin, dropSchema, freshSchema } from "./server.js";

const url = SERVER_URL ?? "";

describe.skipIf(NO_SERVER !== null)("many waits at once", () => {
  it("two hundred waits on a pool of two, each woken by its own append", async () => {
    const schema = freshSchema();
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    const store = postgresStore({ pool }, { schema });
    const other = postgresStore({ connectionString: url }, { schema });
    try {
      const ids = Array.from({ length: 200 }, (_, i) => `c${i}`);
      const waits = ids.map((id) => store.wait!(id, 0, 20_000));
      await new Promise((r) => setTimeout(r, 300));
      await Promise.all(ids.map((id) => other.append(id, [rec()])));
      expect(await Promise.all(waits)).toEqual(ids.map(() => true));
      // every waiter takes its row away again (after it answered: polled)
      let left = -1;
      for (let i = 0; i < 100 && left !== 0; i++) {
        left = (await admin<{ n: number }>(`SELECT count(*)::int AS n FROM "${schema}".waiters`))[0]!.n;
        if (left !== 0) await new Promise((r) => setTimeout(r, 50));
      }
      expect(left).toBe(0);
    } finally {
      await other.close();
      await store.close();
      await pool.end();
      await dropSchema(schema);
    }
  }, 60_000);

  it("waits under way when the server terminates the listening connection wake for appends made right after", async () => {
    const schema = freshSchema();
    const store = postgresStore({ connectionString: url }, { schema });
    const other = postgresStore({ connectionString: url }, { schema });
    try {
      const ids = ["a", "b", "c"];
      const waits = ids.map((id) => store.wait!(id, 0, 20_000));
      // (the three under way: each listens, then says in the database that it waits: its waiter row)
      const underWay = () => admin(`SELECT 1 FROM "${schema}".waiters`).then((rows) => rows.length === 3, () => false); // (no table before the store's first use)
      await until("the three waits are under way", underWay, 10_000);
      const killed = await admin<{ ok: boolean }>("SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE query = $1", [
        `LISTEN functai_${schema}`,
      ]);
      expect(killed).toEqual([{ ok: true }]);
      await Promise.all(ids.map((id) => other.append(id, [rec()]))); // while nobody listens: only the re-read after the reconnect sees them
      expect(await Promise.all(waits)).toEqual([true, true, true]);
    } finally {
      await other.close();
      await store.close();
      await dropSchema(schema);
    }
  }, 60_000);
});

describe.skipIf(NO_SERVER !== null)("waiter rows left behind", () => {
  it("a wait takes away the run-out rows a dead host left on its conversation, not only its own", async () => {
    const schema = freshSchema();
    const store = postgresStore({ connectionString: url }, { schema });
    try {
      expect(await store.append("c", [rec()])).toBe(1);
      // a host killed while it waited: its rows stay (nobody took them away), one run out, one still running
      await admin(
        `INSERT INTO "${schema}".waiters (conversation, token, until) VALUES ('c', 'dead', now() - interval '1 hour'), ('c', 'live', now() + interval '1 hour'), ('d', 'dead', now() - interval '1 hour')`,
      );
      // (a wait long enough to begin listening and write its row: one that runs out before, on a loaded machine, has no
      // row of its own to take away and takes none away, so its time is not what is tested here)
      expect(await store.wait!("c", 1, 2_000)).toBe(false);
      let tokens: string[] = [];
      for (let i = 0; i < 400; i++) { // (up to 20 s: the clean-up runs after the wait settles, slower on a loaded machine)
        tokens = (await admin<{ token: string }>(`SELECT conversation || ':' || token AS token FROM "${schema}".waiters ORDER BY 1`)).map(
          (r) => r.token,
        );
        if (!tokens.includes("c:dead")) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(tokens).toEqual(["c:live", "d:dead"]); // another conversation's are left to its own waits
    } finally {
      await store.close();
      await dropSchema(schema);
    }
  }, 30_000);
});
