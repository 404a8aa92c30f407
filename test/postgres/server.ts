import pg from "pg";
import type { PostgresStore } from "../../adapters/postgres/index.js";

/**
 * The real server's URL for tests (`FUNCTAI_TEST_PG`, set by .ci/run), or
 * why there is none. With `CI` set a missing server is a failure, not a skip.
 */
export const SERVER_URL = process.env.FUNCTAI_TEST_PG;
export const NO_SERVER = SERVER_URL
  ? null
  : "FUNCTAI_TEST_PG is not set (a PostgreSQL URL such as postgres://functai:functai@127.0.0.1:5432/postgres; .ci/run sets it)";
if (NO_SERVER) {
  if (process.env.CI) throw new Error(`CI is set but ${NO_SERVER}`);
  console.warn(`skipping the tests on a real PostgreSQL server: ${NO_SERVER}`);
}

export { freshSchema } from "./pglite-db.js";

/** Runs one statement on the test server with a short-lived client. */
export async function admin<T extends pg.QueryResultRow = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: SERVER_URL, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

/** Drops a schema this test made. */
export const dropSchema = (schema: string): Promise<unknown> => admin(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);

/** How `p` settles: its value, or its error's code; and when (ms from `t0`, by default the call's time). */
export async function settle(p: Promise<unknown>, t0 = Date.now()): Promise<{ got: unknown; ms: number }> {
  let got: unknown;
  try {
    got = await p;
  } catch (e) {
    got = (e as { code?: unknown }).code;
  }
  return { got, ms: Date.now() - t0 };
}

/** The turns' advisory locks (one bigint key each; a lock session's own key is a pair of int4s) held by the connections named `app`, per server process. */
export const lockers = (app: string): Promise<{ pid: number; locks: number }[]> =>
  admin<{ pid: number; locks: number }>(
    "SELECT l.pid, count(*)::int AS locks FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' AND l.objsubid = 1 AND a.application_name = $1 GROUP BY l.pid",
    [app],
  );

/** How many connections named `app` the server has. */
export const connections = async (app: string): Promise<number> =>
  (await admin<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1", [app]))[0]!.n;

/** A URL of the test server whose connections carry a name of their own (application_name: `app`, unique). */
export function namedApp(prefix: string): { app: string; url: string } {
  const app = `${prefix}-${Math.random().toString(36).slice(2, 10)}`;
  const url = new URL(SERVER_URL!);
  url.searchParams.set("application_name", app);
  return { app, url: url.toString() };
}

/** The code and message `fn` throws (synchronously), or "none". */
export function thrown(fn: () => unknown): { code: string; message: string } {
  try {
    fn();
    return { code: "none", message: "" };
  } catch (e) {
    return { code: String((e as { code?: unknown }).code), message: String((e as Error).message) };
  }
}

/** How `p` settles: its value, or "<code>: <message>". */
export async function outcome(p: Promise<unknown>): Promise<unknown> {
  try {
    return await p;
  } catch (e) {
    return `${String((e as { code?: unknown }).code)}: ${String((e as Error).message)}`;
  }
}

/**
 * The stores a test opened on the real server, each in a schema of its own:
 * `cleanUp` (an `afterEach`) closes each and drops its schema.
 */
export function openStores(): { open: { store: PostgresStore; schema: string }[]; cleanUp: () => Promise<void> } {
  const open: { store: PostgresStore; schema: string }[] = [];
  const cleanUp = async (): Promise<void> => {
    for (const { store, schema } of open.splice(0)) {
      await store.close();
      await dropSchema(schema);
    }
  };
  return { open, cleanUp };
}
