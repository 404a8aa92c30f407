/**
 * Hunt 126: a pool given by the user with max: 1. The store's lock session
 * and LISTEN connection are its own (never the pool's), so turns and appends
 * never wait for each other there; appends and reads queue for the one
 * client. But the first use's DDL holds that client while it waits for
 * another store that makes the same schema's tables (under the schema's
 * advisory lock), and the store looked at it every 2 s through the pool: no
 * client was ever free for the look, and once no look had been answered for
 * statementTimeoutMs the DDL was given up, its connection dropped, as if a
 * network had dropped it ("no answer came ... while the server could not be
 * asked"). A migration of another host that takes longer made the store fail
 * its first use. The looks now go on a connection of their own.
 */
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { postgresStore } from "../../adapters/postgres/index.js";
import { rec } from "../store/contract.js";
import { outcome } from "./fixtures/hunt9-gucs-kit.js";
import { NO_SERVER, SERVER_URL, dropSchema, freshSchema } from "./server.js";

/** Longer than the given pool's wait for a free client (10 s) plus the store's statementTimeoutMs below. */
const MIGRATION_MS = 14_000;

const ends: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const end of ends.splice(0).reverse()) await end();
});

describe.skipIf(NO_SERVER !== null)("postgres store (hunt 126): a given pool of one client", () => {
  it("a first use that waits behind another store's making of the tables for longer than the looks' deadline waits, then appends", async () => {
    const schema = freshSchema();
    ends.push(() => dropSchema(schema));
    // another store making this schema's tables: it holds the schema's advisory lock (schema.ts) for its whole migration
    const migrating = new pg.Client({ connectionString: SERVER_URL });
    await migrating.connect();
    ends.push(() => migrating.end());
    await migrating.query("BEGIN");
    await migrating.query("SELECT pg_advisory_xact_lock(hashtextextended('functai schema ' || $1, 0))", [schema]);
    const pool = new pg.Pool({ connectionString: SERVER_URL, max: 1 });
    ends.push(() => pool.end());
    const store = postgresStore({ pool }, { schema, statementTimeoutMs: 3_000 });
    ends.push(() => store.close());
    const appended = outcome(store.append("c", [rec()]));
    // the migration ends after a fixed time (the scenario, not a wait for a condition)
    await new Promise((r) => setTimeout(r, MIGRATION_MS));
    await migrating.query("COMMIT");
    expect(await appended).toEqual({ ok: true, value: 1 });
    expect(await store.read("c")).toHaveLength(1);
  }, 40_000);
});
