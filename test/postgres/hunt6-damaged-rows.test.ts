/**
 * Hunt 6, on a real PostgreSQL server: rows changed by hand so that the
 * tables disagree with themselves (a missing batch at the end, a missing
 * conversation row, a length behind or beyond the batches, a negative one).
 * README ("Postgres": records are kept as given; errors are store-io saying
 * what to fix) and store.ts's `unbatch` ("a row that does not start at
 * `next` … is refused (store-io), never read as something else") say such
 * rows are refused as damaged, never misread. The gaps between rows and
 * batches that are not arrays of objects are record-json.test.ts's and
 * contract-pglite.test.ts's; these are the ones the length tells.
 */
import { afterEach, describe, expect, it } from "vitest";
import { storeIo } from "../../adapters/postgres/errors.js";
import { SCHEMA_VERSION, postgresStore, type PostgresStore } from "../../adapters/postgres/index.js";
import { rec } from "../store/contract.js";
import { NO_SERVER, SERVER_URL, admin, freshSchema, openStores, outcome } from "./server.js";

const url = SERVER_URL ?? "";

const { open, cleanUp } = openStores();
afterEach(cleanUp);

/** A fresh store whose conversation "c" holds three records in two batches (1…1, 2…3). */
async function threeRecords(): Promise<{ store: PostgresStore; schema: string }> {
  const schema = freshSchema();
  const store = postgresStore({ connectionString: url }, { schema });
  open.push({ store, schema });
  expect(await store.append("c", [rec("a")])).toBe(1);
  expect(await store.append("c", [rec("b"), rec("c")])).toBe(3);
  return { store, schema };
}

const DAMAGED = /^store-io: .*damaged/s;

describe.skipIf(NO_SERVER !== null)("postgresStore: rows that disagree with the length (hand-made damage)", () => {
  it("a record that carries a seq of its own is read at the seq its batch gives it (the row's word, not the record's)", async () => {
    const { store, schema } = await threeRecords();
    await admin(`UPDATE "${schema}".batches SET records = '[{"kind":"b","seq":9},{"kind":"c","seq":1}]'::json WHERE conversation = 'c' AND last = 3`);
    expect((await store.read("c")).map((r) => [r.kind, r.seq])).toEqual([
      ["a", 1],
      ["b", 2],
      ["c", 3],
    ]);
  }, 20_000);

  // Was: the last batch row deleted (conversations.length still 3), read gave 1 record and scan resolved to 1 while
  // length said 3: a turn's lost `done` or `started` record read as a turn not finished, or a tool not started.
  // `page`/`unbatch` checked the rows only against each other. Now READ/READ_MANY bring the conversation's length with
  // the rows (same statement, same snapshot) and `page` refuses (store-io, damaged) a read to the end that stops short of it.
  it("a conversation whose last batch row is missing (its length says 3, its rows 1) is refused as damaged, never read as one record", async () => {
    const { store, schema } = await threeRecords();
    await admin(`DELETE FROM "${schema}".batches WHERE conversation = 'c' AND last = 3`);
    expect(await store.length!("c")).toBe(3);
    expect(await outcome(store.read("c"))).toMatch(DAMAGED);
  }, 20_000);

  // Was: an append without `expect` on that conversation landed at 4, past the missing 2…3, so the damage grew. The
  // append function (schema.ts, version 6) now compares the length with the newest batch's `last` under the row's lock,
  // in the same statement, and raises (FD001, told as damaged by storeIo): nothing is written.
  it("an append without an expected length on a conversation whose last batch is missing is refused, not written past the hole", async () => {
    const { store, schema } = await threeRecords();
    await admin(`DELETE FROM "${schema}".batches WHERE conversation = 'c' AND last = 3`);
    const appended = await outcome(store.append("c", [rec("d")]));
    const rows = await admin<{ n: number }>(`SELECT count(*)::int AS n FROM "${schema}".batches WHERE conversation = 'c'`);
    expect({ appended, rows: rows[0]!.n }).toEqual({ appended: expect.stringMatching(DAMAGED), rows: 1 });
  }, 20_000);

  // Was: conversations.length set behind the batches (3 records, length 1), read gave 3 records while length said 1,
  // and an append of one record was written as a batch 2…2 over the batch 2…3 (its key, last = 2, was free; a longer one
  // failed as a bare duplicate key on batches_pkey). The append function trusted the length. Now it refuses a length that
  // is not where the newest batch ends (damaged, nothing written), and storeIo tells 23505 on batches_pkey as damaged too.
  // (A read still gives the batches beyond the length: contract-pglite.test.ts reads what lies after a gap.)
  it("a length behind the batches: the append is refused as damaged (not a bare duplicate-key message)", async () => {
    const { store, schema } = await threeRecords();
    await admin(`UPDATE "${schema}".conversations SET length = 1 WHERE id = 'c'`);
    expect(await outcome(store.append("c", [rec("d")]))).toMatch(DAMAGED);
  }, 20_000);

  // Was: the conversations row deleted while its batches stay, read gave the records while length said 0 and list left
  // the conversation out; an append failed on batches_pkey. The read read batches alone. Now its statement joins the
  // conversation's row and refuses batches with none as damaged (and the append refuses: a length of 0, batches to 3).
  it("batches whose conversation row is missing are refused as damaged (never read while length says 0 and list omits it)", async () => {
    const { store, schema } = await threeRecords();
    await admin(`DELETE FROM "${schema}".conversations WHERE id = 'c'`);
    expect(await outcome(store.read("c"))).toMatch(DAMAGED);
  }, 20_000);

  // Was (the worst of these): a negative length (-5) by hand; length() answered -5, and an append without `expect`
  // COMMITTED a batch at -4, set the length to -4, and rejected with store-conflict: the function's cur + n = -4 read as
  // the -2 - length code of a mismatch, so a caller that retried wrote its records twice. Now the function raises
  // (damaged, nothing written) on a length below 0 or not where the newest batch ends, and the client refuses a negative
  // length wherever it reads one (length, read, wait) as damaged.
  it("a negative length is refused as damaged and nothing is written (never a committed append reported as a conflict)", async () => {
    const { store, schema } = await threeRecords();
    await admin(`UPDATE "${schema}".conversations SET length = -5 WHERE id = 'c'`);
    const appended = await outcome(store.append("c", [rec("d")]));
    const rows = await admin<{ n: number }>(`SELECT count(*)::int AS n FROM "${schema}".batches WHERE conversation = 'c'`);
    expect({ appended, rows: rows[0]!.n }).toEqual({ appended: expect.stringMatching(DAMAGED), rows: 2 });
  }, 20_000);

  // With `expect`, the mismatch path answered -2 - length: for a length of -5 and `expect` 3 that is 3, which the client
  // took for the new length of an append that wrote nothing. The function refuses a negative length there too.
  it("an append with an expected length on a negative length is refused as damaged, never answered as a length", async () => {
    const { store, schema } = await threeRecords();
    await admin(`UPDATE "${schema}".conversations SET length = -5 WHERE id = 'c'`);
    expect(await outcome(store.append("c", [rec("d")], { expect: 3 }))).toMatch(DAMAGED);
    expect(await outcome(store.append("c", [], { expect: 3 }))).toMatch(DAMAGED);
    expect(await outcome(store.length!("c"))).toMatch(DAMAGED);
    const rows = await admin<{ n: number }>(`SELECT count(*)::int AS n FROM "${schema}".batches WHERE conversation = 'c'`);
    expect(rows[0]!.n).toBe(2);
  }, 20_000);

  // Reads that come while two are out go as one statement (READ_MANY): each read keeps its own length check and outcome.
  it("reads grouped in one statement each check their own conversation: the damaged one is refused, the others read", async () => {
    const { store, schema } = await threeRecords();
    for (const id of ["d", "e", "f"]) await store.append(id, [rec(id)]);
    await admin(`DELETE FROM "${schema}".batches WHERE conversation = 'c' AND last = 3`);
    const got = await Promise.all(["d", "e", "c", "f", "c"].map((id) => outcome(store.read(id).then((rs) => rs.map((r) => r.kind)))));
    expect(got).toEqual([["d"], ["e"], expect.stringMatching(DAMAGED), ["f"], expect.stringMatching(DAMAGED)]);
  }, 20_000);

  // The checks are in the append function: a schema an earlier release made (version 5, its append trusting the length)
  // gets this one's on first use, as every version's DDL is run again when the schema is older.
  it("a schema at version 5 gets the append that refuses damaged rows on its first use by this release", async () => {
    const { store, schema } = await threeRecords();
    await store.close();
    open.splice(0);
    // a stand-in for version 5's append, which trusted the length (this one answers 42 whatever the rows)
    await admin(
      `CREATE OR REPLACE FUNCTION "${schema}".append(p_conversation text, p_records json, p_expect integer, p_session_a integer, p_session_b integer, p_fence text, p_n integer)
       RETURNS integer LANGUAGE sql AS 'SELECT 42'`,
    );
    await admin(`UPDATE "${schema}".meta SET value = '5' WHERE key = 'schema_version'`);
    await admin(`UPDATE "${schema}".conversations SET length = 1 WHERE id = 'c'`);
    const again = postgresStore({ connectionString: url }, { schema });
    open.push({ store: again, schema });
    expect(await outcome(again.append("c", [rec("d")]))).toMatch(DAMAGED);
    expect(await admin(`SELECT value FROM "${schema}".meta WHERE key = 'schema_version'`)).toEqual([{ value: String(SCHEMA_VERSION) }]);
  }, 20_000);

  it("a duplicate key on batches_pkey (a batch's place taken) is told as damaged rows, not as the server's bare message", () => {
    const e = Object.assign(new Error('duplicate key value violates unique constraint "batches_pkey"'), {
      code: "23505",
      constraint: "batches_pkey",
      severity: "ERROR",
    });
    const told = storeIo(e, "append to c", "the server");
    expect(`${told.code}: ${told.message}`).toMatch(DAMAGED);
  });
});
