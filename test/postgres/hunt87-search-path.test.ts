/**
 * Hunt 87: the store's SQL functions (append, watch) run with the calling
 * session's search_path. PostgreSQL binds an operator that matches the
 * argument types exactly before pg_catalog's one that needs a cast, wherever
 * it sits on the path, so an operator of a user's or an extension's
 * (`float8 + integer`, `text || integer`) on the store role's search_path
 * took the place of pg_catalog's inside them: a waiter's row said it
 * waited until a time long gone (appends then notify nobody), and an
 * append's notification carried another payload (a waiter never woken). A
 * wait on a conversation that is appended to was not answered until its
 * timeout. Version 7 qualified one such function (hashtextextended); these
 * were left.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SCHEMA_VERSION, postgresStore } from "../../adapters/postgres/index.js";
import { NO_SERVER, SERVER_URL, admin, dropSchema, freshSchema } from "./server.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(NO_SERVER !== null)("operators of the role's search_path (PostgreSQL)", () => {
  const ops = `h87ops_${Math.random().toString(36).slice(2, 10)}`;
  const schema = freshSchema();
  beforeAll(async () => {
    // operators that match the store's expressions exactly, in a schema of this test's own (put first on the store's search_path)
    await admin(`CREATE SCHEMA "${ops}"`);
    await admin(`CREATE FUNCTION "${ops}".plus(float8, int4) RETURNS float8 LANGUAGE sql IMMUTABLE AS 'SELECT -1000000::float8'`);
    await admin(`CREATE OPERATOR "${ops}".+ (LEFTARG = float8, RIGHTARG = int4, FUNCTION = "${ops}".plus)`);
    await admin(`CREATE FUNCTION "${ops}".cat(text, int4) RETURNS text LANGUAGE sql IMMUTABLE AS $$SELECT 'not a payload'$$`);
    await admin(`CREATE OPERATOR "${ops}".|| (LEFTARG = text, RIGHTARG = int4, FUNCTION = "${ops}".cat)`);
  });
  afterAll(async () => {
    await dropSchema(schema);
    await dropSchema(ops);
  });

  /** Two stores on `on`, the operators first on their sessions' search_path. */
  const storesWithOps = (on: string) => {
    const url = new URL(SERVER_URL!);
    url.searchParams.set("options", `-c search_path=${ops},public`);
    return [postgresStore({ connectionString: url.toString() }, { schema: on }), postgresStore({ connectionString: url.toString() }, { schema: on })];
  };

  /**
   * A wait on "c" (which holds one record) by `waiting`: its waiter's row must last as long as the wait, and an
   * append by `writer` must wake it (within 20 s: it takes milliseconds; the wait's own timeout is 60 s).
   */
  async function wokenByAppend(on: string, waiting: ReturnType<typeof postgresStore>, writer: ReturnType<typeof postgresStore>) {
    let woke: boolean | "not yet" = "not yet";
    const wait = waiting.wait!("c", 1, 60_000).then((v) => {
      woke = v;
    });
    let rows: { live: boolean }[] = [];
    for (let i = 0; i < 200 && rows.length === 0; i++) {
      await sleep(50);
      rows = await admin<{ live: boolean }>(
        `SELECT until > clock_timestamp() + interval '50 seconds' AS live FROM "${on}".waiters WHERE conversation = 'c'`,
      );
    }
    expect(rows).toEqual([{ live: true }]); // until the wait's timeout and a little more, never a time gone by
    expect(await writer.append("c", [{ kind: "note", n: 2 }])).toBe(2);
    for (let i = 0; i < 400 && woke === "not yet"; i++) await sleep(50);
    expect(woke).toBe(true);
    await wait;
  }

  it("a wait is woken by an append at once, its waiter's row lasting as long as the wait, with such operators first on both stores' search_path", async () => {
    const [waiting, writer] = storesWithOps(schema);
    try {
      // (the operators are seen by the store's sessions)
      expect((await admin(`SELECT "${ops}".plus(1, 1) AS v`))[0]).toEqual({ v: -1000000 });
      await writer!.append("c", [{ kind: "note", n: 1 }]);
      await wokenByAppend(schema, waiting!, writer!);
    } finally {
      await waiting!.close();
      await writer!.close();
    }
  }, 120_000);

  it("tables of version 7 made before: their append and watch are made again on the next store's first use (the version stays 7), and its wait is woken", async () => {
    const old = freshSchema();
    try {
      const first = postgresStore({ connectionString: SERVER_URL! }, { schema: old });
      expect(await first.append("c", [{ kind: "note", n: 1 }])).toBe(1);
      await first.close();
      // as a release before this one made them: run with the caller's search_path
      await admin(`ALTER FUNCTION "${old}".append(text, json, integer, integer, integer, text, integer) RESET search_path`);
      await admin(`ALTER FUNCTION "${old}".watch(text, text, float8) RESET search_path`);
      const [waiting, writer] = storesWithOps(old);
      try {
        await wokenByAppend(old, waiting!, writer!);
        expect(await admin(`SELECT value FROM "${old}".meta WHERE key = 'schema_version'`)).toEqual([{ value: String(SCHEMA_VERSION) }]);
        expect((await writer!.read("c")).map((r) => (r as unknown as { n: number }).n)).toEqual([1, 2]);
      } finally {
        await waiting!.close();
        await writer!.close();
      }
    } finally {
      await dropSchema(old);
    }
  }, 120_000);
});
