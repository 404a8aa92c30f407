/**
 * Hunt 37, on a real PostgreSQL server, a role with no lock_timeout (the
 * default): an append that waits for a lock another session's open
 * transaction holds (an administrator's UPDATE or LOCK TABLE left open, a
 * report's SELECT … FOR UPDATE). Without a bound of its own it waited for
 * the store's statement deadline, was dropped as "no answer (a network…)",
 * outcome unknown, and the server kept it waiting, then committed it once
 * the lock was let go: a record kept after its caller was told it failed.
 * The append waits a bounded time for a lock, then fails `store-io` naming
 * the lock, nothing kept, before the deadline.
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

/** A store on the test server in a schema of its own, closed (and the schema dropped) after the test. */
function fresh(statementTimeoutMs: number): { store: PostgresStore; schema: string } {
  const schema = freshSchema();
  const store = postgresStore({ connectionString: SERVER_URL! }, { schema, statementTimeoutMs });
  cleanups.push(
    () => dropSchema(schema),
    () => store.close(),
  );
  return { store, schema };
}

/** Another session that runs `sql` in a transaction it leaves open; `end` rolls it back. */
async function openTransaction(sql: string, params: unknown[] = []): Promise<{ end(): Promise<void> }> {
  const c = new pg.Client({ connectionString: SERVER_URL, connectionTimeoutMillis: 10_000 });
  c.on("error", () => undefined);
  await c.connect();
  cleanups.push(() => c.end());
  await c.query("BEGIN");
  await c.query(sql, params);
  return { end: async () => void (await c.query("ROLLBACK")) };
}

describe.skipIf(NO_SERVER !== null)("postgresStore: an append waiting for a lock another session holds", () => {
  it("a conversation's row locked by an open transaction: store-io naming the lock before the statement deadline; once let go, nothing of it was kept", async () => {
    const { store, schema } = fresh(6_000);
    expect(await store.append("sam", [rec()])).toBe(1);
    const tx = await openTransaction(`SELECT 1 FROM "${schema}".conversations WHERE id = $1 FOR UPDATE`, ["sam"]);
    const t0 = Date.now();
    const got = await outcome(store.append("sam", [rec()], { expect: 1 }));
    const ms = Date.now() - t0;
    await tx.end();
    expect(String(got)).toMatch(/^store-io: /);
    expect(String(got)).toMatch(/lock/);
    expect(String(got)).not.toMatch(/no answer|network|unknown/);
    expect(ms).toBeLessThan(6_000);
    await new Promise((r) => setTimeout(r, 300)); // (a statement the server still held would commit now)
    expect(await store.length!("sam")).toBe(1);
    expect(await store.append("sam", [rec()], { expect: 1 })).toBe(2);
  }, 30_000);

  it("the batches table locked (LOCK TABLE, as VACUUM FULL or an ALTER would): the same, and a wait-free append to it goes through after", async () => {
    const { store, schema } = fresh(6_000);
    expect(await store.append("sam", [rec()])).toBe(1);
    const tx = await openTransaction(`LOCK TABLE "${schema}".batches IN EXCLUSIVE MODE`);
    const t0 = Date.now();
    const got = await outcome(store.append("ann", [rec()]));
    const ms = Date.now() - t0;
    await tx.end();
    expect(String(got)).toMatch(/^store-io: .*lock/);
    expect(String(got)).not.toMatch(/no answer|network|unknown/);
    expect(ms).toBeLessThan(6_000);
    await new Promise((r) => setTimeout(r, 300));
    expect(await store.length!("ann")).toBe(0);
    expect(await store.append("ann", [rec()])).toBe(1);
  }, 30_000);
});
