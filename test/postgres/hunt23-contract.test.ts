/**
 * Hunt 23, on a real PostgreSQL server: where the Postgres store answered
 * otherwise than the memory store (and node-fs, IndexedDB) for the same
 * call, or took odd options and hand-written rows as something they are not.
 * - `wait(c, after)` with `after` below 0: every other store compares the
 *   length with `after` as given ("more than `after` records": 0 > -1), so
 *   the wait is true at once; this one read `after` as 0 and waited out its
 *   timeout, answering false.
 * - `{ schema: null }`: taken as the default schema, silently (a null
 *   statementTimeoutMs is refused; a schema given as null, e.g. from a config
 *   lookup that found nothing, wrote into "functai").
 * - `list` and `lengths`: a row whose id is not a conversation id (another
 *   program's, or written by hand) was listed; node-fs and IndexedDB list
 *   only conversation ids, and every call with it is refused
 *   (conversation-id).
 * - A batch row that starts at seq 0 or below (by hand: the store writes
 *   from 1): its first records were left out of a read without a word.
 */
import { afterEach, describe, expect, it } from "vitest";
import { postgresStore, type PostgresStore } from "../../adapters/postgres/index.js";
import { memoryStore } from "../../src/store/memory.js";
import { rec } from "../store/contract.js";
import { NO_SERVER, SERVER_URL, admin, dropSchema, freshSchema, openStores, outcome } from "./server.js";

const url = SERVER_URL ?? "";

const { open, cleanUp } = openStores();
afterEach(cleanUp);

function fresh(): { store: PostgresStore; schema: string } {
  const schema = freshSchema();
  const made = { store: postgresStore({ connectionString: url }, { schema }), schema };
  open.push(made);
  return made;
}

describe("postgresStore: options", () => {
  it("a schema given as null (or any value not a name) is refused as store-io, never the default schema", () => {
    for (const schema of [null, 5, "", {}]) {
      let code: unknown = "none";
      try {
        postgresStore({ connectionString: "postgres://u:p@127.0.0.1:5432/db" }, { schema: schema as never });
      } catch (e) {
        code = (e as { code?: unknown }).code;
      }
      expect(code, `schema ${JSON.stringify(schema)}`).toBe("store-io");
    }
  });
});

describe.skipIf(NO_SERVER !== null)("postgresStore: answers as the memory store does", () => {
  it("wait with an after below 0: true at once, as the memory store answers (0 records is more than -1)", async () => {
    const { store } = fresh();
    const memory = memoryStore();
    for (const [after, timeout] of [
      [-1, 3_000],
      [-0.5, 3_000],
      [Number.NEGATIVE_INFINITY, 3_000],
      [-1, 0],
    ] as const) {
      const t0 = Date.now();
      const [got, want] = await Promise.all([store.wait!("empty", after, timeout), memory.wait!("empty", after, timeout)]);
      expect(want, `memory: after ${after}`).toBe(true);
      expect(got, `after ${after}, timeout ${timeout}`).toBe(want);
      expect(Date.now() - t0, `after ${after}: answered at once`).toBeLessThan(1_500);
    }
    // and where the two already agreed: a fraction of a record, nothing more to wait for
    await store.append("one", [rec()]);
    await memory.append("one", [rec()]);
    for (const after of [0.5, 1, 1.5]) expect(await store.wait!("one", after, 50), `after ${after}`).toBe(await memory.wait!("one", after, 50));
  }, 20_000);

  it("list and lengths leave out a row whose id is not a conversation id (as node-fs and IndexedDB do), and go on listing the others", async () => {
    const { store, schema } = fresh();
    await store.append("good", [rec()]);
    await store.append("zed", [rec()]);
    for (const id of ["bad id", "../up", "-dash", "x".repeat(201), ""]) {
      await admin(`INSERT INTO "${schema}".conversations (id, length) VALUES ($1, 1)`, [id]);
      await admin(`INSERT INTO "${schema}".batches (conversation, last, first, records) VALUES ($1, 1, 1, '[{"kind":"note"}]')`, [id]);
    }
    expect(await store.list!()).toEqual(["good", "zed"]);
    expect([...(await store.lengths!()).entries()]).toEqual([
      ["good", 1],
      ["zed", 1],
    ]);
  }, 20_000);
});

describe.skipIf(NO_SERVER !== null)("postgresStore: a batch row written by hand from seq 0", () => {
  it("is refused as damaged (store-io), never read without its first records", async () => {
    const { store, schema } = fresh();
    expect(await store.length!("c")).toBe(0); // (the tables are made on first use)
    await admin(`INSERT INTO "${schema}".conversations (id, length) VALUES ('c', 1)`);
    await admin(`INSERT INTO "${schema}".batches (conversation, last, first, records) VALUES ('c', 1, 0, '[{"kind":"zero"},{"kind":"one"}]')`);
    const read = String(await outcome(store.read("c")));
    expect(read).toMatch(/^store-io: /);
    expect(read).toContain("damaged");
    const scanned: unknown[] = [];
    expect(String(await outcome(store.scan!("c", 0, (r) => scanned.push(r))))).toMatch(/^store-io: .*damaged/);
    expect(scanned).toEqual([]);
  }, 20_000);
});

describe.skipIf(NO_SERVER !== null)("postgresStore: a schema that already holds another program's tables", () => {
  /**
   * `{ schema: "public" }` (or an app's own schema): the store's first use
   * made its tables "if not exists", so it adopted an app's own
   * `conversations` table, and read an app's `records` table as a release
   * before version 5's: it copied its rows into `batches` and DROPPED it.
   */
  it("is refused as store-io at first use, and the app's tables are left as they were", async () => {
    const schema = freshSchema();
    await admin(`CREATE SCHEMA "${schema}"`);
    try {
      await admin(`CREATE TABLE "${schema}".conversations (id text PRIMARY KEY, title text NOT NULL)`);
      await admin(`CREATE TABLE "${schema}".records (conversation text NOT NULL, seq integer NOT NULL, record json NOT NULL)`);
      await admin(`INSERT INTO "${schema}".conversations VALUES ('c', 'the app''s own')`);
      await admin(`INSERT INTO "${schema}".records VALUES ('c', 1, '{"app":"row"}')`);
      const store = postgresStore({ connectionString: url }, { schema });
      try {
        const appended = String(await outcome(store.append("c", [rec()])));
        expect(appended).toMatch(/^store-io: /);
        expect(appended).toContain("schema of its own");
        expect(String(await outcome(store.read("c")))).toMatch(/^store-io: /);
      } finally {
        await store.close();
      }
      const kinds = await admin<{ relname: string; relkind: string }>(
        "SELECT c.relname, c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind IN ('r', 'v') ORDER BY c.relname",
        [schema],
      );
      expect(kinds).toEqual([
        { relname: "conversations", relkind: "r" },
        { relname: "records", relkind: "r" },
      ]);
      expect(await admin(`SELECT * FROM "${schema}".records`)).toEqual([{ conversation: "c", seq: 1, record: { app: "row" } }]);
    } finally {
      await dropSchema(schema);
    }
  }, 20_000);

  it("a schema of its own made beforehand (empty, or holding only other tables) is used as before", async () => {
    const schema = freshSchema();
    await admin(`CREATE SCHEMA "${schema}"`);
    try {
      await admin(`CREATE TABLE "${schema}".app_users (id text PRIMARY KEY)`);
      const store = postgresStore({ connectionString: url }, { schema });
      try {
        expect(await store.append("c", [rec()])).toBe(1);
        expect((await store.read("c")).map((r) => r.seq)).toEqual([1]);
      } finally {
        await store.close();
      }
      // and a second store's first use on the schema it made
      const again = postgresStore({ connectionString: url }, { schema });
      expect(await again.append("c", [rec()], { expect: 1 })).toBe(2);
      await again.close();
    } finally {
      await dropSchema(schema);
    }
  }, 20_000);
});
