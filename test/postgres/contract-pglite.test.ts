import { PGlite } from "@electric-sql/pglite";
import { afterAll, describe, expect, it } from "vitest";
import { SCHEMA_VERSION } from "../../adapters/postgres/schema.js";
import { storeOn } from "../../adapters/postgres/store.js";
import { rec, storeContract } from "../store/contract.js";
import { freshSchema, pgliteDb } from "./pglite-db.js";

// One PostgreSQL in process for the file; each test has a schema of its own.
const pg = new PGlite();
afterAll(() => pg.close());

storeContract("postgresStore on pglite", async () => {
  const schema = freshSchema();
  return {
    store: storeOn(pgliteDb(pg), { schema }),
    reopen: async () => storeOn(pgliteDb(pg), { schema }),
    cleanup: async () => void (await pg.exec(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)),
  };
});

describe("postgresStore on pglite, beyond the contract", () => {
  /** The version a schema's tables say they are at. */
  const versionOf = async (schema: string): Promise<string | undefined> =>
    (await pg.query<{ value: string }>(`SELECT value FROM "${schema}".meta WHERE key = 'schema_version'`)).rows[0]?.value;
  /** A fresh schema whose conversation "c" holds one record, its store closed (to be aged by hand into an older version). */
  const withOneRecord = async (): Promise<string> => {
    const schema = freshSchema();
    const old = storeOn(pgliteDb(pg), { schema });
    await old.append("c", [rec()]);
    await old.close();
    return schema;
  };

  it("makes versioned tables on first use, in its own schema", async () => {
    const schema = freshSchema();
    const store = storeOn(pgliteDb(pg), { schema });
    expect(await store.read("c")).toEqual([]);
    expect(await versionOf(schema)).toBe(String(SCHEMA_VERSION));
    await store.close();
  });

  it("migrates a version-1 schema (no waiters table) on first use, and wait works on it", async () => {
    const schema = await withOneRecord();
    await pg.exec(`DROP TABLE "${schema}".waiters; UPDATE "${schema}".meta SET value = '1' WHERE key = 'schema_version'`);
    const store = storeOn(pgliteDb(pg), { schema });
    const woke = store.wait!("c", 1, 10_000);
    await store.append("c", [rec()], { expect: 1 });
    expect(await woke).toBe(true);
    expect(await versionOf(schema)).toBe(String(SCHEMA_VERSION));
    await store.close();
  });

  it("migrates a version-2 schema (append fenced through pg_locks) on first use: its append is dropped, this release's and version 4's signature are left", async () => {
    const schema = await withOneRecord();
    await pg.exec(`DROP FUNCTION "${schema}".append(text, json, integer, integer, integer, text);
      CREATE FUNCTION "${schema}".append(p_conversation text, p_records json, p_expect integer, p_fence_pid integer, p_fence text)
        RETURNS integer LANGUAGE sql AS 'SELECT -1';
      UPDATE "${schema}".meta SET value = '2' WHERE key = 'schema_version'`);
    const store = storeOn(pgliteDb(pg), { schema });
    expect(await store.append("c", [rec()], { expect: 1 })).toBe(2);
    const { rows } = await pg.query<{ args: string }>(
      `SELECT pg_get_function_identity_arguments(p.oid) AS args FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = $1 AND p.proname = 'append'`,
      [schema],
    );
    // this release's append, and version 4's signature (for a process of that release during a rolling upgrade)
    expect(rows.map((r) => r.args.replace(/p_\w+ /g, "")).sort()).toEqual([
      "text, json, integer, integer, integer, text",
      "text, json, integer, integer, integer, text, integer",
    ]);
    await store.close();
  });

  it("migrates a version-3 schema on first use: its append is replaced by this release's", async () => {
    const schema = await withOneRecord();
    // version 3's append, as far as this test needs it: one of the same signature that this release must replace
    await pg.exec(`CREATE OR REPLACE FUNCTION "${schema}".append(p_conversation text, p_records json, p_expect integer, p_session_a integer, p_session_b integer, p_fence text)
        RETURNS integer LANGUAGE sql AS 'SELECT -1';
      UPDATE "${schema}".meta SET value = '3' WHERE key = 'schema_version'`);
    const store = storeOn(pgliteDb(pg), { schema });
    expect(await store.append("c", [rec()], { expect: 1 })).toBe(2);
    expect(await versionOf(schema)).toBe(String(SCHEMA_VERSION));
    await store.close();
  });

  it("migrates a version-4 schema (a row per record) on first use: the records read the same, and appends go on", async () => {
    const schema = freshSchema();
    const c = [rec("a"), rec("b", { text: "two" }), rec("c")];
    const d = [rec("d")];
    // version 4's tables as far as this test needs them (its append is replaced as version 3's is above)
    await pg.exec(`CREATE SCHEMA "${schema}";
      CREATE TABLE "${schema}".meta (key text PRIMARY KEY, value text NOT NULL);
      INSERT INTO "${schema}".meta VALUES ('schema_version', '4');
      CREATE TABLE "${schema}".conversations (id text COLLATE "C" PRIMARY KEY, length integer NOT NULL,
        created timestamptz NOT NULL DEFAULT now(), updated timestamptz NOT NULL DEFAULT now());
      CREATE TABLE "${schema}".records (conversation text COLLATE "C" NOT NULL, seq integer NOT NULL, record json NOT NULL, PRIMARY KEY (conversation, seq));
      CREATE TABLE "${schema}".waiters (conversation text COLLATE "C" NOT NULL, token text NOT NULL, until timestamptz NOT NULL, PRIMARY KEY (conversation, token));
      INSERT INTO "${schema}".conversations (id, length) VALUES ('c', 3), ('d', 1);`);
    for (const [id, records] of [["c", c], ["d", d]] as const)
      for (const [i, r] of records.entries())
        await pg.query(`INSERT INTO "${schema}".records VALUES ($1, $2, $3::json)`, [id, i + 1, JSON.stringify(r)]);
    const store = storeOn(pgliteDb(pg), { schema });
    expect(await store.read("c")).toEqual(c.map((r, i) => ({ ...r, seq: i + 1 })));
    expect(await store.read("c", 1)).toEqual(c.slice(1).map((r, i) => ({ ...r, seq: i + 2 })));
    expect(await store.read("d")).toEqual([{ ...d[0], seq: 1 }]);
    expect(await versionOf(schema)).toBe(String(SCHEMA_VERSION));
    const more = [rec("e"), rec("f")];
    expect(await store.append("c", more, { expect: 3 })).toBe(5);
    expect(await store.read("c", 2)).toEqual([...c.slice(2), ...more].map((r, i) => ({ ...r, seq: i + 3 })));
    // one row per append from now on; `records` is a view of them, row per record, for older readers
    const batches = await pg.query<{ first: number; last: number }>(`SELECT first, last FROM "${schema}".batches WHERE conversation = 'c' ORDER BY last`);
    expect(batches.rows).toEqual([{ first: 1, last: 1 }, { first: 2, last: 2 }, { first: 3, last: 3 }, { first: 4, last: 5 }]);
    const view = await pg.query<{ seq: number; record: string }>(`SELECT seq, record::text AS record FROM "${schema}".records WHERE conversation = 'c' ORDER BY seq`);
    expect(view.rows).toEqual([...c, ...more].map((r, i) => ({ seq: i + 1, record: JSON.stringify(r) })));
    await store.close();
  });

  it("takes an append through version 4's signature (a process of that release, still running): one batch", async () => {
    const schema = await withOneRecord();
    const later = rec("later");
    const { rows } = await pg.query<{ length: number }>(`SELECT "${schema}".append($1, $2::json, $3, NULL, NULL, NULL) AS length`, [
      "c",
      JSON.stringify([later, later]),
      1,
    ]);
    expect(rows[0]!.length).toBe(3);
    const store = storeOn(pgliteDb(pg), { schema });
    expect((await store.read("c", 1)).map((r) => r.seq)).toEqual([2, 3]);
    await store.close();
  });

  it("refuses a batch that is not what its row says (store-io), never reads it as something else", async () => {
    for (const bad of [`[{"kind":"note"}]`, `[{"kind":"note"}, 7]`, `{"kind":"note"}`]) {
      const schema = await withOneRecord();
      // a second batch whose row says records 2…3
      await pg.query(`INSERT INTO "${schema}".batches (conversation, last, first, records) VALUES ('c', 3, 2, $1::json)`, [bad]);
      const store = storeOn(pgliteDb(pg), { schema });
      await expect(store.read("c")).rejects.toMatchObject({ code: "store-io", message: expect.stringMatching(/records 2…3 of c|record 3 of c/) });
      await store.close();
    }
    // a gap: record 2 missing between the batches 1…1 and 3…4, read from the start and from after 1
    const schema = await withOneRecord();
    await pg.query(`INSERT INTO "${schema}".batches (conversation, last, first, records) VALUES ('c', 4, 3, $1::json)`, [`[{"kind":"a"},{"kind":"b"}]`]);
    const store = storeOn(pgliteDb(pg), { schema });
    for (const after of [0, 1])
      await expect(store.read("c", after)).rejects.toMatchObject({ code: "store-io", message: expect.stringContaining("skip from") });
    expect((await store.read("c", 3)).map((r) => r.seq)).toEqual([4]); // from inside the batch after the gap: what is there
    await store.close();
  });

  it("keeps records as given (json, not jsonb: key order and \\u0000 escapes too)", async () => {
    const schema = freshSchema();
    const store = storeOn(pgliteDb(pg), { schema });
    await store.append("c", [{ z: 1, a: "nul \u0000 here", kind: "odd", m: 2 }]);
    const { rows } = await pg.query<{ record: string }>(`SELECT record::text AS record FROM "${schema}".records`);
    expect(rows[0]!.record).toBe(JSON.stringify({ z: 1, a: "nul \u0000 here", kind: "odd", m: 2 }));
    expect(await store.read("c")).toEqual([{ z: 1, a: "nul \u0000 here", kind: "odd", m: 2, seq: 1 }]);
    await store.close();
  });

  it("refuses a schema written by a newer release (store-io), and a bad schema name", async () => {
    const schema = freshSchema();
    const store = storeOn(pgliteDb(pg), { schema });
    await store.append("c", [rec()]);
    await pg.query(`UPDATE "${schema}".meta SET value = '99' WHERE key = 'schema_version'`);
    const later = storeOn(pgliteDb(pg), { schema });
    await expect(later.read("c")).rejects.toMatchObject({ code: "store-io", message: expect.stringContaining("version 99") });
    expect(() => storeOn(pgliteDb(pg), { schema: "Bad-Name" })).toThrow(expect.objectContaining({ code: "store-io" }));
    await store.close();
  });

  it("refuses a schema whose version is not a number (store-io naming it), never guesses which version its tables are", async () => {
    for (const bad of ["five", "NaN", "Infinity"]) {
      const schema = await withOneRecord();
      await pg.query(`UPDATE "${schema}".meta SET value = $1 WHERE key = 'schema_version'`, [bad]);
      const store = storeOn(pgliteDb(pg), { schema });
      await expect(store.read("c"), bad).rejects.toMatchObject({ code: "store-io", message: expect.stringContaining(JSON.stringify(bad)) });
      await store.close();
    }
  });

  it("has no liveness on one connection, and says its durability is disk", () => {
    const store = storeOn(pgliteDb(pg), { schema: freshSchema() });
    expect(store.liveness).toBeUndefined();
    expect(store.durability).toBe("disk");
  });

  it("a seq beyond any a conversation can hold (PostgreSQL's integer) reads nothing, and an expected length beyond it is store-conflict", async () => {
    const store = storeOn(pgliteDb(pg), { schema: freshSchema() });
    await store.append("c", [rec(), rec()]);
    for (const after of [2 ** 31 - 1, 2 ** 31, 3e9, 1e300, Number.MAX_VALUE, Infinity]) {
      expect(await store.read("c", after), String(after)).toEqual([]);
      expect(await store.scan!("c", after, () => undefined), String(after)).toBe(2);
      expect(await store.wait!("c", after, 0), String(after)).toBe(false);
    }
    for (const expected of [2 ** 31, 2 ** 40, Number.MAX_SAFE_INTEGER])
      await expect(store.append("c", [rec()], { expect: expected }), String(expected)).rejects.toMatchObject({ code: "store-conflict" });
    expect(await store.length!("c")).toBe(2);
    await store.close();
  });

  it("lists conversations page by page", async () => {
    const store = storeOn(pgliteDb(pg), { schema: freshSchema() });
    const ids = Array.from({ length: 1203 }, (_, i) => `c${String(i).padStart(5, "0")}`);
    for (const id of ids) await store.append(id, [rec()]);
    expect(await store.list!()).toEqual(ids);
    await store.close();
  });

  it("scans a long conversation page by page and resolves to its length", async () => {
    const store = storeOn(pgliteDb(pg), { schema: freshSchema() });
    await store.append(
      "c",
      Array.from({ length: 1234 }, (_, i) => rec("x", { i })),
    );
    const seen: number[] = [];
    expect(await store.scan!("c", 3, (r) => seen.push(r.seq))).toBe(1234);
    expect(seen).toEqual(Array.from({ length: 1231 }, (_, i) => i + 4));
    expect(await store.scan!("c", 2000, () => undefined)).toBe(1234);
    expect(await store.scan!("none", 0, () => undefined)).toBe(0);
    await store.close();
  });
});
