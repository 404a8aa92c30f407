/**
 * Hunt 99, on a real PostgreSQL server: `close` while the store's first use
 * waits for another store that makes or migrates the tables (the schema's
 * advisory lock; a migration of a large schema takes minutes). The store's
 * close refuses calls from now on and lets those under way settle; a call
 * held by another host's migration is not one that settles soon: it held
 * the close (a host shutting down) for the whole migration, and its append
 * was written after the close was called. Now the close cuts the first use
 * short: the call fails `store-io`, nothing of it written, and the close settles.
 */
import pg from "pg";
import { describe, expect, it } from "vitest";
import { postgresStore } from "../../adapters/postgres/index.js";
import { rec } from "../store/contract.js";
import { until } from "./fixtures/hosts.js";
import { within } from "./fixtures/hunt8-freeze-kit.js";
import { NO_SERVER, SERVER_URL, admin, dropSchema, freshSchema } from "./server.js";

describe.skipIf(NO_SERVER !== null)("close while the first use waits for another store's migration", () => {
  it("the close settles; the append fails store-io saying the store closed; nothing of it is written", async () => {
    const schema = freshSchema();
    const migrator = new pg.Client({ connectionString: SERVER_URL });
    migrator.on("error", () => undefined);
    await migrator.connect();
    const store = postgresStore({ connectionString: SERVER_URL! }, { schema });
    try {
      // what another store's first use holds while it makes or migrates the tables (schema.ts's ddl)
      await migrator.query("BEGIN");
      await migrator.query("SELECT pg_advisory_xact_lock(hashtextextended('functai schema ' || $1, 0))", [schema]);
      const appending = store.append("y", [rec()]);
      appending.catch(() => undefined);
      await until(
        "the first use waiting for the schema's lock",
        async () =>
          (
            await admin("SELECT 1 FROM pg_stat_activity WHERE wait_event = 'advisory' AND query LIKE '/* functai first use%' AND query LIKE $1", [
              `%'${schema}'%`,
            ])
          ).length === 1,
      );
      expect((await within(store.close(), 10_000)).got).toBe("undefined");
      const { got } = await within(appending, 1_000);
      expect(got).toBe("error store-io");
      await expect(appending).rejects.toThrow(/closed/);
    } finally {
      await migrator.query("COMMIT").catch(() => undefined);
      await migrator.end();
      await store.close();
    }
    // (the tables may be made now, by the dropped first use's statement: none of the append's records are)
    const rows = await admin<{ n: number }>(`SELECT count(*)::int AS n FROM "${schema}".batches`).catch(() => [{ n: 0 }]);
    expect(rows).toEqual([{ n: 0 }]);
    await dropSchema(schema);
  }, 60_000);
});
