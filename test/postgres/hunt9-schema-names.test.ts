/**
 * Hunt 9, on a real PostgreSQL server: the store's schema names, its
 * advisory lock keys next to another program's, and its schema dropped
 * under a live turn. PostgresStoreOptions: a schema is "1–55 lower-case
 * letters, digits or _"; DESIGN ("Many hosts: the Postgres store"): a
 * running turn holds a session-level advisory lock, keyed by a 64-bit hash
 * of (schema, conversation, turn); a changing tool runs only after its
 * `started` is durable. Two stores of different schemas with the same ids
 * are hunt6-list-wait.test.ts's; a schema at a newer version,
 * contract-pglite's.
 */
import { describe, expect, it } from "vitest";
import { postgresStore } from "../../adapters/postgres/index.js";
import { lockText } from "../../adapters/postgres/liveness.js";
import { rec } from "../store/contract.js";
import { pausedTurn } from "./fixtures/hunt7-edges-desk.js";
import { freshDb, outcome } from "./fixtures/hunt9-schema-kit.js";
import { NO_SERVER } from "./server.js";

describe("postgresStore: schema names it cannot use", () => {
  it("upper case, a dash, a dot, a quote, a space, a backslash, 56 characters or none: refused at once, store-io naming the rule", () => {
    for (const bad of ["Functai", "FUNCTAI", "desk-chats", "desk.chats", 'desk"chats', "desk'chats", "desk chats", "desk\\chats", "k".repeat(56), "", "1abc", "é"])
      expect(() => postgresStore({ connectionString: "postgres://x@127.0.0.1/db" }, { schema: bad }), bad).toThrow(
        expect.objectContaining({ code: "store-io", message: expect.stringContaining("1–55 lower-case letters") }),
      );
  });
});

describe.skipIf(NO_SERVER !== null)("postgresStore: schema names, lock keys and a dropped schema on a real server", () => {
  it("SQL keywords as schema names, and two 55-character names that share 54: each keeps its own records, waits, wake-ups and turn locks", async () => {
    const db = await freshDb();
    const long = (last: string) => `${"k".repeat(54)}${last}`;
    const names = ["select", "user", "order", long("a"), long("b")];
    const stores = names.map((schema) => postgresStore({ connectionString: db.url() }, { schema }));
    const [, , , a, b] = stores as [never, never, never, (typeof stores)[0], (typeof stores)[0]];
    try {
      for (const [i, store] of stores.entries()) expect(await store.append("c", Array.from({ length: i + 1 }, () => rec()))).toBe(i + 1);
      expect(await Promise.all(stores.map((s) => s.length!("c")))).toEqual([1, 2, 3, 4, 5]);
      expect((await db.run("SELECT nspname FROM pg_namespace WHERE nspname = ANY($1) ORDER BY nspname", [names])).length).toBe(5);
      const woken = a.wait!("c", 4, 10_000);
      // b's wait must not be woken by a's append (another channel: functai_<schema>, 63 bytes here); it runs out
      const notWoken = b.wait!("c", 5, 1_500);
      for (let i = 0; i < 200 && (await db.run(`SELECT 1 FROM "${long("a")}".waiters`)).length === 0; i++) await new Promise((r) => setTimeout(r, 25));
      expect(await a.append("c", [rec()])).toBe(5);
      expect(await woken).toBe(true);
      expect(await notWoken).toBe(false);
      expect(await b.length!("c")).toBe(5);
      const release = await a.liveness!.hold("c", "t");
      expect(await b.liveness!.isHeld("c", "t")).toBe(false);
      const releaseB = await b.liveness!.hold("c", "t"); // another schema's turn: another key
      expect(await a.liveness!.isHeld("c", "t")).toBe(true);
      release();
      releaseB();
    } finally {
      for (const store of stores) await store.close();
      await db.drop();
    }
  }, 20_000);

  it("another program holding advisory locks (a two-int lock with the same 64 bits as a turn's key; a migration tool's bigint lock): the turn is not read as held, is held by its store, and stays held when that program lets go of all", async () => {
    const db = await freshDb();
    const store = postgresStore({ connectionString: db.url() }, { schema: "s" });
    const other = postgresStore({ connectionString: db.url() }, { schema: "s" });
    const foreign = await db.client();
    try {
      expect(await store.append("c", [rec()])).toBe(1);
      const [{ hi, lo }] = (await foreign.query("SELECT (h >> 32)::int4 AS hi, (h & 4294967295)::bit(32)::int4 AS lo FROM hashtextextended($1, 0) AS h", [lockText("s", "c", "t")]))
        .rows as [{ hi: number; lo: number }];
      await foreign.query("SELECT pg_advisory_lock($1::int4, $2::int4)", [hi, lo]);
      await foreign.query("SELECT pg_advisory_lock(7241865325823964)"); // node-pg-migrate's lock
      expect(await store.liveness!.isHeld("c", "t")).toBe(false);
      const release = await store.liveness!.hold("c", "t");
      expect(await other.liveness!.isHeld("c", "t")).toBe(true);
      expect(await outcome(other.liveness!.hold("c", "t"))).toMatch(/^turn-claimed/);
      expect(await store.append("c", [rec("note", { turn: "t" })])).toBe(2); // fenced: its lock and session stand
      await foreign.query("SELECT pg_advisory_unlock_all()");
      expect(await other.liveness!.isHeld("c", "t")).toBe(true);
      release();
    } finally {
      await foreign.end();
      await other.close();
      await store.close();
      await db.drop();
    }
  }, 20_000);

  it("the schema dropped under a turn waiting in a reading tool: the turn fails store-io before its changing tool runs; reads are store-io, never an empty conversation; the live store makes no schema again", async () => {
    const db = await freshDb();
    const store = postgresStore({ connectionString: db.url() }, { schema: "s" });
    try {
      const t = await pausedTurn(store, "sam");
      await db.run("DROP SCHEMA s CASCADE");
      t.state.open();
      const started = Date.now();
      expect(await t.turn).toMatch(/^error store-io: .*does not exist/s);
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(t.state.chargeGate.started).toBe(0);
      expect(await outcome(store.read("sam"))).toMatch(/^store-io: .*does not exist/s);
      expect(await outcome(store.append("sam", [rec()]))).toMatch(/^store-io: /);
      expect(await outcome(store.wait!("sam", 0, 2_000))).toMatch(/^store-io: /);
      expect(await db.run("SELECT nspname FROM pg_namespace WHERE nspname = 's'")).toEqual([]);
    } finally {
      await store.close();
      await db.drop();
    }
  }, 20_000);
});
