/**
 * `search_path` and the date and time settings of the store's role: the store
 * must find its own tables and functions whatever the path says, call the
 * server's functions (never a user's of the same name), and read times the
 * same under any TimeZone or DateStyle (the waiters' rows are timestamps).
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { PostgresStore } from "../../adapters/postgres/index.js";
import { ai } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { rec } from "../store/contract.js";
import { outcome, perTest, query } from "./fixtures/hunt9-gucs-kit.js";
import { NO_SERVER, freshSchema } from "./server.js";

const { playground, open } = perTest();

const liveness = (store: PostgresStore) => {
  const l = store.liveness;
  if (!l) throw new Error("the Postgres store has a liveness");
  return l;
};

describe.skipIf(NO_SERVER !== null)("postgres store: search_path and time settings of the role", () => {
  it("an empty search_path, TimeZone Pacific/Chatham, DateStyle 'SQL, DMY', IntervalStyle iso_8601: a turn runs, a wait wakes", async () => {
    const ground = await playground(
      { search_path: "", TimeZone: "Pacific/Chatham", DateStyle: "SQL, DMY", IntervalStyle: "iso_8601" },
      { TimeZone: "America/St_Johns" },
    );
    const schema = freshSchema();
    const a = open(ground.url, schema);
    const b = open(ground.url, schema);
    const answer = ai("answer", { description: "Answers.", input: { q: z.string() } });
    expect(await answer.conversation("sam", { store: a, lm: scripted([{ text: "forty-two" }]) }).send({ q: "What is it?" })).toBe("forty-two");
    const kinds = (await b.read("sam")).map((r) => r.kind);
    expect(kinds).toEqual(expect.arrayContaining(["turn", "lease", "reply", "ended"]));
    // a waiter's row says until when appends must notify it (a timestamp): read in the wrong zone it would
    // look run out, no append would notify, and the wait would only end at its timeout
    const length = await b.length!("sam");
    const t0 = Date.now();
    const woken = b.wait!("sam", length, 15_000);
    setTimeout(() => void a.append("sam", [rec("note")]), 300);
    expect(await woken).toBe(true);
    expect(Date.now() - t0).toBeLessThan(5_000);
    const until = await ground.sql<{ ahead: boolean }>(`SELECT bool_and(until > clock_timestamp()) AS ahead FROM "${schema}".waiters`);
    // (the woken waiter's row is taken away: none left, or only rows still ahead)
    expect(until[0]?.ahead ?? true).toBe(true);
  });

  it("a search_path naming a schema with tables of the store's names: the store's own tables are used", async () => {
    const ground = await playground({ search_path: "decoy, public" });
    await ground.sql(`CREATE SCHEMA decoy AUTHORIZATION ${ground.role}`);
    await ground.sql(`CREATE TABLE decoy.conversations (id text PRIMARY KEY, length integer)`);
    await ground.sql(`INSERT INTO decoy.conversations VALUES ('c', 99)`);
    await ground.sql(`GRANT ALL ON decoy.conversations TO ${ground.role}`);
    const schema = freshSchema();
    const store = open(ground.url, schema);
    expect(await store.length!("c")).toBe(0);
    expect(await store.append("c", [rec()], { expect: 0 })).toBe(1);
    expect(await store.list?.()).toEqual(["c"]);
  });

  // A user expects: the store's SQL calls the server's own functions; a function the app (or anyone who may
  // create in a schema on the role's search_path) defines cannot change the store's locks or fences. Before its fix:
  // the turn locks' keys and the append's fence are `hashtextextended(<text>, 0)` with 0 an integer
  // (liveness.ts TRY_LOCK/UNLOCK/LOCKS/IS_HELD; schema.ts appendFunction's fence), unqualified and without a
  // `SET search_path` on the function: PostgreSQL prefers a user's `public.hashtextextended(text, integer)`
  // (an exact match) over pg_catalog's `(text, bigint)` even though pg_catalog is searched first. A user function
  // of that name that returns one value gives every turn of the database one lock: a turn of another
  // conversation is refused as running on another host. Writing `pg_catalog.hashtextextended(…, 0::bigint)`
  // (or a `SET search_path = pg_catalog` on the functions) would keep the server's.
  it("a user's public.hashtextextended(text, integer) changes nothing: two turns of two conversations each hold their lock", async () => {
    const ground = await playground();
    // the role owns its database, so its public schema: the app's own functions live there
    await query(
      ground.url,
      `CREATE FUNCTION public.hashtextextended(t text, seed integer) RETURNS bigint LANGUAGE sql IMMUTABLE AS 'SELECT 7::bigint'`,
    );
    const schema = freshSchema();
    const a = open(ground.url, schema);
    const b = open(ground.url, schema);
    await a.length!("warm-up");
    const releaseA = await liveness(a).hold("sam", "turn-1");
    const got = await outcome(liveness(b).hold("kim", "turn-9"));
    releaseA();
    if (got.ok) (got.value as () => void)();
    expect(got).toEqual({ ok: true, value: expect.any(Function) });
  });
});
