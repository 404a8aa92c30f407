import pg from "pg";
import type { Db, Rows, Session } from "./db.js";
import { describeTarget, storeIo } from "./errors.js";
import { Listener } from "./pg-listener.js";

/** How long a new connection may take before it is an error (never a hang). */
export const CONNECT_TIMEOUT_MS = 10_000;

const noop = (): void => undefined;

/**
 * Server-side TCP keepalives for a lock's session: a host cut off from the
 * network loses its advisory lock within about 10 s (a dead process at once).
 */
const KEEPALIVES = "SET tcp_keepalives_idle = 4; SET tcp_keepalives_interval = 2; SET tcp_keepalives_count = 3";

async function openClient(config: pg.ClientConfig, target: string): Promise<pg.Client> {
  const client = new pg.Client({ ...config, keepAlive: true });
  client.on("error", noop); // a lost connection shows at its next query; never an unhandled 'error'
  try {
    await client.connect();
  } catch (e) {
    void client.end().catch(noop);
    throw storeIo(e, "connect", target);
  }
  return client;
}

/** A `Db` on a `pg.Pool` (made here from a connection string, or the caller's own). */
export function pgDb(connection: { connectionString: string } | { pool: pg.Pool }): Db {
  const owned = !("pool" in connection);
  const pool: pg.Pool = owned
    ? new pg.Pool({ connectionString: connection.connectionString, connectionTimeoutMillis: CONNECT_TIMEOUT_MS })
    : connection.pool;
  const target = describeTarget(owned ? connection.connectionString : undefined);
  pool.on("error", noop); // an idle client's lost connection: the pool drops it and opens another when asked
  const config: pg.ClientConfig = {
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    ...(pool.options as pg.ClientConfig),
  };
  const listeners = new Set<Listener>();

  const db: Db = {
    target,
    async query(text, params) {
      return (await pool.query(text, params as unknown[] | undefined)) as Rows;
    },
    async exec(sql) {
      await pool.query(sql);
    },
    async listen(channel, onNotify, onReconnect) {
      const listener = new Listener(() => openClient(config, target), channel, onNotify, onReconnect);
      listeners.add(listener);
      try {
        await listener.start();
      } catch (e) {
        listeners.delete(listener);
        await listener.stop();
        throw e;
      }
      return async () => {
        listeners.delete(listener);
        await listener.stop();
      };
    },
    async session(): Promise<Session> {
      const client = await openClient(config, target);
      try {
        await client.query(KEEPALIVES);
        const { rows } = await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
        return {
          pid: rows[0]!.pid,
          query: async (text, params) => (await client.query(text, params as unknown[] | undefined)) as Rows,
          end: () => client.end().catch(noop),
        };
      } catch (e) {
        void client.end().catch(noop);
        throw storeIo(e, "open a session", target);
      }
    },
    async close() {
      for (const l of [...listeners]) await l.stop();
      listeners.clear();
      if (owned) await pool.end().catch(noop);
    },
  };
  return db;
}
