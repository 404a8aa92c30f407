/**
 * Hunt 11 (fresh code): pg-db.ts drops a client whose error was FATAL, and
 * sends again a statement rolled back whole (40001, 40P01); Store.lengths()
 * while appends race.
 */
import pg from "pg";
import { describe, expect, it } from "vitest";
import { postgresStore } from "../../adapters/postgres/index.js";
import { rec } from "../store/contract.js";
import { until } from "./fixtures/hosts.js";
import { NO_SERVER, SERVER_URL, admin, connections, dropSchema, freshSchema, namedApp } from "./server.js";

const codeOf = (p: Promise<unknown>): Promise<string> =>
  p.then(
    (v) => `ok ${String(v)}`,
    (e: { code?: string }) => String(e.code),
  );

describe.skipIf(NO_SERVER !== null)("hunt11 fresh: the pool after a FATAL error, resends, lengths (real server)", () => {
  it("an append's backend ended by pg_terminate_backend while it waits on a row lock: the append fails store-io and is not kept; the pool goes on (40 appends after it succeed, each once, no more than its 10 connections)", async () => {
    const schema = freshSchema();
    const { app, url } = namedApp("h11fatal");
    const store = postgresStore({ connectionString: url }, { schema });
    const locker = new pg.Client({ connectionString: SERVER_URL });
    await locker.connect();
    try {
      expect(await store.append("c", [rec()])).toBe(1);
      await Promise.all(Array.from({ length: 10 }, (_, i) => store.append(`warm${i}`, [rec()]))); // (several clients in the pool)
      await locker.query("BEGIN");
      await locker.query(`SELECT 1 FROM "${schema}".conversations WHERE id = 'c' FOR UPDATE`);
      const blocked = codeOf(store.append("c", [rec()], { expect: 1 }));
      let pid = 0;
      await until(
        "the append waits on the lock",
        async () => {
          const rows = await admin<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'", [
            app,
          ]);
          pid = rows[0]?.pid ?? 0;
          return pid !== 0;
        },
        5_000,
      );
      await admin("SELECT pg_terminate_backend($1)", [pid]);
      expect(await blocked).toBe("store-io");
      await locker.query("COMMIT");
      expect(await store.length!("c")).toBe(1);
      // the dead client is not handed out again: every append after it works
      const got = await Promise.all(Array.from({ length: 40 }, (_, i) => codeOf(store.append(`d${i % 8}`, [rec()]))));
      expect(got.every((g) => g.startsWith("ok"))).toBe(true);
      expect(await store.append("c", [rec()], { expect: 1 })).toBe(2);
      const lengths = await store.lengths!();
      for (let i = 0; i < 8; i++) expect(lengths.get(`d${i}`)).toBe(5);
      expect(await connections(app)).toBeLessThanOrEqual(11);
    } finally {
      await locker.end().catch(() => undefined);
      await store.close();
      await dropSchema(schema);
    }
  }, 20_000);

  it("every pooled backend of a store ended by pg_terminate_backend while idle: after the pool hears of it, reads and appends work", async () => {
    const schema = freshSchema();
    const { app, url } = namedApp("h11idle");
    const store = postgresStore({ connectionString: url }, { schema });
    try {
      await Promise.all(Array.from({ length: 10 }, (_, i) => store.append(`c${i}`, [rec()])));
      expect(await connections(app)).toBeGreaterThan(0);
      await admin("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND state = 'idle'", [app]);
      await new Promise((r) => setTimeout(r, 300)); // (the pool hears of each end: its idle clients are dropped)
      const got = await Promise.all(Array.from({ length: 20 }, (_, i) => codeOf(store.append(`c${i % 10}`, [rec()]))));
      expect(got.every((g) => g.startsWith("ok"))).toBe(true);
      expect((await store.read("c3")).length).toBe(3);
    } finally {
      await store.close();
      await dropSchema(schema);
    }
  }, 20_000);

  it("a deadlock with another transaction (40P01) on an append: sent again, kept exactly once at the next length", async () => {
    const schema = freshSchema();
    const { app, url } = namedApp("h11dead");
    const store = postgresStore({ connectionString: url }, { schema });
    const locker = new pg.Client({ connectionString: SERVER_URL });
    await locker.connect();
    try {
      expect(await store.append("a", [rec()])).toBe(1);
      expect(await store.append("b", [rec()])).toBe(1);
      // the locker blocks the append's INSERT of its batch, after the append took a's row (its UPDATE)
      await locker.query("BEGIN");
      await locker.query(`LOCK TABLE "${schema}".batches IN SHARE MODE`);
      const appended = codeOf(store.append("a", [rec("note", { mark: "once" })], { expect: 1 }));
      await until(
        "the append holds a's row and waits on the batches table",
        async () => (await admin("SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'", [app])).length > 0,
        5_000,
      );
      // the locker now asks for a's row, which the append holds: one of the two is chosen as the deadlock's victim
      const lockerGot = await locker.query(`SELECT 1 FROM "${schema}".conversations WHERE id = 'a' FOR UPDATE`).then(
        () => "ok",
        (e: { code?: string }) => String(e.code),
      );
      // the append waited first, so its deadlock check ran first: it was the victim (rolled back, 40P01), and the locker got the row
      expect(lockerGot).toBe("ok");
      await locker.query("COMMIT");
      expect(await appended).toBe("ok 2");
      const records = await store.read("a");
      expect(records.map((r) => (r as { mark?: string }).mark)).toEqual([undefined, "once"]);
      expect(await store.length!("a")).toBe(2);
    } finally {
      await locker.end().catch(() => undefined);
      await store.close();
      await dropSchema(schema);
    }
  }, 20_000);

  it("lengths() while 8 writers append to 300 conversations: each length it gives is one the conversation had (between its lengths before and after), and list() and length() agree with it once the appends end", async () => {
    const schema = freshSchema();
    const store = postgresStore({ connectionString: SERVER_URL! }, { schema });
    const other = postgresStore({ connectionString: SERVER_URL! }, { schema });
    try {
      const ids = Array.from({ length: 300 }, (_, i) => `l${String(i).padStart(4, "0")}`);
      for (let i = 0; i < ids.length; i += 50) await Promise.all(ids.slice(i, i + 50).map((id) => store.append(id, [rec()])));
      let stop = false;
      const writers = Array.from({ length: 8 }, async (_, w) => {
        for (let k = 0; !stop; k++) await other.append(ids[(w * 37 + k * 11) % ids.length]!, [rec()]);
      });
      for (let round = 0; round < 5; round++) {
        const before = await store.lengths!();
        const seen = await store.lengths!();
        const after = await store.lengths!();
        expect([...seen.keys()]).toEqual(ids);
        for (const id of ids) {
          expect(seen.get(id)!).toBeGreaterThanOrEqual(before.get(id)!);
          expect(seen.get(id)!).toBeLessThanOrEqual(after.get(id)!);
        }
      }
      stop = true;
      await Promise.all(writers);
      const lengths = await store.lengths!();
      expect(await store.list!()).toEqual([...lengths.keys()]);
      for (const id of ids.slice(0, 40)) expect(await store.length!(id)).toBe(lengths.get(id));
    } finally {
      await other.close();
      await store.close();
      await dropSchema(schema);
    }
  }, 20_000);
});
