/**
 * Hunt 11 (fresh code): a Postgres wait's last look at its timeout, and
 * close() waiting for the waiters' rows to be taken away (wake.ts).
 */
import pg from "pg";
import { describe, expect, it } from "vitest";
import { postgresStore } from "../../adapters/postgres/index.js";
import { rec } from "../store/contract.js";
import { until } from "./fixtures/hosts.js";
import { NO_SERVER, SERVER_URL, admin, dropSchema, freshSchema, namedApp } from "./server.js";

/** Waiter rows of `schema` still asking to be notified in more than `seconds` from now. */
const longRows = async (schema: string, seconds: number): Promise<number> =>
  (
    await admin<{ n: number }>(`SELECT count(*)::int AS n FROM "${schema}".waiters WHERE until > clock_timestamp() + make_interval(secs => $1)`, [
      seconds,
    ])
  )[0]!.n;

describe.skipIf(NO_SERVER !== null)("hunt11 fresh: a wait's last look and close (real server)", () => {
  it("waits of 1 ms and 5 ms: true on a conversation already past `after`, false on one that is not; no waiter row outlives them by more than a few seconds", async () => {
    const schema = freshSchema();
    const store = postgresStore({ connectionString: SERVER_URL! }, { schema });
    try {
      expect(await store.append("full", [rec(), rec()])).toBe(2);
      for (const ms of [1, 5, 1, 5, 1]) {
        expect(await store.wait!("full", 1, ms)).toBe(true);
        expect(await store.wait!("full", 2, ms)).toBe(false);
        expect(await store.wait!("empty", 0, ms)).toBe(false);
      }
      // many at once, with the listener already up: each answered by its last look
      const got = await Promise.all(Array.from({ length: 200 }, (_, i) => store.wait!(i % 2 ? "full" : "empty", 0, 1 + (i % 5))));
      expect(got).toEqual(Array.from({ length: 200 }, (_, i) => i % 2 === 1));
      // rows written after their wait was answered run out within its timeout + 5 s (schema.ts): none a day long
      expect(await longRows(schema, 60)).toBe(0);
    } finally {
      await store.close();
      await dropSchema(schema);
    }
  }, 20_000);

  it("1,500 waits timing out at once: each answers (false, or true where the conversation grew unheard) within about the last look's second; their last looks do not hold up an append made meanwhile", async () => {
    const schema = freshSchema();
    const store = postgresStore({ connectionString: SERVER_URL! }, { schema });
    const other = postgresStore({ connectionString: SERVER_URL! }, { schema });
    try {
      expect(await other.append("warm", [rec()])).toBe(1);
      const n = 1_500;
      const t0 = Date.now();
      const answered: number[] = [];
      const waits = Array.from({ length: n }, (_, i) =>
        store.wait!(`m${i}`, 0, 2_500).then((v) => {
          answered.push(Date.now() - t0);
          return v;
        }),
      );
      // (no poll for all 1,500 waiter rows at once: each wait takes its row away at its timeout, 2.5 s from the call,
      // and on a loaded machine the last rows were written after the first were gone: the count never reached 1,500)
      const got = await Promise.all(waits);
      expect(got.every((v) => v === false)).toBe(true);
      expect(Math.min(...answered)).toBeGreaterThanOrEqual(2_490);
      // the last look is bounded (a second); held up behind a lock or each other, the looks would wait out the store's
      // 30 s statement deadline: the bounds here tell that apart with room for a loaded machine, they time nothing
      expect(Math.max(...answered)).toBeLessThan(2_500 + 10_000);
      const t1 = Date.now();
      expect(await other.append("warm", [rec()])).toBe(2);
      expect(Date.now() - t1).toBeLessThan(10_000);
      await store.close(); // (it waits for the answered waits' DELETEs of their rows: an event, not a poll)
      expect(await admin(`SELECT 1 FROM "${schema}".waiters LIMIT 1`)).toEqual([]);
    } finally {
      await other.close();
      await store.close();
      await dropSchema(schema);
    }
  }, 30_000);

  it("close() during a last look: the wait answers false, close settles, and the store's connections are gone", async () => {
    const schema = freshSchema();
    const { app, url } = namedApp("h11wlook");
    const store = postgresStore({ connectionString: url }, { schema });
    const locker = new pg.Client({ connectionString: SERVER_URL });
    await locker.connect();
    try {
      expect(await store.append("c", [rec()])).toBe(1);
      // the length read of the last look is held up: an ACCESS EXCLUSIVE lock on the conversations table
      const waiting = store.wait!("c", 1, 300);
      await new Promise((r) => setTimeout(r, 150)); // (the waiter's row written)
      await locker.query("BEGIN");
      await locker.query(`LOCK TABLE "${schema}".conversations IN ACCESS EXCLUSIVE MODE`);
      await new Promise((r) => setTimeout(r, 250)); // (its timer ran: the last look waits on the lock)
      const closing = store.close();
      expect(await waiting).toBe(false);
      await new Promise((r) => setTimeout(r, 100));
      await locker.query("COMMIT");
      await closing;
      await until(
        "the store's connections are gone",
        async () => (await admin(`SELECT 1 FROM pg_stat_activity WHERE application_name = $1`, [app])).length === 0,
        5_000,
      );
    } finally {
      await locker.end().catch(() => undefined);
      await store.close();
      await dropSchema(schema);
    }
  }, 20_000);

  // A user expects a store's close() to leave no waiter row asking appends to notify it for a day: hunt 10 made
  // close() wait for the unwatch statements for that reason. Before its fix, a wait whose watch statement (the INSERT of its
  // row) is still under way when close() comes sends its DELETE at once, on another connection: the DELETE finds no
  // row yet and ends; the watch then commits its row with `until` a day ahead. Every append to that conversation then
  // sends a NOTIFY (serializing the commits of all notifying transactions) for a day, to nobody.
  it("close() while a wait's watch statement is under way: no waiter row is left asking to be notified for a day", async () => {
    const schema = freshSchema();
    const store = postgresStore({ connectionString: SERVER_URL! }, { schema });
    const locker = new pg.Client({ connectionString: SERVER_URL });
    await locker.connect();
    try {
      expect(await store.append("c", [rec()])).toBe(1);
      expect(await store.wait!("warm", 0, 50)).toBe(false); // (the listener up)
      // the watch's SELECT ... FOR SHARE of the conversation's row waits on this row lock
      await locker.query("BEGIN");
      await locker.query(`SELECT 1 FROM "${schema}".conversations WHERE id = 'c' FOR UPDATE`);
      const waiting = store.wait!("c", 1, 86_400_000); // (a day: its row asks for a day)
      await until(
        "the watch statement waits on the row lock",
        async () => (await admin(`SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%.watch(%'`)).length > 0,
        5_000,
      );
      const closing = store.close();
      expect(await waiting).toBe(false);
      await new Promise((r) => setTimeout(r, 200)); // (close sent the DELETE, which found nothing)
      await locker.query("COMMIT");
      await closing;
      await new Promise((r) => setTimeout(r, 200));
      // the wait was answered (false) by close: a row asking for more than a minute is one nobody takes away
      expect(await longRows(schema, 60)).toBe(0);
    } finally {
      await locker.end().catch(() => undefined);
      await store.close();
      await dropSchema(schema);
    }
  }, 20_000);
});
