/**
 * A store's `close` lets the calls under way settle before it ends the
 * connections; liveness calls (`isHeld`, `hold`) were not among them: a
 * close begun while one was out ended the pool under it.
 */
import { describe, expect, it } from "vitest";
import { postgresStore } from "../../adapters/postgres/index.js";
import { rec } from "../store/contract.js";
import { NO_SERVER, SERVER_URL, dropSchema, freshSchema, settle } from "./server.js";

describe.skipIf(NO_SERVER !== null)("on a real PostgreSQL server", () => {
  it("an isHeld under way when the store closes answers", async () => {
    const schema = freshSchema();
    const store = postgresStore({ connectionString: SERVER_URL ?? "" }, { schema });
    try {
      await store.append("c", [rec()]);
      const asked = store.liveness!.isHeld("c", "t1");
      const closed = store.close();
      const got = await settle(asked);
      await closed;
      expect(got.got).toBe(false);
    } finally {
      await store.close();
      await dropSchema(schema);
    }
  });

  it("a hold under way when the store closes: taken and let go with the close, or refused; never left taken", async () => {
    const schema = freshSchema();
    const store = postgresStore({ connectionString: SERVER_URL ?? "" }, { schema });
    const other = postgresStore({ connectionString: SERVER_URL ?? "" }, { schema });
    try {
      await store.append("c", [rec()]);
      const holding = store.liveness!.hold("c", "t1");
      const closed = store.close();
      const got = await settle(holding);
      await closed;
      expect(typeof got.got === "function" || got.got === "store-io", String(got.got)).toBe(true);
      // the close let it go: another store can take it
      const release = await other.liveness!.hold("c", "t1");
      release();
    } finally {
      await store.close();
      await other.close();
      await dropSchema(schema);
    }
  });
});
