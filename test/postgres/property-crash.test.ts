// The crash property (test/durable/fixtures/crash-property.ts) on the Postgres store, in process (pglite):
// one schema, emptied before each schedule of turns.
import { PGlite } from "@electric-sql/pglite";
import { afterAll } from "vitest";
import { storeOn } from "../../adapters/postgres/store.js";
import { crashProperty } from "../durable/fixtures/crash-property.js";
import { freshSchema, pgliteDb } from "./pglite-db.js";

const pg = new PGlite();
afterAll(() => pg.close());
const schema = freshSchema();
let made = false;

crashProperty("Postgres store (pglite)", {
  makeStore: async () => {
    const store = storeOn(pgliteDb(pg), { schema });
    if (!made) await store.read("prop"); // makes the tables
    made = true;
    await pg.exec(`TRUNCATE "${schema}".batches, "${schema}".conversations`);
    return store;
  },
  timeLimitMs: 30_000,
  minSchedules: 5, // under load (7 engineers on 2 cores) pglite runs few; each schedule checks everything
  minInModel: 0, // so few schedules may have no crash inside a model call (the memory store's run has hundreds)
});
