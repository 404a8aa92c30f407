/**
 * Hunt 40, on a real PostgreSQL server, a role with no lock_timeout (the
 * default): statements other than appends and first-use DDL that wait for
 * a lock another session holds. Without a bound of their own they waited
 * for the store's statement deadline and failed with its wording, "no
 * answer … (a network, NAT or load balancer …) … an append may have been
 * kept", as if the server were unreachable:
 * - the first use's read of the schema's version, behind an ACCESS
 *   EXCLUSIVE lock on `meta` (an administrator's LOCK TABLE, a VACUUM FULL,
 *   an ALTER TABLE left in an open transaction);
 * - `wait`'s statement that says it waits (and reads the length), behind a
 *   conversation's row locked by another transaction.
 * Each now fails `store-io` naming the lock before the deadline (the
 * version read naming the session that holds it, as first-use DDL does).
 * A read (which locks its tables as it is parsed, so no bound of its own
 * can come first) behind an ACCESS EXCLUSIVE lock on `batches` (a VACUUM
 * FULL) still waits for the deadline, but its error now says it waited for
 * a lock and which session holds it, not that the network dropped it.
 */
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { postgresStore, type PostgresStore } from "../../adapters/postgres/index.js";
import { rec } from "../store/contract.js";
import { NO_SERVER, SERVER_URL, dropSchema, freshSchema, outcome } from "./server.js";

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn().catch(() => undefined);
});

/** A store on the test server in `schema`, closed after the test. */
function storeIn(schema: string, statementTimeoutMs: number): PostgresStore {
  const store = postgresStore({ connectionString: SERVER_URL! }, { schema, statementTimeoutMs });
  cleanups.push(() => store.close());
  return store;
}

/** Another session that runs `sql` in a transaction it leaves open (its pid given); `end` rolls it back. */
async function openTransaction(sql: string, params: unknown[] = []): Promise<{ pid: number; end(): Promise<void> }> {
  const c = new pg.Client({ connectionString: SERVER_URL, connectionTimeoutMillis: 10_000 });
  c.on("error", () => undefined);
  await c.connect();
  cleanups.push(() => c.end());
  const [{ pid }] = (await c.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows as [{ pid: number }];
  await c.query("BEGIN");
  await c.query(sql, params);
  return { pid, end: async () => void (await c.query("ROLLBACK")) };
}

describe.skipIf(NO_SERVER !== null)("postgresStore: reads and waits behind a lock another session holds", () => {
  it("first use: the version read behind an ACCESS EXCLUSIVE lock on meta fails store-io naming the lock and its session, before the deadline, not as a network failure", async () => {
    const schema = freshSchema();
    cleanups.push(() => dropSchema(schema));
    expect(await storeIn(schema, 6_000).append("sam", [rec()])).toBe(1);
    const tx = await openTransaction(`LOCK TABLE "${schema}".meta IN ACCESS EXCLUSIVE MODE`);
    const later = storeIn(schema, 6_000);
    const t0 = Date.now();
    const got = String(await outcome(later.append("sam", [rec()], { expect: 1 })));
    const ms = Date.now() - t0;
    await tx.end();
    expect(got).toMatch(/^store-io: /);
    expect(got).toMatch(/lock/);
    expect(got).toContain(`pid ${tx.pid}`);
    expect(got).not.toMatch(/no answer|network|unknown/);
    expect(ms).toBeLessThan(6_000);
    // nothing was written, and the next use goes on
    expect(await later.append("sam", [rec()], { expect: 1 })).toBe(2);
  }, 30_000);

  it("wait: its statement behind a conversation's row locked by an open transaction fails store-io naming the lock, before the deadline, not as a network failure", async () => {
    const schema = freshSchema();
    cleanups.push(() => dropSchema(schema));
    const store = storeIn(schema, 6_000);
    expect(await store.append("sam", [rec()])).toBe(1);
    const tx = await openTransaction(`SELECT 1 FROM "${schema}".conversations WHERE id = $1 FOR UPDATE`, ["sam"]);
    const t0 = Date.now();
    const got = String(await outcome(store.wait!("sam", 1, 20_000)));
    const ms = Date.now() - t0;
    await tx.end();
    expect(got).toMatch(/^store-io: /);
    expect(got).toMatch(/lock/);
    expect(got).not.toMatch(/no answer|network|unknown/);
    expect(ms).toBeLessThan(6_000);
    // let go, a wait is woken by an append as before
    const waiting = store.wait!("sam", 1, 10_000);
    await new Promise((r) => setTimeout(r, 200));
    expect(await store.append("sam", [rec()], { expect: 1 })).toBe(2);
    expect(await waiting).toBe(true);
  }, 30_000);

  it("read: a read behind an ACCESS EXCLUSIVE lock on batches fails at the deadline saying it waited for a lock held by that session, not as a network failure", async () => {
    const schema = freshSchema();
    cleanups.push(() => dropSchema(schema));
    const store = storeIn(schema, 4_000);
    expect(await store.append("sam", [rec()])).toBe(1);
    const tx = await openTransaction(`LOCK TABLE "${schema}".batches IN ACCESS EXCLUSIVE MODE`);
    const t0 = Date.now();
    const got = String(await outcome(store.read("sam")));
    const ms = Date.now() - t0;
    await tx.end();
    expect(got).toMatch(/^store-io: /);
    expect(got).toMatch(/lock/);
    expect(got).toContain(`pid ${tx.pid}`);
    expect(got).not.toMatch(/network/);
    expect(ms).toBeLessThan(8_000);
    expect((await store.read("sam")).length).toBe(1);
  }, 30_000);
});
