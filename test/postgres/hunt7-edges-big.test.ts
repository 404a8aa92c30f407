/**
 * Hunt 7, on a real PostgreSQL server: big and odd records, long
 * conversations and long lists. DESIGN ("Stores": "a store keeps any JSON
 * record it is given"; read(conversation, after) gives the records after
 * `after`) and README ("Many hosts: PostgreSQL": records are kept as given
 * (`json`); `list` pages; reads are grouped). A NUL and a lone surrogate in
 * a string value on a lone append are record-json.test.ts's; exactly one
 * page of ids is hunt6-list-wait.test.ts's.
 */
import { describe, expect, it } from "vitest";
import { postgresStore, type PostgresStore } from "../../adapters/postgres/index.js";
import { scripted } from "../../src/testing/index.js";
import { rec } from "../store/contract.js";
import { BIG, LONG_LEASE, desk } from "./fixtures/hunt7-edges-desk.js";
import { NO_SERVER, SERVER_URL, dropSchema, freshSchema } from "./server.js";

const url = SERVER_URL ?? "";

/** Runs `run` with two stores on a fresh schema (a host writing, another reading), closed and the schema dropped after. */
async function twoStores(run: (store: PostgresStore, other: PostgresStore) => Promise<void>): Promise<void> {
  const schema = freshSchema();
  const store = postgresStore({ connectionString: url }, { schema });
  const other = postgresStore({ connectionString: url }, { schema });
  try {
    await run(store, other);
  } finally {
    await other.close();
    await store.close();
    await dropSchema(schema);
  }
}

describe.skipIf(NO_SERVER !== null)("postgresStore: big and odd records", () => {
  it("a tool output of 6 MB (with NULs and non-ASCII in it) is kept whole by a turn, and read back the same by another store", async () => {
    await twoStores(async (store, other) => {
      const size = 6 * 1024 * 1024;
      const d = desk(size);
      expect(await d.fn.conversation("big", { store, lm: scripted([BIG, { text: "done" }]), lease: LONG_LEASE }).send({ id: "x" })).toBe("done");
      const done = (await other.read("big")).find((r) => r.kind === "tool" && (r as { state?: unknown }).state === "done") as
        | { output?: { text?: string } }
        | undefined;
      expect(done?.output?.text?.length).toBe(size);
      expect(done?.output?.text === "é\u0000".repeat(size / 2)).toBe(true);
    });
  }, 20_000);

  it("odd strings (NUL in a key and a value, lone high and low surrogates, U+FFFF, U+2028) and 2,000-deep nesting, appended grouped at once, read back equal", async () => {
    await twoStores(async (store, other) => {
      let deep: unknown = "bottom\u0000";
      for (let i = 0; i < 2_000; i++) deep = i % 2 ? { a: deep } : [deep];
      const odd = (i: number) => [
        rec("odd", {
          i,
          "k\u0000ey": "a\u0000b",
          hi: "x\ud800",
          lo: "\udfffy",
          pair: "\ud83d\ude00",
          ffff: "\uffff",
          ls: "\u2028\u2029",
          esc: '"\\/\b\f\n\r\t',
        }),
        rec("deep", { i, deep }),
      ];
      // sixteen conversations at once: the appends go grouped (one statement of many), the reads too
      const ids = Array.from({ length: 16 }, (_, i) => `odd-${i}`);
      const written = ids.map((_, i) => odd(i));
      expect(await Promise.all(ids.map((id, i) => store.append(id, written[i]!)))).toEqual(ids.map(() => 2));
      const read = await Promise.all(ids.map((id) => other.read(id)));
      for (const [i, records] of read.entries()) expect(records).toEqual(written[i]!.map((r, k) => ({ ...r, seq: k + 1 })));
    });
  }, 20_000);

  it("a conversation of 10,000 records in 1,141 batches of 1 to 4,000: read(after) and scan from many places give exactly the records after", async () => {
    await twoStores(async (store, other) => {
      const batch = (from: number, n: number) => Array.from({ length: n }, (_, k) => rec("r", { n: from + k }));
      let next = 1;
      const put = async (n: number) => {
        const at = next;
        next += n;
        expect(await store.append("long", batch(at, n), { expect: at - 1 })).toBe(at - 1 + n);
      };
      for (let i = 0; i < 600; i++) await put(1);
      await put(4_000);
      for (let i = 0; i < 540; i++) await put(10);
      expect(next - 1).toBe(10_000);
      const all = await other.read("long");
      expect(all.length).toBe(10_000);
      expect(all.every((r, k) => r.seq === k + 1 && (r as { n?: number }).n === k + 1)).toBe(true);
      const afters = [0, 1, 2.5, 499, 500, 501, 599, 600, 601, 4_599, 4_600, 4_601, 9_990, 9_999, 10_000, 10_001, 2 ** 31, Infinity, -3, -Infinity];
      const firstOf = (after: number) => (after < 0 ? 1 : Math.floor(after) + 1);
      // at once: the reads of one conversation go grouped
      const reads = await Promise.all(afters.map((a) => other.read("long", a)));
      for (const [i, a] of afters.entries()) {
        const want = Math.max(0, 10_000 - firstOf(a) + 1);
        expect(reads[i]!.length, `after ${a}`).toBe(want);
        if (want > 0) expect([reads[i]![0]!.seq, reads[i]!.at(-1)!.seq], `after ${a}`).toEqual([firstOf(a), 10_000]);
      }
      for (const a of [0, 599, 4_600, 9_999, 10_000]) {
        const seen: number[] = [];
        const end = await other.scan!("long", a, (r) => void seen.push(r.seq));
        expect([end, seen.length, seen[0] ?? null], `scan after ${a}`).toEqual([10_000, 10_000 - a, a < 10_000 ? a + 1 : null]);
        expect(seen.every((s, k) => s === a + k + 1)).toBe(true);
      }
      expect(await other.wait!("long", 9_999, 5_000)).toBe(true);
      expect(await other.length!("long")).toBe(10_000);
    });
  }, 20_000);

  it("list() while conversations are made at once: every id that existed before it began is listed once, none twice, in order", async () => {
    const schema = freshSchema();
    const store = postgresStore({ connectionString: url }, { schema });
    const maker = postgresStore({ connectionString: url }, { schema });
    try {
      const before = Array.from({ length: 1_200 }, (_, i) => `p${String(i).padStart(4, "0")}`);
      for (let i = 0; i < before.length; i += 200) await Promise.all(before.slice(i, i + 200).map((id) => store.append(id, [rec()])));
      // made while the lists run: before, between and after the old ids, and waited-on empty ones
      const making = (async () => {
        for (let i = 0; i < 1_200; i += 100)
          await Promise.all(
            Array.from({ length: 100 }, (_, k) => {
              const j = i + k;
              return j % 10 === 0
                ? maker.wait!(`p${String(j).padStart(4, "0")}w`, 0, 0)
                : maker.append(`${["a", "p", "z"][j % 3]}${String(j).padStart(4, "0")}x`, [rec()]);
            }),
          );
      })();
      const lists = await Promise.all([store.list!(), store.list!(), maker.list!()]);
      await making;
      for (const ids of lists) {
        expect(new Set(ids).size).toBe(ids.length);
        expect([...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))).toEqual(ids);
        const listed = new Set(ids);
        expect(before.filter((id) => !listed.has(id))).toEqual([]);
        expect(ids.filter((id) => id.endsWith("w"))).toEqual([]);
      }
      const after = await store.list!();
      expect(after.length).toBe(1_200 + 1_200 - 120);
    } finally {
      await maker.close();
      await store.close();
      await dropSchema(schema);
    }
  }, 20_000);
});
