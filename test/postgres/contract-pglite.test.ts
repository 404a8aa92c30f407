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

  it("migrates a version-2 schema (append fenced through pg_locks) on first use: only the new append is left", async () => {
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
    expect(rows.map((r) => r.args.replace(/p_\w+ /g, ""))).toEqual(["text, json, integer, integer, integer, text"]);
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

  it("has no liveness on one connection, and says its durability is disk", () => {
    const store = storeOn(pgliteDb(pg), { schema: freshSchema() });
    expect(store.liveness).toBeUndefined();
    expect(store.durability).toBe("disk");
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
