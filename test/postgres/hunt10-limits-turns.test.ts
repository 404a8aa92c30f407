/**
 * 300 turns of one process holding their locks on its one lock session,
 * then that session ended by the server (pg_terminate_backend): every turn
 * reads interrupted to another host at once; the third whose locks another
 * host took then stop with lease-lost before their charge, writing nothing
 * more; the others take theirs again (on one new session) and finish,
 * charging once; a new turn after works. (lock-session.test.ts: 20 turns.)
 */
import pg from "pg";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { postgresStore } from "../../adapters/postgres/index.js";
import { lockText } from "../../adapters/postgres/liveness.js";
import { ai, tool } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { until } from "./fixtures/hosts.js";
import { NO_SERVER, SERVER_URL, admin, connections, dropSchema, freshSchema, lockers } from "./server.js";

const LONG_LEASE = { renewMs: 20_000, ttlMs: 60_000 };
const rand = (): string => Math.random().toString(36).slice(2, 10);


describe.skipIf(NO_SERVER !== null)("300 turns on one lock session, the session ended (real server)", () => {
  it("each reads interrupted elsewhere at once; a third taken by another host stop lease-lost before their charge, writing nothing; the rest take their locks again and finish, charging once; one new lock session holds them; a new turn after works", async () => {
    const schema = freshSchema();
    const app = `hlimturns-${rand()}`;
    const at = new URL(SERVER_URL!);
    at.searchParams.set("application_name", app);
    const pool = new pg.Pool({ connectionString: at.toString(), max: 4 });
    const store = postgresStore({ pool }, { schema });
    const other = postgresStore({ connectionString: SERVER_URL! }, { schema });
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const paused = new Set<string>();
    const charges = new Map<string, number>();
    const fn = ai("desk", {
      description: "Waits, then charges.",
      input: { id: z.string() },
      output: z.string(),
      tools: [
        tool("pause", { description: "Waits.", input: { id: z.string() }, effects: "reads" }, async ({ id }) => {
          paused.add(id);
          await gate;
          return "go";
        }),
        tool("charge", { description: "Charges once.", input: { id: z.string() }, effects: "changes" }, ({ id }) => {
          charges.set(id, (charges.get(id) ?? 0) + 1);
          return "charged";
        }),
      ],
    });
    const send = (id: string) =>
      fn
        .conversation(id, {
          store,
          lease: LONG_LEASE,
          lm: scripted([{ toolCalls: [{ id: "c1", name: "pause", input: { id } }] }, { toolCalls: [{ id: "c2", name: "charge", input: { id } }] }, { text: `done ${id}` }]),
        })
        .send({ id })
        .then(String, (e: { code?: string; message?: string }) => `error ${e.code}: ${e.message}`);
    const ids = Array.from({ length: 300 }, (_, i) => `t${i}`);
    const lastOf = async (id: string) => (await fn.conversation(id, { store: other, lm: scripted([]) }).turns()).at(-1)!;
    const thief = new pg.Client({ connectionString: SERVER_URL! }); // another host, taking every third turn's lock
    await thief.connect();
    const taken = ids.filter((_, i) => i % 3 === 0);
    const free = ids.filter((_, i) => i % 3 !== 0);
    try {
      const answers = ids.map(send);
      await until("every turn waits in its tool", async () => paused.size === ids.length, 20_000);
      await until("every turn holds its lock", async () => (await lockers(app)).reduce((n, l) => n + l.locks, 0) === ids.length, 10_000);
      // and every turn's records up to its tool are in (a reading tool runs at once, its turn's records follow in the
      // background): a write still on its way as the session ends is fenced out, and takes its lock again at once
      const written = async () =>
        (await admin<{ n: number }>(`SELECT count(*)::int AS n FROM "${schema}".conversations WHERE length >= 4`))[0]!.n;
      await until("every turn's records are written", async () => (await written()) === ids.length, 10_000);
      const [session] = await lockers(app);
      expect(await lockers(app)).toEqual([{ pid: session!.pid, locks: ids.length }]); // one connection holds all 300
      expect(await admin("SELECT pg_terminate_backend($1) AS ok", [session!.pid])).toEqual([{ ok: true }]);
      const t0 = Date.now();
      const lasts = await Promise.all(ids.map(lastOf));
      expect(lasts.map((t) => t.state)).toEqual(ids.map(() => "interrupted"));
      expect(Date.now() - t0).toBeLessThan(10_000);
      for (const id of taken) {
        const { rows } = await thief.query("SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS ok", [lockText(schema, id, lasts[ids.indexOf(id)]!.id)]);
        expect(rows[0].ok, id).toBe(true);
      }
      const before = await admin<{ conversation: string; length: number }>(`SELECT id AS conversation, length FROM "${schema}".conversations`);
      open();
      const settled = await Promise.all(answers);
      expect(settled.filter((_, i) => i % 3 === 0)).toEqual(taken.map(() => expect.stringMatching(/^error lease-lost/)));
      expect(settled.filter((_, i) => i % 3 !== 0)).toEqual(free.map((id) => `done ${id}`));
      expect(taken.map((id) => charges.get(id) ?? 0)).toEqual(taken.map(() => 0)); // stopped before its side effect
      expect(free.map((id) => charges.get(id) ?? 0)).toEqual(free.map(() => 1));
      const after = new Map((await admin<{ conversation: string; length: number }>(`SELECT id AS conversation, length FROM "${schema}".conversations`)).map((r) => [r.conversation, r.length]));
      for (const { conversation, length } of before) if (taken.includes(conversation)) expect(after.get(conversation), conversation).toBe(length); // no record more
      // the retakes shared one new session: the pool's 4, at most one lock session (its locks let go by now), no listener needed
      expect(await connections(app)).toBeLessThanOrEqual(5);
      await until("every unlock reached the server", async () => (await lockers(app)).length === 0, 10_000);
      await thief.query("SELECT pg_advisory_unlock_all()");
      expect(await send("after")).toBe("done after");
      expect(charges.get("after")).toBe(1);
    } finally {
      open();
      await thief.end();
      await store.close();
      await other.close();
      await pool.end();
      await dropSchema(schema);
    }
  }, 60_000);
});
