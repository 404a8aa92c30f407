/**
 * Waits at their edges on a real server: a timeout that is no time looks
 * once (true when the records are there already, as every store answers);
 * the longest schema name (its channel name as long as PostgreSQL keeps)
 * wakes a wait by its notification.
 */
import { describe, expect, it } from "vitest";
import { postgresStore } from "../../adapters/postgres/index.js";
import { rec } from "../store/contract.js";
import { NO_SERVER, SERVER_URL, dropSchema, freshSchema } from "./server.js";

const url = SERVER_URL ?? "";

describe.skipIf(NO_SERVER !== null)("postgresStore wait at its edges", () => {
  it("a timeout of no time looks once: true when there are more records, false when not", async () => {
    const schema = freshSchema();
    const store = postgresStore({ connectionString: url }, { schema });
    try {
      expect(await store.append("c", [rec(), rec()])).toBe(2);
      for (const timeout of [0, -1, Number.NaN]) {
        expect(await store.wait!("c", 1, timeout), `timeout ${timeout}`).toBe(true);
        expect(await store.wait!("c", 2, timeout), `timeout ${timeout}`).toBe(false);
      }
    } finally {
      await store.close();
      await dropSchema(schema);
    }
  }, 30_000);

  it("a schema of the longest name: a wait is woken by another store's append", async () => {
    const schema = `${freshSchema()}_`.padEnd(55, "x");
    expect(schema.length).toBe(55);
    const store = postgresStore({ connectionString: url }, { schema });
    const other = postgresStore({ connectionString: url }, { schema });
    try {
      expect(await store.append("c", [rec()])).toBe(1);
      const t0 = Date.now();
      const waiting = store.wait!("c", 1, 20_000);
      setTimeout(() => void other.append("c", [rec()]), 200);
      expect(await waiting).toBe(true);
      expect(Date.now() - t0).toBeLessThan(5_000);
    } finally {
      await other.close();
      await store.close();
      await dropSchema(schema);
    }
  }, 30_000);
});
