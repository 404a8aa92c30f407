/**
 * Hunt 6, on a real PostgreSQL server: `list` at its page edges (exactly one
 * page, one more than a page, ids of every allowed character and of the
 * longest length, rows a wait made with no record among them); many waits
 * with different timeouts on one conversation; waits when the store is
 * closed; two stores of different schemas on one database staying apart
 * (records, list, wait, turn locks). README "Many hosts: PostgreSQL" and
 * the store contract (test/store/contract.ts) say what each must give.
 */
import { describe, expect, it } from "vitest";
import { postgresStore } from "../../adapters/postgres/index.js";
import { rec } from "../store/contract.js";
import { NO_SERVER, SERVER_URL, admin, dropSchema, freshSchema, settle } from "./server.js";

const url = SERVER_URL ?? "";
const PAGE = 1_000; // store.ts's page of conversations (CONVERSATION_PAGE)

/** Code-point order (the ids are ASCII: the same as the server's "C" collation). */
const sorted = (ids: readonly string[]): string[] => [...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

describe.skipIf(NO_SERVER !== null)("postgresStore list at its page edges", () => {
  it("exactly one page, then one more, then ids of every allowed character and the longest length, with waited-on empty rows between", async () => {
    const schema = freshSchema();
    const store = postgresStore({ connectionString: url }, { schema });
    try {
      // exactly a page: the second query finds nothing
      const first = Array.from({ length: PAGE }, (_, i) => `p${String(i).padStart(4, "0")}`);
      await Promise.all(first.map((id) => store.append(id, [rec()])));
      expect(await store.list!()).toEqual(first);
      // one more than a page, the extra one sorting first ("-" and "." sort before digits and letters)
      const odd = ["0", "0-", "0.", "0_", "A", "Z.z", "a", "a-b.c_d", "z".repeat(200), `9${"-._".repeat(66)}x`];
      for (const id of odd) expect(await store.append(id, [rec(), rec()]), id).toBe(2);
      // rows a wait made (length 0) sort among them and at the page's edge: never listed, never cutting a page short
      const empty = ["0--", "p0999-", "p0500.", "zz", "p1000"];
      await Promise.all(empty.map((id) => store.wait!(id, 0, 1_500))); // long enough for each to write its row
      const made = await admin<{ n: number }>(`SELECT count(*)::int AS n FROM "${schema}".conversations WHERE length = 0`);
      expect(made[0]!.n).toBe(empty.length);
      const listed = await store.list!();
      expect(listed).toEqual(sorted([...first, ...odd]));
      expect(listed.length).toBe(PAGE + odd.length);
      // another store on the same schema lists the same
      const other = postgresStore({ connectionString: url }, { schema });
      expect(await other.list!()).toEqual(listed);
      await other.close();
    } finally {
      await store.close();
      await dropSchema(schema);
    }
  }, 20_000);
});

describe.skipIf(NO_SERVER !== null)("postgresStore waits: many at once with different timeouts, and close", () => {
  it("forty waits on one conversation: the short ones end false at their timeouts, the rest wake true for one append", async () => {
    const schema = freshSchema();
    const store = postgresStore({ connectionString: url }, { schema });
    const other = postgresStore({ connectionString: url }, { schema });
    try {
      expect(await store.append("c", [rec()])).toBe(1);
      await store.wait!("c", 1, 1); // listening and the tables made: the timings below are the waits' own
      const t0 = Date.now();
      const short = Array.from({ length: 20 }, (_, i) => settle(store.wait!("c", 1, 200 + 10 * i), t0));
      const long = Array.from({ length: 20 }, () => settle(store.wait!("c", 1, 15_000), t0));
      // an already-passed `after` answers true whatever the timeout
      const passed = settle(store.wait!("c", 0, 15_000), t0);
      const shorts = await Promise.all(short);
      for (const [i, s] of shorts.entries()) {
        expect(s.got, `short ${i}`).toBe(false);
        expect(s.ms, `short ${i}`).toBeGreaterThanOrEqual(200 + 10 * i - 5);
        expect(s.ms, `short ${i}`).toBeLessThan(3_000);
      }
      expect((await passed).got).toBe(true);
      const at = Date.now() - t0;
      expect(await other.append("c", [rec()])).toBe(2);
      const longs = await Promise.all(long);
      for (const l of longs) {
        expect(l.got).toBe(true);
        expect(l.ms).toBeGreaterThanOrEqual(at);
        expect(l.ms).toBeLessThan(at + 5_000);
      }
    } finally {
      await store.close();
      await other.close();
      await dropSchema(schema);
    }
  }, 20_000);

  it("close: waits under way (one endless) resolve false at once; a wait after close is refused (store-io); close twice is fine", async () => {
    const schema = freshSchema();
    const store = postgresStore({ connectionString: url }, { schema });
    try {
      expect(await store.append("c", [rec()])).toBe(1);
      const waits = [store.wait!("c", 1, 60_000), store.wait!("c", 1, Number.POSITIVE_INFINITY), store.wait!("d", 0, 60_000)];
      await new Promise((r) => setTimeout(r, 300)); // each listening, its row written
      const t0 = Date.now();
      const outcomes = Promise.all(waits.map((w) => settle(w, t0)));
      await store.close();
      for (const o of await outcomes) {
        expect(o.got).toBe(false);
        expect(o.ms).toBeLessThan(3_000);
      }
      expect((await settle(store.wait!("c", 0, 1_000), Date.now())).got).toBe("store-io");
      await store.close();
    } finally {
      await dropSchema(schema);
    }
  }, 20_000);
});

describe.skipIf(NO_SERVER !== null)("two stores of different schemas on one database stay apart", () => {
  it("same conversation ids: records, lengths, lists, waits and turn locks of one are never the other's", async () => {
    const [sa, sb] = [freshSchema(), freshSchema()];
    const a = postgresStore({ connectionString: url }, { schema: sa });
    const b = postgresStore({ connectionString: url }, { schema: sb });
    try {
      expect(await a.append("c", [rec("in-a")])).toBe(1);
      expect(await b.append("c", [rec("in-b"), rec("in-b")])).toBe(2);
      expect(await b.append("only-b", [rec()])).toBe(1);
      expect((await a.read("c")).map((r) => r.kind)).toEqual(["in-a"]);
      expect((await b.read("c")).map((r) => r.kind)).toEqual(["in-b", "in-b"]);
      expect(await a.list!()).toEqual(["c"]);
      expect(await b.list!()).toEqual(["c", "only-b"]);
      // a wait in A is not woken by B's append of the same id (another channel, another table)
      const t0 = Date.now();
      const waitA = settle(a.wait!("c", 1, 1_500), t0);
      const waitB = settle(b.wait!("c", 2, 10_000), t0);
      await new Promise((r) => setTimeout(r, 300));
      expect(await b.append("c", [rec("in-b")])).toBe(3);
      const [wa, wb] = [await waitA, await waitB];
      expect(wa.got).toBe(false);
      expect(wa.ms).toBeGreaterThanOrEqual(1_490);
      expect(wb.got).toBe(true);
      expect(await a.length!("c")).toBe(1);
      // the same turn id of the same conversation held in A leaves it free in B
      const release = await a.liveness!.hold("c", "t1");
      expect(await a.liveness!.isHeld("c", "t1")).toBe(true);
      expect(await b.liveness!.isHeld("c", "t1")).toBe(false);
      const releaseB = await b.liveness!.hold("c", "t1");
      expect(await b.liveness!.isHeld("c", "t1")).toBe(true);
      release();
      releaseB();
    } finally {
      await a.close();
      await b.close();
      await dropSchema(sa);
      await dropSchema(sb);
    }
  }, 20_000);
});
