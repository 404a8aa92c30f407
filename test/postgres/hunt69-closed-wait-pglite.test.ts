/** The stores' wait/close contract (test/store/fixtures/hunt69-close-contract.ts) on PostgreSQL in process (pglite). */
import { PGlite } from "@electric-sql/pglite";
import { afterAll } from "vitest";
import { storeOn } from "../../adapters/postgres/store.js";
import { closedWaitContract } from "../store/fixtures/hunt69-close-contract.js";
import { freshSchema, pgliteDb } from "./pglite-db.js";

const pg = new PGlite();
afterAll(() => pg.close());

closedWaitContract("postgresStore on pglite", async () => {
  const schema = freshSchema();
  return {
    store: storeOn(pgliteDb(pg), { schema }),
    reopen: async () => storeOn(pgliteDb(pg), { schema }),
    cleanup: async () => void (await pg.exec(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)),
  };
});
