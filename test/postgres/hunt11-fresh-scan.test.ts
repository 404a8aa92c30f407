/**
 * Hunt 11 (fresh code): the Postgres store's scan pages by size (its first
 * page 16 batches, then about 4 MB by the size of the last): what it visits
 * agrees with read and length whatever the batches' sizes and `after`.
 */
import { describe, expect, it } from "vitest";
import { postgresStore } from "../../adapters/postgres/index.js";
import type { ConversationRecord } from "../../src/records/types.js";
import { rec } from "../store/contract.js";
import { NO_SERVER, SERVER_URL, dropSchema, freshSchema } from "./server.js";

type Store = ReturnType<typeof postgresStore>;

const seqs = (records: readonly ConversationRecord[]): number[] => records.map((r) => r.seq);
const range = (from: number, to: number): number[] => Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);

/** What a scan visits from `after`, and what it returns. */
async function scanned(store: Store, id: string, after: number): Promise<{ seqs: number[]; last: number }> {
  const got: ConversationRecord[] = [];
  const last = await store.scan!(id, after, (r) => got.push(r));
  return { seqs: seqs(got), last };
}

/** The conversation's batches, each of `sizes[i]` records; `pad` characters in each record of the batches `big` says. */
async function fill(store: Store, id: string, sizes: number[], big: (i: number) => number = () => 0): Promise<number> {
  let length = 0;
  for (const [i, n] of sizes.entries())
    length = await store.append(
      id,
      Array.from({ length: n }, () => rec("note", { pad: "x".repeat(big(i)) })),
    );
  return length;
}

describe.skipIf(NO_SERVER !== null)("hunt11 fresh: scan pages by size (real server)", () => {
  it("15, 16, 17, 32 and 33 batches of 3 records: a scan from each `after` (0, inside a batch, a batch's end, the last) visits every record after it once, in order, and returns the length; read and length agree", async () => {
    const schema = freshSchema();
    const store = postgresStore({ connectionString: SERVER_URL! }, { schema });
    try {
      for (const batches of [15, 16, 17, 32, 33]) {
        const id = `b${batches}`;
        const length = await fill(store, id, Array.from({ length: batches }, () => 3));
        expect(length).toBe(batches * 3);
        expect(await store.length!(id)).toBe(length);
        for (const after of [0, 1, 2, 3, 47, 48, 49, length - 1, length]) {
          if (after > length) continue;
          const { seqs: visited, last } = await scanned(store, id, after);
          expect(visited).toEqual(range(after + 1, length));
          expect(last).toBe(length);
          expect(seqs(await store.read(id, after))).toEqual(visited);
        }
        // past the end: nothing visited, the length returned
        expect(await scanned(store, id, length + 5)).toEqual({ seqs: [], last: length });
      }
    } finally {
      await store.close();
      await dropSchema(schema);
    }
  }, 20_000);

  it("tiny batches, then huge ones (about 1 MB each), then tiny ones again: the scan visits each record once, in order, from any `after`", async () => {
    const schema = freshSchema();
    const store = postgresStore({ connectionString: SERVER_URL! }, { schema });
    try {
      // 20 tiny batches (past the first page of 16), 12 of about 1 MB, 600 tiny ones (past a page of 500 rows)
      const sizes = [...Array.from({ length: 20 }, () => 2), ...Array.from({ length: 12 }, () => 1), ...Array.from({ length: 600 }, () => 1)];
      const length = await fill(store, "mixed", sizes, (i) => (i >= 20 && i < 32 ? 1_000_000 : 0));
      expect(length).toBe(40 + 12 + 600);
      for (const after of [0, 1, 39, 40, 41, 45, 51, 52, 53, 400]) {
        const { seqs: visited, last } = await scanned(store, "mixed", after);
        expect(visited).toEqual(range(after + 1, length));
        expect(last).toBe(length);
      }
      expect((await store.read("mixed")).length).toBe(length);
      expect(await store.length!("mixed")).toBe(length);
    } finally {
      await store.close();
      await dropSchema(schema);
    }
  }, 20_000);

  it("a conversation growing during the scan (another store appends at each page): the scan visits records in order with no gap or repeat, returns the last seq it visited, and a scan after it reads the rest", async () => {
    const schema = freshSchema();
    const store = postgresStore({ connectionString: SERVER_URL! }, { schema });
    const other = postgresStore({ connectionString: SERVER_URL! }, { schema });
    try {
      const start = await fill(store, "grow", Array.from({ length: 40 }, () => 2));
      const got: number[] = [];
      const appends: Promise<number>[] = [];
      const last = await store.scan!("grow", 0, (r) => {
        got.push(r.seq);
        if (r.seq % 16 === 0 && appends.length < 20) appends.push(other.append("grow", [rec(), rec(), rec()]));
      });
      await Promise.all(appends);
      expect(got).toEqual(range(1, got.length));
      expect(got.length).toBeGreaterThanOrEqual(start);
      expect(last).toBe(got.length);
      const length = await store.length!("grow");
      expect(length).toBe(start + appends.length * 3);
      const rest = await scanned(store, "grow", last);
      expect(rest).toEqual({ seqs: range(last + 1, length), last: length });
    } finally {
      await other.close();
      await store.close();
      await dropSchema(schema);
    }
  }, 20_000);

  it("scans of many conversations at once (grouped reads), each of a different size: each visits its own records only, all of them", async () => {
    const schema = freshSchema();
    const store = postgresStore({ connectionString: SERVER_URL! }, { schema });
    try {
      const ids = Array.from({ length: 24 }, (_, i) => `g${i}`);
      const lengths = await Promise.all(ids.map((id, i) => fill(store, id, Array.from({ length: i * 3 }, () => 1 + (i % 3)))));
      const got = await Promise.all(ids.map((id, i) => scanned(store, id, i % 4)));
      for (const [i, g] of got.entries()) {
        expect(g.seqs).toEqual(range((i % 4) + 1, lengths[i]!));
        expect(g.last).toBe(Math.max(lengths[i]!, 0));
      }
    } finally {
      await store.close();
      await dropSchema(schema);
    }
  }, 20_000);
});
