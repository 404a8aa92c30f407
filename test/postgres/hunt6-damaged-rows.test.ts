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
import { postgresStore, type PostgresStore } from "../../adapters/postgres/index.js";
import { rec } from "../store/contract.js";
import { NO_SERVER, SERVER_URL, admin, dropSchema, freshSchema } from "./server.js";

const url = SERVER_URL ?? "";

/** How `p` settles: its value, or "<code>: <message>". */
async function outcome(p: Promise<unknown>): Promise<unknown> {
  try {
    return await p;
  } catch (e) {
    return `${String((e as { code?: unknown }).code)}: ${String((e as Error).message)}`;
  }
}

const open: { store: PostgresStore; schema: string }[] = [];
afterEach(async () => {
  for (const { store, schema } of open.splice(0)) {
    await store.close();
    await dropSchema(schema);
  }
});

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

  // BUG: the last batch row deleted (conversations.length still 3): read gives 1 record, scan resolves to 1, length says 3.
  // A reader (a conversation's history) takes the conversation for shorter than it is: a turn's `done` or `started`
  // record lost so reads as a turn not finished, or a tool not started. Cause: adapters/postgres/store.ts `page`/`unbatch`
  // (about line 225) check the rows only against each other, never that they reach the conversation's length.
  // Fix: READ/READ_MANY return conversations.length with the rows (one more column) and `page` refuses (damaged) when
  // a read to the end stops short of it.
  it.fails("a conversation whose last batch row is missing (its length says 3, its rows 1) is refused as damaged, never read as one record", async () => {
    const { store, schema } = await threeRecords();
    await admin(`DELETE FROM "${schema}".batches WHERE conversation = 'c' AND last = 3`);
    expect(await store.length!("c")).toBe(3);
    expect(await outcome(store.read("c"))).toMatch(DAMAGED);
  }, 20_000);

  // BUG: same cause, other way round: an append without `expect` on that conversation lands at 4, past the missing 2…3,
  // so the damage grows (read then reports a gap). A fix as above, plus the append function refusing when
  // conversations.length does not match the newest batch's `last`, would refuse it.
  it.fails("an append without an expected length on a conversation whose last batch is missing is refused, not written past the hole", async () => {
    const { store, schema } = await threeRecords();
    await admin(`DELETE FROM "${schema}".batches WHERE conversation = 'c' AND last = 3`);
    const appended = await outcome(store.append("c", [rec("d")]));
    const rows = await admin<{ n: number }>(`SELECT count(*)::int AS n FROM "${schema}".batches WHERE conversation = 'c'`);
    expect({ appended, rows: rows[0]!.n }).toEqual({ appended: expect.stringMatching(DAMAGED), rows: 1 });
  }, 20_000);

  // BUG: conversations.length set behind the batches (3 records, length 1): read gives 3 records while length says 1,
  // and an append fails as "duplicate key value violates unique constraint batches_pkey (see the server's message)",
  // which says nothing of damage or what to fix. Cause: the append function (adapters/postgres/schema.ts, appendFunction)
  // trusts conversations.length and lets the batches' primary key refuse; store.ts's `unbatch` never compares with the
  // length. Fix: map 23505 on batches_pkey to the DAMAGED fix in errors.ts (storeIo), and check the length on read.
  it.fails("a length behind the batches: the append is refused as damaged (not a bare duplicate-key message)", async () => {
    const { store, schema } = await threeRecords();
    await admin(`UPDATE "${schema}".conversations SET length = 1 WHERE id = 'c'`);
    expect(await outcome(store.append("c", [rec("d")]))).toMatch(DAMAGED);
  }, 20_000);

  // BUG: the conversations row deleted while its batches stay: read gives the record, length says 0, list leaves the
  // conversation out, and an append fails on batches_pkey. Cause: lengthOf and list read conversations alone and the
  // read reads batches alone (store.ts lengthOf / list / page). Fix: the read's statement joins the conversation's row
  // (as above) and refuses batches with no row as damaged.
  it.fails("batches whose conversation row is missing are refused as damaged (never read while length says 0 and list omits it)", async () => {
    const { store, schema } = await threeRecords();
    await admin(`DELETE FROM "${schema}".conversations WHERE id = 'c'`);
    expect(await outcome(store.read("c"))).toMatch(DAMAGED);
  }, 20_000);

  // BUG (the worst of these): a negative length (-5) by hand. length() answers -5; an append without `expect` COMMITS a
  // batch at -4 and sets the length to -4, yet rejects with store-conflict ("expected 0 records, found 2"): the caller is
  // told nothing was written, and one that retries writes its records twice. Cause: schema.ts appendFunction returns
  // cur + n = -4, which store.ts `append` (about line 300) reads as the -2 - length code of a mismatch. Fix: the
  // function RAISEs (nothing written) when the row's length is below 0 (or a CHECK (length >= 0) on the table), and the
  // client refuses a negative length read by lengthOf as damaged.
  it.fails("a negative length is refused as damaged and nothing is written (never a committed append reported as a conflict)", async () => {
    const { store, schema } = await threeRecords();
    await admin(`UPDATE "${schema}".conversations SET length = -5 WHERE id = 'c'`);
    const appended = await outcome(store.append("c", [rec("d")]));
    const rows = await admin<{ n: number }>(`SELECT count(*)::int AS n FROM "${schema}".batches WHERE conversation = 'c'`);
    expect({ appended, rows: rows[0]!.n }).toEqual({ appended: expect.stringMatching(DAMAGED), rows: 2 });
  }, 20_000);
});
