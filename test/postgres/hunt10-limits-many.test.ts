/**
 * Many of everything at once, on a real server: thousands of waits on one
 * store, hundreds of calls under way when it is closed, many stores (one
 * per tenant schema) in one process under a role's connection limit.
 * Connections are counted by application_name in pg_stat_activity.
 */
import { describe, expect, it } from "vitest";
import { postgresStore } from "../../adapters/postgres/index.js";
import { rec } from "../store/contract.js";
import { until } from "./fixtures/hosts.js";
import { NO_SERVER, SERVER_URL, admin, connections, dropSchema, freshSchema } from "./server.js";

const rand = (): string => Math.random().toString(36).slice(2, 10);

/** A URL of the test server naming its connections (application_name), optionally as another role. */
function named(prefix: string, role?: string): { app: string; url: string } {
  const app = `${prefix}-${rand()}`;
  const url = new URL(SERVER_URL!);
  if (role) {
    url.username = role;
    url.password = "pw";
  }
  url.searchParams.set("application_name", app);
  return { app, url: url.toString() };
}

const settle = (p: Promise<unknown>): Promise<string> =>
  p.then(
    (v) => `ok ${String(v)}`,
    (e: { code?: string; message?: string }) => `${e.code ?? "error"}: ${e.message ?? ""}`,
  );

describe.skipIf(NO_SERVER !== null)("many at once (real server)", () => {
  it("2,000 waits on 2,000 conversations of one store, then one append each by another host: each wakes true, within its timeout; the waiters table is empty after; the store used at most its pool and one listener", async () => {
    const schema = freshSchema();
    const { app, url } = named("hlimwaits");
    const store = postgresStore({ connectionString: url }, { schema });
    const other = postgresStore({ connectionString: SERVER_URL! }, { schema });
    try {
      expect(await other.append("warm", [rec()])).toBe(1); // (the tables made)
      const ids = Array.from({ length: 2_000 }, (_, i) => `w${i}`);
      let woken = 0;
      const waits = ids.map((id) =>
        store.wait!(id, 0, 18_000).then((v) => {
          woken++;
          return v;
        }),
      );
      await until("every waiter is registered", async () => (await admin<{ n: number }>(`SELECT count(*)::int AS n FROM "${schema}".waiters`))[0]!.n === ids.length, 12_000);
      expect(woken).toBe(0); // nothing appended yet: none answered
      expect(await connections(app)).toBeLessThanOrEqual(11); // pg's default pool of 10, one listener
      await Promise.all(ids.map((id) => other.append(id, [rec()])));
      expect(await Promise.all(waits)).toEqual(ids.map(() => true));
      expect(woken).toBe(ids.length);
      await until("every waiter took its row away", async () => (await admin(`SELECT 1 FROM "${schema}".waiters LIMIT 1`)).length === 0, 10_000);
    } finally {
      await other.close();
      await store.close();
      await dropSchema(schema);
    }
  }, 40_000);

  it("closed with 600 calls under way (appends, waits, reads, lengths, holds): each settles, ok or store-io; each append that resolved is in the table at its length; close settles; no connection of the store is left on the server", async () => {
    const schema = freshSchema();
    const { app, url } = named("hlimclose");
    const store = postgresStore({ connectionString: url }, { schema });
    try {
      expect(await store.append("c0", [rec()])).toBe(1);
      const release = await store.liveness!.hold("c0", "t0");
      const calls: { kind: string; id: string; p: Promise<string> }[] = [];
      for (let i = 0; i < 120; i++) {
        const id = `c${i % 40}`;
        calls.push({ kind: "append", id, p: settle(store.append(id, [rec()])) });
        calls.push({ kind: "wait", id, p: settle(store.wait!(`q${i}`, 0, 60_000)) });
        calls.push({ kind: "read", id, p: settle(store.read(id)) });
        calls.push({ kind: "length", id, p: settle(store.length!(id)) });
        calls.push({ kind: "hold", id, p: settle(store.liveness!.hold(id, `t${i + 1}`)) });
      }
      await new Promise((r) => setTimeout(r, 30)); // (some under way on the server)
      const t0 = Date.now();
      const closed = store.close();
      const got = await Promise.all(calls.map((c) => c.p));
      await closed;
      release();
      expect(Date.now() - t0).toBeLessThan(12_000);
      for (const g of got) expect(g).toMatch(/^(ok|store-io)/);
      const waits = got.filter((_, i) => calls[i]!.kind === "wait");
      for (const w of waits) expect(w).toMatch(/^(ok false|store-io)/); // a wait cut off by close is false, never true
      // each append that resolved holds its place: the rows of each conversation are 1…length without a gap, and no resolved length above it
      const rows = await admin<{ conversation: string; length: number; n: number }>(
        `SELECT c.id AS conversation, c.length, (SELECT count(*)::int FROM "${schema}".records r WHERE r.conversation = c.id) AS n FROM "${schema}".conversations c`,
      );
      const lengths = new Map(rows.map((r) => [r.conversation, r]));
      for (const [i, c] of calls.entries()) {
        if (c.kind !== "append" || !got[i]!.startsWith("ok ")) continue;
        const at = Number(got[i]!.slice(3));
        expect(at).toBeLessThanOrEqual(lengths.get(c.id)!.length);
      }
      for (const r of rows) expect(r.n).toBe(r.length);
      await until("no connection of the store is left", async () => (await connections(app)) === 0, 5_000);
    } finally {
      await store.close();
      await dropSchema(schema);
    }
  }, 30_000);

  // A user closing a store (a deploy, a per-request store) expects its waits
  // to be over everywhere: close resolves each false, so the rows that asked
  // appends to notify them should go too. Before its fix, most stayed: the waiters'
  // DELETEs are sent as close begins (not counted among the calls under way)
  // and the pool is ended under them. An endless wait's row asks for a day
  // (WATCH_MS): every append to those conversations notifies nobody for a day
  // (a NOTIFY serializes the commits of notifying transactions), and the rows
  // are taken away only by a later wait on the same conversation.
  it("closed with 300 endless waits under way: the waits resolve false, and their rows in the waiters table are gone", async () => {
    const schema = freshSchema();
    const store = postgresStore({ connectionString: SERVER_URL! }, { schema });
    try {
      expect(await store.append("warm", [rec()])).toBe(1);
      const ids = Array.from({ length: 300 }, (_, i) => `e${i}`);
      const waits = ids.map((id) => store.wait!(id, 0, Number.POSITIVE_INFINITY));
      await until("every waiter is registered", async () => (await admin<{ n: number }>(`SELECT count(*)::int AS n FROM "${schema}".waiters`))[0]!.n === ids.length, 10_000);
      await store.close();
      expect(await Promise.all(waits)).toEqual(ids.map(() => false));
      // (close has settled: nothing of the store is left to take them away later)
      const left = await admin<{ n: number }>(`SELECT count(*)::int AS n FROM "${schema}".waiters WHERE until > now()`);
      expect(left[0]!.n).toBe(0);
    } finally {
      await store.close();
      await dropSchema(schema);
    }
  }, 30_000);

  it("twelve stores, one per tenant schema, in one process: each opens its pool, one listener and one lock session (three connections when serving one turn and one wait); under a role limit of 24 the stores beyond it fail store-io naming the limit, at once, and the others go on", async () => {
    const role = `hlimten_${rand()}`;
    await admin(`CREATE ROLE ${role} LOGIN PASSWORD 'pw' CONNECTION LIMIT 24`);
    await admin(`GRANT CREATE ON DATABASE "${new URL(SERVER_URL!).pathname.slice(1)}" TO ${role}`);
    const schemas = Array.from({ length: 12 }, () => freshSchema());
    // each made once by the test role (tables made beforehand: the limit is on using them)
    for (const schema of schemas) {
      const maker = postgresStore({ connectionString: SERVER_URL! }, { schema });
      await maker.append("made", [rec()]);
      await maker.close();
      await admin(`GRANT USAGE ON SCHEMA "${schema}" TO ${role}`);
      await admin(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA "${schema}" TO ${role}`);
    }
    const tenants = schemas.map((schema, i) => {
      const { app, url } = named(`hlimten${i}`, role);
      return { app, schema, store: postgresStore({ connectionString: url }, { schema }) };
    });
    const other = tenants.map((t) => postgresStore({ connectionString: SERVER_URL! }, { schema: t.schema }));
    try {
      // one at a time, so that which ones fit is known: the first eight take 3 each (24)
      const outcomes: string[] = [];
      const waits: Promise<string>[] = [];
      const releases: (() => void)[] = [];
      for (const t of tenants) {
        const t0 = Date.now();
        const held = await settle(t.store.liveness!.hold("c", "t1").then((r) => void releases.push(r)));
        const appended = await settle(t.store.append("c", [{ ...rec(), turn: "t1" }]));
        const wait = settle(t.store.wait!("c", 1, 15_000));
        waits.push(wait);
        await Promise.race([wait, until("its wait is registered", async () => (await admin(`SELECT 1 FROM "${t.schema}".waiters`)).length > 0, 8_000)]);
        outcomes.push(`${held} | ${appended}`);
        expect(Date.now() - t0, t.schema).toBeLessThan(10_000); // never a hang
      }
      for (const [i, t] of tenants.entries()) if (i < 8) expect(await connections(t.app), t.app).toBe(3);
      expect(outcomes.slice(0, 8)).toEqual(tenants.slice(0, 8).map(() => "ok undefined | ok 1"));
      for (const [i, o] of outcomes.entries()) if (i >= 8) expect(o).toMatch(/store-io: .*(connection slots|too many connections)/);
      // the tenants that fit go on: their waits wake for another host's append
      for (const o of other.slice(0, 8)) expect(await o.append("c", [rec()])).toBe(2);
      for (const [i, w] of waits.entries()) if (i < 8) expect(await w, tenants[i]!.schema).toBe("ok true");
      for (const r of releases) r();
    } finally {
      for (const t of tenants) await t.store.close();
      for (const o of other) await o.close();
      for (const schema of schemas) await dropSchema(schema);
      await admin(`DROP OWNED BY ${role}`);
      await admin(`DROP ROLE ${role}`);
    }
  }, 60_000);
});
