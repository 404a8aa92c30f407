/**
 * A role's CONNECTION LIMIT reached while a store is in use: the lock
 * session cannot be replaced, the listening connection cannot come back.
 * The limit is lowered (ALTER ROLE … CONNECTION LIMIT) to what the store
 * holds already, so the connections it has stay and a new one is refused
 * (53300); never the server's max_connections (the server is shared).
 */
import pg from "pg";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { postgresStore } from "../../adapters/postgres/index.js";
import { ai, tool } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { rec } from "../store/contract.js";
import { recordsOf, until } from "./fixtures/hosts.js";
import { LONG_LEASE, pausedTurn } from "./fixtures/hunt7-net-desk.js";
import { NO_SERVER, SERVER_URL, admin, dropSchema, freshSchema } from "./server.js";

const rand = (): string => Math.random().toString(36).slice(2, 10);

/** A role of its own (not a superuser: the limit binds it), a pool as it naming its connections, and a way to drop both. */
async function limitedRole(prefix: string) {
  const role = `${prefix}_${rand()}`;
  const app = `${prefix}-${rand()}`;
  const server = new URL(SERVER_URL!);
  await admin(`CREATE ROLE ${role} LOGIN PASSWORD 'pw'`);
  await admin(`GRANT CREATE ON DATABASE "${server.pathname.slice(1)}" TO ${role}`);
  const as = new URL(server);
  as.username = role;
  as.password = "pw";
  as.searchParams.set("application_name", app);
  // idle clients never ended by the pool (its own ends would free slots the test counts on)
  const pool = new pg.Pool({ connectionString: as.toString(), max: 2, idleTimeoutMillis: 0 });
  const pids = async (where = "true") =>
    (await admin<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND ${where}`, [app])).map((r) => r.pid);
  return {
    role,
    app,
    pool,
    pids,
    limit: (n: number) => admin(`ALTER ROLE ${role} CONNECTION LIMIT ${n}`),
    drop: async () => {
      await pool.end().catch(() => undefined);
      await admin(`DROP OWNED BY ${role}`);
      await admin(`DROP ROLE ${role}`);
    },
  };
}

/** How `p` settles: "true"/"false", or its error's code and message. */
const outcome = (p: Promise<unknown>): Promise<string> =>
  p.then(
    (v) => String(v),
    (e: { code?: string; message?: string }) => `${e.code ?? "error"}: ${e.message ?? ""}`,
  );

describe.skipIf(NO_SERVER !== null)("a role's connection limit reached mid-use (real server)", () => {
  it("the lock session is ended and a new one cannot be opened: the turn fails store-io naming the limit before its charge; another host reads it interrupted at once; with the limit raised, a resume charges once", async () => {
    const schema = freshSchema();
    const r = await limitedRole("hlimlock");
    const store = postgresStore({ pool: r.pool }, { schema });
    const other = postgresStore({ connectionString: SERVER_URL! }, { schema });
    let t: Awaited<ReturnType<typeof pausedTurn>> | undefined;
    try {
      t = await pausedTurn(store, "c");
      const lockPid = await r.pids("backend_type = 'client backend' AND pid IN (SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 1)");
      expect(lockPid).toHaveLength(1);
      const left = (await r.pids()).length - 1;
      await r.limit(left); // what stays after the lock session is gone: a new connection is refused
      await admin("SELECT pg_terminate_backend($1)", [lockPid[0]]);
      const before = (await recordsOf(schema, "c")).length;
      // the lock went with the session: another host reads the turn interrupted at once (its lease has a minute left)
      const turns = () => t!.fn.conversation("c", { store: other, lm: scripted([]) }).turns();
      await until("the turn reads interrupted elsewhere", async () => (await turns()).at(-1)!.state === "interrupted", 5_000);
      t.state.open();
      const t0 = Date.now();
      const got = await t.turn;
      expect(Date.now() - t0).toBeLessThan(15_000); // never a hang
      expect(got).toMatch(/^error store-io: /);
      expect(got).toMatch(/connection slots|CONNECTION LIMIT/);
      expect(t.state.charges).toBe(0); // no changing tool without a durable started
      expect(t.lm.requests).toHaveLength(1); // fenced at the reading tool's result: no paid call after it
      expect((await recordsOf(schema, "c")).filter((x) => x.kind === "tool" && x.name === "charge")).toHaveLength(0);
      expect((await recordsOf(schema, "c")).length).toBeLessThanOrEqual(before + 1);
      expect((await turns()).at(-1)!.state).toBe("interrupted"); // never left running with nobody holding it
      await r.limit(-1);
      const lm2 = scripted([{ toolCalls: [{ id: "c2", name: "charge", input: {} }] }, { text: "done" }]);
      const resumed = await (await t.fn.conversation("c", { store, lm: lm2, lease: LONG_LEASE }).turns()).at(-1)!.resume();
      expect(String(resumed)).toBe("done");
      expect(t.state.charges).toBe(1);
    } finally {
      t?.state.open();
      await store.close();
      await other.close();
      await r.drop();
      await dropSchema(schema);
    }
  }, 30_000);

  it("an append, then the limit reached and the pool's connections ended: an append, a read, a wait and a hold each fail store-io naming the limit, at once; a slot freed, appends go on", async () => {
    const schema = freshSchema();
    const r = await limitedRole("hlimpool");
    const store = postgresStore({ pool: r.pool }, { schema });
    try {
      expect(await store.append("c", [rec()])).toBe(1);
      await r.limit(0); // nothing new (superusers are not bound; this role is)
      for (const pid of await r.pids()) await admin("SELECT pg_terminate_backend($1)", [pid]);
      await until("its connections are gone", async () => (await r.pids()).length === 0, 5_000);
      const t0 = Date.now();
      const got = await Promise.all([
        outcome(store.append("c", [rec()])),
        outcome(store.read("c")),
        outcome(store.wait!("c", 5, 2_000)),
        outcome(store.liveness!.hold("c", "t1")),
      ]);
      expect(Date.now() - t0).toBeLessThan(10_000);
      for (const g of got) expect(g).toMatch(/^store-io: .*(connection slots|too many connections)/);
      expect((await recordsOf(schema, "c")).length).toBe(1);
      await r.limit(-1);
      expect(await store.append("c", [rec()])).toBe(2); // back once a slot is free
    } finally {
      await store.close();
      await r.drop();
      await dropSchema(schema);
    }
  }, 30_000);

  it("no lock session can be opened (limit reached) when a new turn is sent: the send fails store-io naming the limit, at once; another host never reads a turn running with nobody holding it; with a slot free the turn is sent again and runs", async () => {
    const schema = freshSchema();
    const r = await limitedRole("hlimnew");
    const store = postgresStore({ pool: r.pool }, { schema });
    const other = postgresStore({ connectionString: SERVER_URL! }, { schema });
    let charges = 0;
    const fn = ai("desk", {
      description: "Charges.",
      input: { id: z.string() },
      output: z.string(),
      tools: [
        tool("charge", { description: "Charges.", input: {}, effects: "changes" }, () => {
          charges++;
          return "charged";
        }),
      ],
    });
    const lm = () => scripted([{ toolCalls: [{ id: "c2", name: "charge", input: {} }] }, { text: "done" }]);
    try {
      expect(await store.append("warm", [rec()])).toBe(1); // the pool's one connection is open
      await r.limit((await r.pids()).length);
      const t0 = Date.now();
      const got = await outcome(fn.conversation("c", { store, lm: lm(), lease: LONG_LEASE }).send({ id: "c" }));
      expect(Date.now() - t0).toBeLessThan(10_000);
      expect(got).toMatch(/^store-io: .*(connection slots|too many connections)/);
      expect(charges).toBe(0);
      const turns = await fn.conversation("c", { store: other, lm: scripted([]) }).turns();
      expect(turns.map((t) => t.state)).not.toContain("running");
      await r.limit(-1);
      expect(await outcome(fn.conversation("c", { store, lm: lm(), lease: LONG_LEASE }).send({ id: "c" }))).toBe("done");
      expect(charges).toBe(1);
    } finally {
      await store.close();
      await other.close();
      await r.drop();
      await dropSchema(schema);
    }
  }, 30_000);

  // A user waiting (wait(c, 0, ms)) expects true once another host appends
  // to c within ms, or a store-io error when the store cannot listen. When the
  // listening connection is lost and cannot come back (the role's limit is
  // reached), the wait, before its fix, resolved false at its timeout although the
  // conversation grew: a lost wake-up, read as "nothing happened", with no
  // word of the limit (the listener retries in silence). A server-side
  // process waiting in a loop (serve) would never notice the new records.
  it("the listening connection ended and not let back (limit reached): a wait under way, with an append made meanwhile, resolves true or store-io naming the limit (not false)", async () => {
    const schema = freshSchema();
    const r = await limitedRole("hlimlisten");
    const store = postgresStore({ pool: r.pool }, { schema });
    const other = postgresStore({ connectionString: SERVER_URL! }, { schema });
    try {
      expect(await store.wait!("c", 0, 10)).toBe(false); // listening now
      const listen = await r.pids(`query = 'LISTEN functai_${schema}'`);
      expect(listen).toHaveLength(1);
      const waiting = outcome(store.wait!("c", 0, 3_000));
      await until("the wait is registered", async () => (await admin(`SELECT 1 FROM "${schema}".waiters`)).length === 1, 5_000);
      await r.limit((await r.pids()).length - 1);
      await admin("SELECT pg_terminate_backend($1)", [listen[0]]);
      await new Promise((res) => setTimeout(res, 300)); // (its first reconnections are refused meanwhile)
      expect(await other.append("c", [rec()])).toBe(1);
      const got = await waiting;
      expect(got === "true" || /^store-io: .*(connection slots|too many connections)/.test(got), got).toBe(true);
    } finally {
      await r.limit(-1);
      await store.close();
      await other.close();
      await r.drop();
      await dropSchema(schema);
    }
  }, 30_000);
});
