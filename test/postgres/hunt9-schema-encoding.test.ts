/**
 * Hunt 9, on a real PostgreSQL server: databases made with another
 * encoding than UTF8 (`CREATE DATABASE … ENCODING 'SQL_ASCII'` or 'LATIN1',
 * as older installations and some hosting images still are). DESIGN
 * ("Stores": a store keeps any JSON record it is given; an append is all or
 * none) and README (records kept as given, `json`). Odd strings on a UTF8
 * database are hunt7-edges-big.test.ts's and record-json.test.ts's.
 */
import { describe, expect, it } from "vitest";
import { postgresStore, type PostgresStore } from "../../adapters/postgres/index.js";
import { get, rec } from "../store/contract.js";
import { type Db, freshDb, outcome } from "./fixtures/hunt9-schema-kit.js";
import { NO_SERVER } from "./server.js";

/** Strings every JSON record may hold: Latin-1, emoji, CJK, lone surrogates, NUL, control characters, a backslash escape in text. */
const ODD = {
  latin: "é ü ß ÿ",
  emoji: "😀 👩‍👩‍👧",
  cjk: "漢字かな",
  high: "a\ud800b",
  low: "a\udc00b",
  nul: "a\u0000b",
  control: "\u0001\u001f\u007f",
  escape: "\\u00e9 \\ud800",
} as const;
type Name = keyof typeof ODD;

/** Runs `run` with two stores (hosts) on schema "s" of a fresh database of `encoding`. */
async function onEncoding(encoding: string, run: (store: PostgresStore, other: PostgresStore, db: Db) => Promise<void>): Promise<void> {
  const db = await freshDb(`ENCODING '${encoding}' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0`);
  const store = postgresStore({ connectionString: db.url() }, { schema: "s" });
  const other = postgresStore({ connectionString: db.url() }, { schema: "s" });
  try {
    await run(store, other, db);
  } finally {
    await other.close();
    await store.close();
    await db.drop();
  }
}

/** The value of `v` (and of the key named by it) of each conversation's records, as `store` reads them. */
const valuesRead = async (store: PostgresStore, ids: string[]): Promise<unknown[]> =>
  Promise.all(ids.map(async (id) => (await store.read(id)).map((r) => [get(r, "v"), get(r, "k")])));

describe.skipIf(NO_SERVER !== null)("postgresStore on a database of another encoding", () => {
  it("SQL_ASCII: every odd string, in a value and as a key, alone and grouped, is read back exactly by another host", async () => {
    await onEncoding("SQL_ASCII", async (store, other) => {
      const entries: [string, string][] = Object.entries(ODD);
      for (const [name, v] of entries) expect(await store.append(`one-${name}`, [rec("note", { v, k: { [v]: v } })])).toBe(1);
      // at once: grouped into one statement (the records go in as one JSON argument, read out with ->)
      expect(await Promise.all(entries.map(([name, v]) => store.append(`many-${name}`, [rec("note", { v, k: { [v]: v } })])))).toEqual(entries.map(() => 1));
      const want = entries.map(([, v]) => [[v, { [v]: v }]]);
      expect(await valuesRead(other, entries.map(([n]) => `one-${n}`))).toEqual(want);
      expect(await valuesRead(other, entries.map(([n]) => `many-${n}`))).toEqual(want);
      expect((await other.list!()).length).toBe(2 * entries.length);
    });
  }, 20_000);

  it("LATIN1: what the encoding holds is read back exactly; an emoji or CJK record is refused store-io naming the encoding, nothing of its batch kept, the appends grouped with it land", async () => {
    await onEncoding("LATIN1", async (store, other, db) => {
      const fits: [string, string][] = Object.entries(ODD).filter(([n]) => n !== "emoji" && n !== "cjk");
      for (const [name, v] of fits) expect(await store.append(`one-${name}`, [rec("note", { v, k: { [v]: v } })])).toBe(1);
      expect(await valuesRead(other, fits.map(([n]) => `one-${n}`))).toEqual(fits.map(([, v]) => [[v, { [v]: v }]]));

      // a batch of three whose last record holds an emoji: none of it kept
      const refused = String(await outcome(store.append("one-emoji", [rec("a"), rec("b"), rec("note", { v: ODD.emoji })])));
      expect(refused).toMatch(/^store-io: .*has no equivalent in encoding "LATIN1"/s);
      expect(await other.length!("one-emoji")).toBe(0);
      // grouped: eight appends at once, two of which cannot be kept; each has its own outcome
      const names = Object.keys(ODD) as Name[];
      const got = await Promise.all(names.map((n) => outcome(store.append(`many-${n}`, [rec("note", { v: ODD[n] })]))));
      for (const [i, n] of names.entries()) {
        if (n === "emoji" || n === "cjk") expect(got[i], n).toMatch(/^store-io: .*LATIN1/s);
        else expect(got[i], n).toBe(1);
      }
      expect(await db.run("SELECT conversation FROM s.batches WHERE conversation LIKE '%emoji' OR conversation LIKE '%cjk'")).toEqual([]);
      expect((await other.list!()).sort()).toEqual([...fits.map(([n]) => `one-${n}`), ...fits.map(([n]) => `many-${n}`)].sort());
      // the conversation a refused append was for stays usable
      expect(await store.append("one-emoji", [rec("after")], { expect: 0 })).toBe(1);
    });
  }, 20_000);
});
