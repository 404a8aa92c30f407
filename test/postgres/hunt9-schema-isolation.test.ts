/**
 * Hunt 9, on a real PostgreSQL server: a database whose default isolation
 * level is not READ COMMITTED (`ALTER DATABASE … SET
 * default_transaction_isolation = 'serializable'`, a common hardening, or
 * 'repeatable read'; the same comes from ALTER ROLE … SET or a pool's
 * options). The store's append and watch functions (schema.ts) are written
 * for READ COMMITTED: an UPDATE that waited on another append's row lock is
 * compared again at the row's newest version, and a row committed after the
 * statement began is seen by the next statement. The store never sets its
 * own isolation level, so it inherits the database's.
 *
 * DESIGN ("Many hosts: the Postgres store"): an append is a compare-and-set
 * on the length: a length that moved is a `store-conflict` (which the
 * engine reads again and retries), never `store-io`; an append without an
 * expected length lands after whatever committed before it; a wait sees an
 * append that committed before its read, or is woken by it.
 *
 * Appends of two hosts at once at these levels (store-io where all should
 * land, or where the loser should be store-conflict) are
 * hunt9-gucs-isolation.test.ts's; this file is the wait's (the watch
 * function). The case has another host's append (the store's own `append` function,
 * one statement in a transaction left open) hold the conversation's row
 * while this store's call runs, then commits it: the order that two hosts'
 * appends to one conversation meet in every day (a person's approval while
 * the turn writes, two hosts racing to resume one turn).
 */
import type pg from "pg";
import { describe, expect, it } from "vitest";
import { postgresStore, type PostgresStore } from "../../adapters/postgres/index.js";
import { rec } from "../store/contract.js";
import { type Db, freshDb, lockWaitOn, outcome } from "./fixtures/hunt9-schema-kit.js";
import { NO_SERVER } from "./server.js";

/**
 * Runs `run` with a store on a fresh database at `level`, "c" holding one record, and another host's append of one
 * record to `conversation` ("c": its second; another: its first) left uncommitted.
 */
async function withOpenAppend(
  level: string,
  conversation: string,
  run: (store: PostgresStore, db: Db, commit: () => Promise<void>) => Promise<void>,
): Promise<void> {
  const db = await freshDb("", level === "read committed" ? {} : { default_transaction_isolation: level });
  const store = postgresStore({ connectionString: db.url() }, { schema: "s" });
  let other: pg.Client | null = null;
  try {
    expect(await store.append("c", [rec("first")])).toBe(1);
    other = await db.client();
    await other.query("BEGIN");
    // another host's append of one record, not yet committed: it holds the row of "c"
    const n = (await other.query("SELECT s.append($1, $2::json, NULL, NULL, NULL, NULL, 1) AS n", [conversation, JSON.stringify([rec("other")])])).rows;
    expect(n).toEqual([{ n: conversation === "c" ? 2 : 1 }]);
    const o = other;
    await run(store, db, async () => void (await o.query("COMMIT")));
  } finally {
    await other?.end().catch(() => undefined);
    await store.close();
    await db.drop();
  }
}

describe.skipIf(NO_SERVER !== null).each(["read committed", "repeatable read", "serializable"])("a database whose default isolation is %s", (level) => {
  // READ COMMITTED is the server's default; at the other levels the cases showed a bug, fixed since (a statement the
  // server rolls back for a serialization failure is sent again: pg-db.ts, resent).

  // Expected: a wait on "c" after 1 that starts while another host's append is in flight answers true once it commits
  // (the append committed before the wait's read, so the read sees it). Before its fix: the wait rejects store-io (the watch
  // function's SELECT … FOR SHARE meets a row updated after its snapshot): a host serving a conversation that is
  // written to often sees its waits fail. Cause: schema.ts watchFunction (FOR SHARE under the database's isolation).
  it("a wait that starts while another host's append is in flight sees it once it commits", async () => {
    await withOpenAppend(level, "c", async (store, db, commit) => {
      const waited = outcome(store.wait!("c", 1, 10_000));
      await lockWaitOn(db);
      await commit();
      expect(await waited).toBe(true);
    });
  }, 20_000);

  // Expected: a wait on a conversation that does not exist yet (a page waiting for the first message) while another
  // host's first append to it is in flight answers true once that commits. Before its fix: store-io, as above (the watch
  // function's INSERT … ON CONFLICT DO NOTHING meets a row inserted after its snapshot). Cause: schema.ts watchFunction.
  it("a wait on a new conversation that starts while its first append is in flight sees it once it commits", async () => {
    await withOpenAppend(level, "new", async (store, db, commit) => {
      const waited = outcome(store.wait!("new", 0, 10_000));
      await lockWaitOn(db);
      await commit();
      expect(await waited).toBe(true);
      expect(await store.length!("new")).toBe(1);
    });
  }, 20_000);
});
