import type { PGlite } from "@electric-sql/pglite";
import type { Db } from "../../adapters/postgres/db.js";

/**
 * The store's `Db` on PostgreSQL in process (@electric-sql/pglite): one
 * connection, so no sessions (and no liveness). Closing it leaves the
 * instance open: several stores may share one, as processes share a server.
 */
export function pgliteDb(pg: PGlite): Db {
  return {
    target: "pglite (in process)",
    query: async (text, params) => ({ rows: (await pg.query<Record<string, unknown>>(text, params as unknown[] | undefined)).rows }),
    exec: async (sql) => {
      await pg.exec(sql);
    },
    listen: async (channel, onNotify) => {
      const stop = await pg.listen(channel, onNotify);
      return async () => {
        await stop();
      };
    },
    close: async () => undefined,
  };
}

/** A schema name of its own for one test (tests of other engineers share the server). */
export const freshSchema = (): string => `t_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 10)}`;
