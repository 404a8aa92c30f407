/**
 * Hunt 37, on a real PostgreSQL server: the tables made (or migrated) on
 * first use while another session holds a lock they need. DESIGN "Many
 * hosts": tables are created on first use, with a version so that a later
 * release can migrate them. A first use blocked by another session's lock (a
 * transaction left open on the store's tables, a schema being made by a
 * transaction not committed) fails `store-io` after a bounded wait, naming
 * what holds the lock, and the next use tries again; a first use waiting for
 * another store that makes or migrates the tables (the schema's advisory
 * lock) waits for it, however long it takes.
 */
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { postgresStore, type PostgresStore } from "../../adapters/postgres/index.js";
import { rec } from "../store/contract.js";
import { perTest } from "./fixtures/hunt9-gucs-kit.js";
import { NO_SERVER, SERVER_URL, admin, dropSchema, freshSchema } from "./server.js";

/** How `p` settles within `ms` (its value, or its error's code and message), or "hung". */
async function within(p: Promise<unknown>, ms: number): Promise<{ got: unknown; message?: string; ms: number }> {
  const t0 = Date.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hung = new Promise<{ got: unknown; ms: number }>((r) => (timer = setTimeout(() => r({ got: "hung", ms: Date.now() - t0 }), ms)));
  const settled = p.then(
    (got) => ({ got, ms: Date.now() - t0 }),
    (e: unknown) => ({ got: (e as { code?: unknown }).code, message: String((e as Error).message), ms: Date.now() - t0 }),
  );
  try {
    return await Promise.race([settled, hung]);
  } finally {
    clearTimeout(timer);
  }
}

/** A plain session of the test's (another app's, an administrator's). */
const session = (): Promise<pg.Client> => sessionOn(SERVER_URL!);

const { playground, open } = perTest();

/** A plain session on `url`. */
async function sessionOn(url: string): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  c.on("error", () => undefined);
  await c.connect();
  return c;
}

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn().catch(() => undefined);
});

/** A store on the test server in `schema`, closed after the test (before the schema is dropped). */
function storeIn(schema: string): PostgresStore {
  const store = postgresStore({ connectionString: SERVER_URL! }, { schema });
  cleanups.push(() => store.close());
  return store;
}

describe.skipIf(NO_SERVER !== null)("postgresStore: tables made or migrated on first use while another session holds a lock", () => {
  it("a migration blocked by a transaction left open on the store's records: store-io within seconds naming that session; once it ends, the next use migrates", async () => {
    const schema = freshSchema();
    cleanups.push(() => dropSchema(schema));
    expect(await storeIn(schema).append("x", [rec()])).toBe(1);
    // tables of a release before this one: the next store's first use migrates them (it replaces the records view)
    await admin(`UPDATE "${schema}".meta SET value = '6' WHERE key = 'schema_version'`);
    const reader = await session();
    cleanups.push(() => reader.end());
    const [{ pid }] = (await reader.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows as [{ pid: number }];
    await reader.query(`BEGIN; SELECT count(*) FROM "${schema}".records`); // a report's transaction, left open
    const later = storeIn(schema);
    const first = await within(later.append("y", [rec()]), 40_000);
    await reader.query("COMMIT").catch(() => undefined); // (a first use that hung is let go here)
    expect(first.got).toBe("store-io");
    expect(first.ms).toBeLessThan(20_000);
    expect(first.message).toContain(`pid ${pid}`);
    expect(first.message).toContain(`"${schema}".records`);
    expect(first.message).toMatch(/idle in transaction/);
    // nothing was half done: the version is the old one until a first use made it all
    expect(await admin(`SELECT value FROM "${schema}".meta WHERE key = 'schema_version'`)).toEqual([{ value: "6" }]);
    expect(await later.append("y", [rec()])).toBe(1);
    expect(await admin(`SELECT value FROM "${schema}".meta WHERE key = 'schema_version'`)).toEqual([{ value: "7" }]);
    expect((await later.read("x")).length).toBe(1);
  }, 60_000);

  it("a schema of that name being made by a transaction not yet committed: store-io within seconds; once it rolls back, the next use makes the tables", async () => {
    const schema = freshSchema();
    cleanups.push(() => dropSchema(schema));
    const maker = await session();
    cleanups.push(() => maker.end());
    const [{ pid }] = (await maker.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows as [{ pid: number }];
    await maker.query(`BEGIN; CREATE SCHEMA "${schema}"`);
    const store = storeIn(schema);
    const first = await within(store.append("y", [rec()]), 40_000);
    await maker.query("ROLLBACK").catch(() => undefined);
    expect(first.got).toBe("store-io");
    expect(first.ms).toBeLessThan(20_000);
    expect(first.message).toContain(`pid ${pid}`);
    expect(await store.append("y", [rec()])).toBe(1);
  }, 60_000);

  it("a first use waiting for another store that makes or migrates the tables (its advisory lock, held 12 s) waits for it, past any lock bound, and goes on", async () => {
    const schema = freshSchema();
    cleanups.push(() => dropSchema(schema));
    const migrator = await session();
    cleanups.push(() => migrator.end());
    // what a store's first use holds while it makes the tables (schema.ts's ddl)
    await migrator.query("BEGIN");
    await migrator.query("SELECT pg_advisory_xact_lock(hashtextextended('functai schema ' || $1, 0))", [schema]);
    const release = setTimeout(() => void migrator.query("COMMIT").catch(() => undefined), 12_000);
    cleanups.push(async () => clearTimeout(release));
    const store = storeIn(schema);
    const first = await within(store.append("y", [rec()]), 40_000);
    expect(first.got).toBe(1);
    expect(first.ms).toBeGreaterThan(11_000);
  }, 60_000);

  it("a role whose lock_timeout is 1 s: a first use blocked by another session's lock fails after about that, not 10 s; one waiting 3 s for another store's DDL is not cut short by it", async () => {
    const ground = await playground({ lock_timeout: "1s" });
    const schema = freshSchema();
    expect(await open(ground.url, schema).append("x", [rec()])).toBe(1);
    await ground.sql(`UPDATE "${schema}".meta SET value = '6' WHERE key = 'schema_version'`);
    const reader = await sessionOn(ground.adminUrl);
    cleanups.push(() => reader.end());
    await reader.query(`BEGIN; SELECT count(*) FROM "${schema}".records`);
    const blocked = await within(open(ground.url, schema).append("y", [rec()]), 40_000);
    await reader.query("COMMIT");
    expect(blocked.got).toBe("store-io");
    expect(blocked.ms).toBeLessThan(5_000);
    expect(blocked.message).toMatch(/lock/);

    await ground.sql(`UPDATE "${schema}".meta SET value = '6' WHERE key = 'schema_version'`);
    const migrator = await sessionOn(ground.adminUrl);
    cleanups.push(() => migrator.end());
    await migrator.query("BEGIN");
    await migrator.query("SELECT pg_advisory_xact_lock(hashtextextended('functai schema ' || $1, 0))", [schema]);
    const release = setTimeout(() => void migrator.query("COMMIT").catch(() => undefined), 3_000);
    cleanups.push(async () => clearTimeout(release));
    const waited = await within(open(ground.url, schema).append("z", [rec()]), 40_000);
    expect(waited.got).toBe(1);
    expect(waited.ms).toBeGreaterThan(2_500);
    expect(await ground.sql(`SELECT value FROM "${schema}".meta WHERE key = 'schema_version'`)).toEqual([{ value: "7" }]);
  }, 60_000);
});
