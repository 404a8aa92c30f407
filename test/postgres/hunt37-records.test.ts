/**
 * Hunt 37, on a real PostgreSQL server: what records and names hold. DESIGN
 * "Stores": a store keeps any JSON record it is given. PostgreSQL's text
 * refuses a NUL character, and its `->>` refuses "\u0000" and lone
 * surrogates as it unescapes: records holding them (in values and in keys;
 * appended alone, or grouped with other appends in one statement; a turn of
 * that name held and fenced) are kept as given. Conversations listed in
 * pages, many written in one statement (one commit: equal timestamps), each
 * once. Two stores of different schemas on one pool of the caller's.
 */
import pg from "pg";
import { describe, expect, it } from "vitest";
import { postgresStore } from "../../adapters/postgres/index.js";
import { rec } from "../store/contract.js";
import { NO_SERVER, SERVER_URL, dropSchema, freshSchema } from "./server.js";

/** Strings PostgreSQL's text or its JSON operators refuse, or that JSON escapes. */
const AWKWARD = ["a\u0000b", "\u0000", "\ud800", "x\udfffy", "\u2028\u2029", "\\u0000", '"\\', "\u{1f600}", "\u0001\u001f"];

const awkwardRecord = (i: number) =>
  rec("note", {
    values: AWKWARD,
    [`k\u0000${i}`]: "\u0000",
    "\ud800": { nested: ["\u0000", "\udbff"] },
    i,
  });

/** A record as a store gives it back: as written, with its seq. */
const stripSeq = (r: object): object => {
  const { seq: _seq, ...rest } = r as Record<string, unknown>;
  return rest;
};

describe.skipIf(NO_SERVER !== null)("postgresStore: awkward records, many conversations, stores sharing a pool", () => {
  it("records with NUL and lone surrogates in values and keys, appended alone and 40 at once (grouped): each kept as given, read and scanned back", async () => {
    const schema = freshSchema();
    const store = postgresStore({ connectionString: SERVER_URL! }, { schema });
    try {
      expect(await store.append("alone", [awkwardRecord(0), awkwardRecord(1)])).toBe(2);
      const lengths = await Promise.all(Array.from({ length: 40 }, (_, i) => store.append(`c${i % 10}`, [awkwardRecord(i)])));
      expect(lengths.filter((n) => n === 4)).toHaveLength(10); // four appends to each of ten conversations
      const read = await store.read("alone");
      expect(read.map(stripSeq)).toEqual([awkwardRecord(0), awkwardRecord(1)].map((r) => ({ ...r, n: expect.any(Number) })));
      expect((read[0] as Record<string, unknown>)["values"]).toEqual(AWKWARD);
      for (let c = 0; c < 10; c++) {
        const got = await store.read(`c${c}`);
        expect(got.map((r) => r.seq)).toEqual([1, 2, 3, 4]);
        for (const r of got) expect((r as Record<string, unknown>)["values"]).toEqual(AWKWARD);
        const scanned: unknown[] = [];
        expect(await store.scan!(`c${c}`, 0, (r) => scanned.push(r))).toBe(4);
        expect(scanned).toEqual(got);
      }
    } finally {
      await store.close();
      await dropSchema(schema);
    }
  }, 60_000);

  it("a held turn named with NUL and a lone surrogate: its fenced appends (alone and grouped) go through, another store sees it held", async () => {
    const schema = freshSchema();
    const store = postgresStore({ connectionString: SERVER_URL! }, { schema });
    const other = postgresStore({ connectionString: SERVER_URL! }, { schema });
    const turn = "t\u0000\ud800";
    try {
      expect(await store.append("sam", [rec("turn", { turn })])).toBe(1);
      const release = await store.liveness!.hold("sam", turn);
      expect(await other.liveness!.isHeld("sam", turn)).toBe(true);
      expect(await other.liveness!.isHeld("sam", "t")).toBe(false);
      const all = await Promise.all([
        store.append("sam", [rec("lease", { turn })], { expect: 1 }),
        store.append("ann", [rec("lease", { turn })]),
        store.append("bob", [rec("lease", { turn })]),
        store.append("sam", [rec("reply", { turn })]),
      ]);
      expect(all).toEqual([2, 1, 1, 3]);
      expect((await store.read("sam")).map((r) => (r as Record<string, unknown>)["turn"])).toEqual([turn, turn, turn]);
      release();
    } finally {
      await other.close();
      await store.close();
      await dropSchema(schema);
    }
  }, 60_000);

  it("2,600 conversations written by a few statements (equal timestamps), over three pages: list and lengths give each once, in order", async () => {
    const schema = freshSchema();
    const store = postgresStore({ connectionString: SERVER_URL! }, { schema });
    try {
      const ids = Array.from({ length: 2_600 }, (_, i) => `c-${String(i).padStart(4, "0")}`);
      // (ids that sort near each other in C but not in a language's collation)
      ids.push("A", "a", "B", "b", "Z.z", "z_Z", "0", "9-");
      for (let at = 0; at < ids.length; at += 200) await Promise.all(ids.slice(at, at + 200).map((id) => store.append(id, [rec()])));
      await store.wait!("never-written", 0, 1); // a waiter's row of length 0: not listed
      const listed = await store.list!();
      expect(listed).toHaveLength(ids.length);
      expect(new Set(listed).size).toBe(ids.length);
      expect(listed).toEqual([...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
      const lengths = await store.lengths!();
      expect(lengths.size).toBe(ids.length);
      expect([...lengths.values()].every((n) => n === 1)).toBe(true);
    } finally {
      await store.close();
      await dropSchema(schema);
    }
  }, 120_000);

  it("two stores of different schemas on one given pool: same conversation ids, each its own records, waits and wake-ups; closing one leaves the other working", async () => {
    const [a, b] = [freshSchema(), `${freshSchema()}_b`];
    const pool = new pg.Pool({ connectionString: SERVER_URL, max: 4 });
    const first = postgresStore({ pool }, { schema: a });
    const second = postgresStore({ pool }, { schema: b });
    try {
      await Promise.all([first.append("sam", [rec()]), second.append("sam", [rec(), rec()])]);
      const waitA = first.wait!("sam", 1, 10_000);
      const waitB = second.wait!("sam", 2, 1_500);
      await new Promise((r) => setTimeout(r, 300));
      expect(await first.append("sam", [rec()])).toBe(2);
      expect(await waitA).toBe(true);
      expect(await waitB).toBe(false); // the other schema's append wakes nobody here
      expect((await first.read("sam")).length).toBe(2);
      expect((await second.read("sam")).length).toBe(2);
      await first.close();
      expect(await second.append("sam", [rec()], { expect: 2 })).toBe(3);
      expect(await second.list!()).toEqual(["sam"]);
    } finally {
      await first.close();
      await second.close();
      await pool.end();
      await dropSchema(a);
      await dropSchema(b);
    }
  }, 60_000);
});
