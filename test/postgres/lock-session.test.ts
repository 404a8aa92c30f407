/**
 * One lock session per store, on a real server: many turns running at once
 * in one process hold their advisory locks on ONE connection (not one
 * each), under a role whose connection limit would not allow one each.
 * Losing that connection (pg_terminate_backend) fences every turn it held
 * out before its next record or side effect; a turn whose lock nobody took
 * meanwhile takes it again and goes on, one whose lock another took stops
 * with lease-lost.
 */
import pg from "pg";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { postgresStore, type PostgresStore } from "../../adapters/postgres/index.js";
import type { Session } from "../../adapters/postgres/db.js";
import { lockText } from "../../adapters/postgres/liveness.js";
import { pgDb } from "../../adapters/postgres/pg-db.js";
import { storeOn } from "../../adapters/postgres/store.js";
import { Waiting, ai, tool } from "../../src/index.js";
import { scripted, type ScriptedLM } from "../../src/testing/index.js";
import { PAY_CALL, payDesk } from "../durable/fixtures/pay-desk.js";
import { recordsOf, until } from "./fixtures/hosts.js";
import { NO_SERVER, SERVER_URL, admin, connections, dropSchema, freshSchema, lockers, namedApp } from "./server.js";

const LONG_LEASE = { renewMs: 20_000, ttlMs: 60_000 }; // never runs out here: the locks alone tell
const rand = (): string => Math.random().toString(36).slice(2, 10);

/** Turns that wait in a reads tool (`pause`) until their gate opens, then change the world once (`charge`). */
class Desk {
  readonly paused = new Set<string>();
  readonly charges = new Map<string, number>();
  readonly lms = new Map<string, ScriptedLM>();
  readonly #gates = new Map<string, { open: () => void; opened: Promise<void> }>();
  readonly fn = ai("desk", {
    description: "Waits, then charges.",
    input: { id: z.string() },
    output: z.string(),
    tools: [
      tool("pause", { description: "Waits for its gate.", input: { id: z.string() }, effects: "reads" }, async ({ id }) => {
        this.paused.add(id);
        await this.#gate(id).opened;
        return "go";
      }),
      tool("charge", { description: "Charges once.", input: { id: z.string() }, effects: "changes" }, ({ id }) => {
        this.charges.set(id, (this.charges.get(id) ?? 0) + 1);
        return "charged";
      }),
    ],
  });

  #gate(id: string) {
    let gate = this.#gates.get(id);
    if (!gate) {
      let open!: () => void;
      const opened = new Promise<void>((r) => (open = r));
      this.#gates.set(id, (gate = { open, opened }));
    }
    return gate;
  }

  open(ids: readonly string[]): void {
    for (const id of ids) this.#gate(id).open();
  }

  /** Sends one turn per id on `store`; each settles to its answer or its error code. */
  send(store: PostgresStore, ids: readonly string[]): Promise<string>[] {
    return ids.map((id) => {
      const lm = scripted([
        { toolCalls: [{ id: "c1", name: "pause", input: { id } }] },
        { toolCalls: [{ id: "c2", name: "charge", input: { id } }] },
        { text: `done ${id}` },
      ]);
      this.lms.set(id, lm);
      return this.fn
        .conversation(id, { store, lm, lease: LONG_LEASE })
        .send({ id })
        .then(String, (e: { code?: string }) => `error ${e.code ?? String(e)}`);
    });
  }

  /** Sends one turn per id (as `send`) and resolves once every one of them waits in its `pause` tool. */
  async sendAndPause(store: PostgresStore, ids: readonly string[]): Promise<Promise<string>[]> {
    const answers = this.send(store, ids);
    await until("every turn waits in its tool", async () => ids.every((id) => this.paused.has(id)));
    // a reply is kept while its step's reading tool runs (within KEEP_REPLY_WITHIN_MS): once kept, each turn writes nothing more while it waits
    await until("every turn's reply is kept", async () =>
      (await Promise.all(ids.map((id) => store.read(id)))).every((records) => records.some((r) => r.kind === "reply")),
    );
    return answers;
  }

  /** The last turn of `id` as another store reads it. */
  async lastTurn(store: PostgresStore, id: string) {
    return (await this.fn.conversation(id, { store, lm: scripted([]) }).turns()).at(-1)!;
  }
}

const ids = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);

/** `db`'s lock sessions, each statement shown to `see` (which may hold it up) before it is sent. */
const sessionSeeing =
  (db: ReturnType<typeof pgDb>, see: (text: string, params?: readonly unknown[]) => void | Promise<void>) => async (): Promise<Session> => {
    const session = await db.session!();
    return {
      ...session,
      query: async (text, params) => {
        await see(text, params);
        return session.query(text, params);
      },
    };
  };

/** `db`'s pool statements, each shown to `see` first; one it says true of fails as a dropped connection would, unsent. */
const queriesSeeing =
  (db: ReturnType<typeof pgDb>, see: (text: string, params?: readonly unknown[]) => boolean | void): typeof db.query =>
  (text, params, name) =>
    see(text, params) === true ? Promise.reject(new Error("the connection dropped")) : db.query(text, params, name);

/** A URL of the test server naming the connections made with it (`application_name`), and that name. */

/** Holds an unlock of the lock session up 100 ms (a busy session). */
const unlocksLate = async (text: string): Promise<void> => {
  if (text.includes("pg_advisory_unlock")) await new Promise((r) => setTimeout(r, 100));
};

describe.skipIf(NO_SERVER !== null)("one lock session per store (real server)", () => {
  it("50 turns running at once hold their locks on one connection, under a role allowed 8 connections; a turn that ends frees only its own", async () => {
    const role = `lockone_${rand()}`;
    const schema = freshSchema();
    const app = `lock-one-${rand()}`;
    const server = new URL(SERVER_URL!);
    await admin(`CREATE ROLE ${role} LOGIN PASSWORD 'pw' CONNECTION LIMIT 8`);
    await admin(`GRANT CREATE ON DATABASE "${server.pathname.slice(1)}" TO ${role}`);
    const as = new URL(server);
    as.username = role;
    as.password = "pw";
    as.searchParams.set("application_name", app);
    const pool = new pg.Pool({ connectionString: as.toString(), max: 4 });
    const store = postgresStore({ pool }, { schema });
    const other = postgresStore({ connectionString: SERVER_URL! }, { schema });
    const desk = new Desk();
    const all = ids(50, "many");
    try {
      const answers = await desk.sendAndPause(store, all);
      // the pool's 4, the lock session, at most a listener: never one per turn
      expect(await connections(app)).toBeLessThanOrEqual(6);
      const held = await lockers(app);
      expect(held).toEqual([{ pid: expect.any(Number), locks: all.length }]);
      for (const id of all) expect((await desk.lastTurn(other, id)).state, id).toBe("running");

      const [first, rest] = [all.slice(0, 25), all.slice(25)];
      desk.open(first);
      expect(await Promise.all(answers.slice(0, 25))).toEqual(first.map((id) => `done ${id}`));
      // a turn's unlock is sent as it ends, after its answer resolved: wait until those reached the server, then the others' stand
      await until("the ended turns' unlocks reached the server", async () => (await lockers(app)).every((l) => l.locks <= rest.length));
      expect(await lockers(app)).toEqual([{ pid: held[0]!.pid, locks: rest.length }]); // the others' locks stand, on the same session
      for (const id of rest) expect((await desk.lastTurn(other, id)).state, id).toBe("running");

      desk.open(rest);
      expect(await Promise.all(answers.slice(25))).toEqual(rest.map((id) => `done ${id}`));
      await until("every turn's unlock reached the server", async () => (await lockers(app)).length === 0);
      expect([...desk.charges.values()]).toEqual(all.map(() => 1));
    } finally {
      desk.open(all);
      await store.close();
      await other.close();
      await pool.end();
      await dropSchema(schema);
      await admin(`DROP OWNED BY ${role}`);
      await admin(`DROP ROLE ${role}`);
    }
  });

  it("the lock session terminated: every turn it held is fenced before its next record; those whose lock another took stop with lease-lost, the others retake theirs and go on", async () => {
    const schema = freshSchema();
    const { app, url } = namedApp("lock-cut");
    const pool = new pg.Pool({ connectionString: url, max: 4 });
    const store = postgresStore({ pool }, { schema });
    const other = postgresStore({ connectionString: SERVER_URL! }, { schema });
    const thief = new pg.Client({ connectionString: SERVER_URL! }); // another host that takes some of the locks
    await thief.connect();
    const desk = new Desk();
    const all = ids(20, "cut");
    const taken = all.filter((_, i) => i % 2 === 0);
    const free = all.filter((_, i) => i % 2 === 1);
    try {
      const answers = await desk.sendAndPause(store, all);
      const [session] = await lockers(app);
      expect(session).toEqual({ pid: expect.any(Number), locks: all.length });
      expect(await admin("SELECT pg_terminate_backend($1) AS ok", [session!.pid])).toEqual([{ ok: true }]);

      // every lock went with the one connection: each turn reads interrupted at once (the lease has a minute left)
      await until(
        "every turn reads interrupted",
        async () => (await Promise.all(all.map((id) => desk.lastTurn(other, id)))).every((t) => t.state === "interrupted"),
        5_000,
      );
      const before = new Map<string, number>();
      for (const id of taken) {
        const turn = await desk.lastTurn(other, id);
        const { rows } = await thief.query("SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS ok", [lockText(schema, id, turn.id)]);
        expect(rows[0].ok).toBe(true);
        before.set(id, (await recordsOf(schema, id)).length);
      }

      desk.open(all);
      const settled = await Promise.all(answers);
      expect(settled.filter((_, i) => i % 2 === 0)).toEqual(taken.map(() => "error lease-lost"));
      expect(settled.filter((_, i) => i % 2 === 1)).toEqual(free.map((id) => `done ${id}`));
      for (const id of taken) {
        expect(desk.charges.get(id), id).toBeUndefined(); // no side effect
        expect(desk.lms.get(id)!.requests, id).toHaveLength(1); // no further paid model call
        expect((await recordsOf(schema, id)).length, id).toBe(before.get(id)); // no further record
      }
      for (const id of free) expect(desk.charges.get(id), id).toBe(1);
      expect(await connections(app)).toBeLessThanOrEqual(6); // the retakes shared one new lock session
    } finally {
      desk.open(all);
      await thief.end();
      await store.close();
      await other.close();
      await pool.end();
      await dropSchema(schema);
    }
  });

  it("one turn's lock freed while its session lives: that turn takes it again on the same session; the other turns' locks are never let go", async () => {
    const schema = freshSchema();
    const { app, url } = namedApp("lock-one-turn");
    const pool = new pg.Pool({ connectionString: url, max: 4 });
    const db = pgDb({ pool });
    const sessions: Session[] = [];
    const open = db.session!.bind(db);
    db.session = async () => {
      const session = await open();
      sessions.push(session);
      return session;
    };
    const store = storeOn(db, { schema });
    const other = postgresStore({ connectionString: SERVER_URL! }, { schema });
    const thief = new pg.Client({ connectionString: SERVER_URL! });
    await thief.connect();
    const desk = new Desk();
    const [freed, kept] = ["freed", "kept"];
    try {
      const answers = desk.send(store, [freed, kept]);
      await until("both turns wait in their tool", async () => desk.paused.size === 2);
      const [session] = await lockers(app);
      expect(session).toEqual({ pid: expect.any(Number), locks: 2 });
      const [freedTurn, keptTurn] = [(await desk.lastTurn(other, freed)).id, (await desk.lastTurn(other, kept)).id];
      // only this turn's lock goes (as if its session had let it go): the session itself lives on
      expect(
        (await sessions[0]!.query("SELECT pg_advisory_unlock(hashtextextended($1, 0)) AS ok", [lockText(schema, freed, freedTurn)])).rows,
      ).toEqual([{ ok: true }]);

      desk.open([freed]);
      expect(await answers[0]).toBe(`done ${freed}`);
      expect(desk.charges.get(freed)).toBe(1);
      expect(sessions).toHaveLength(1); // the freed turn took its lock again on the same session
      // the other turn's lock stood all along: nobody else can take it, and it sits on the first session still
      const { rows } = await thief.query("SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS ok", [lockText(schema, kept, keptTurn)]);
      expect(rows).toEqual([{ ok: false }]);
      await until("the freed turn's unlock reached the server", async () => (await lockers(app)).every((l) => l.locks <= 1));
      expect(await lockers(app)).toEqual([{ pid: session!.pid, locks: 1 }]);

      desk.open([kept]);
      expect(await answers[1]).toBe(`done ${kept}`);
      expect(desk.charges.get(kept)).toBe(1);
      await until("the kept turn's unlock reached the server", async () => (await lockers(app)).length === 0);
    } finally {
      desk.open([freed, kept]);
      await thief.end();
      await store.close();
      await other.close();
      await pool.end();
      await dropSchema(schema);
    }
  });

  it("takes and releases that come while one is out go together in one statement; each turn holds exactly its own lock, then none", async () => {
    const schema = freshSchema();
    const { app, url } = namedApp("lock-group");
    const db = pgDb({ connectionString: url });
    /** Per statement on the lock session that takes or lets go of turn locks: how many it carried. */
    const statements: number[] = [];
    const counted = {
      ...db,
      session: sessionSeeing(db, (text, params) => {
        if (text.includes("json_array_elements")) statements.push((JSON.parse(String(params![0])) as unknown[]).length);
        else if (/pg_try_advisory_lock\(pg_catalog\.hashtextextended|pg_advisory_unlock/.test(text)) statements.push(1);
      }),
    };
    const store = storeOn(counted, { schema });
    const other = postgresStore({ connectionString: SERVER_URL! }, { schema });
    const desk = new Desk();
    const all = ids(30, "group");
    try {
      const answers = await desk.sendAndPause(store, all);
      expect(await lockers(app)).toEqual([{ pid: expect.any(Number), locks: all.length }]);
      expect(statements.reduce((a, b) => a + b, 0)).toBe(all.length); // one take per turn…
      expect(statements.length).toBeLessThan(all.length); // …in fewer statements: some carried several
      for (const id of all) expect((await desk.lastTurn(other, id)).state, id).toBe("running");

      desk.open(all);
      expect(await Promise.all(answers)).toEqual(all.map((id) => `done ${id}`));
      await until("every turn's unlock reached the server", async () => (await lockers(app)).length === 0);
      expect(statements.reduce((a, b) => a + b, 0)).toBe(2 * all.length); // and one release each
      expect([...desk.charges.values()]).toEqual(all.map(() => 1));
    } finally {
      desk.open(all);
      await store.close();
      await other.close();
      await dropSchema(schema);
    }
  });

  it("sends refused while a turn waits for a person (each asked for its new turn's lock before it read the conversation) leave no advisory lock behind; the answered turn then runs and lets go of its own", async () => {
    const schema = freshSchema();
    const { app, url } = namedApp("lock-early");
    const store = postgresStore({ connectionString: url }, { schema });
    const { payer, paid } = payDesk();
    const conv = (lm: ScriptedLM) => payer.conversation("early", { store, approve: "changes", lm, lease: LONG_LEASE });
    try {
      const asked = conv(scripted([PAY_CALL, { text: "paid 5" }]));
      await expect(asked.send({ amount: 5 })).rejects.toBeInstanceOf(Waiting);
      const refused = await Promise.all(
        [6, 7, 8, 9].map((amount) =>
          conv(scripted([]))
            .send({ amount })
            .then(String, (e: { code?: string }) => `error ${e.code ?? String(e)}`),
        ),
      );
      expect(refused).toEqual(refused.map(() => "error conversation-busy"));
      await until("the refused sends' unlocks reached the server", async () => (await lockers(app)).length === 0);
      expect(await lockers(app)).toEqual([]);
      const [turn] = await asked.turns();
      expect(await turn!.approve({ by: "sam" })).toBe("paid 5");
      expect(paid).toEqual([5]);
      await until("the turn's unlock reached the server", async () => (await lockers(app)).length === 0);
    } finally {
      await store.close();
      await dropSchema(schema);
    }
  });

  it("a person's answer claims the turn with one try of its lock, without first asking pg_locks whether another holds it (a try that fails is the refusal: hosts.test.ts races 8 hosts for one turn)", async () => {
    const schema = freshSchema();
    const db = pgDb({ connectionString: SERVER_URL! });
    /** The statements that read pg_locks, on the pool and on the lock session. */
    const asked: string[] = [];
    const counted = {
      ...db,
      query: queriesSeeing(db, (text) => void (text.includes("pg_locks") && asked.push(text))),
      session: sessionSeeing(db, (text) => void (text.includes("pg_locks") && asked.push(text))),
    };
    const store = storeOn(counted, { schema });
    const { payer, paid } = payDesk();
    try {
      const lm = scripted([PAY_CALL, { text: "paid 5" }]);
      const conv = payer.conversation("claim", { store, approve: "changes", lm, lease: LONG_LEASE });
      await expect(conv.send({ amount: 5 })).rejects.toBeInstanceOf(Waiting);
      const [turn] = await conv.turns();
      asked.length = 0;
      expect(await turn!.approve({ by: "sam" })).toBe("paid 5");
      expect(asked).toEqual([]);
      expect(paid).toEqual([5]);
    } finally {
      await store.close();
      await dropSchema(schema);
    }
  });

  it("a turn answered in the process where it just went waiting is claimed there, while that process's unlock of it is still on its way (never refused as held by another)", async () => {
    const schema = freshSchema();
    const db = pgDb({ connectionString: SERVER_URL! });
    // the lock session's unlocks reach the server 100 ms late (a busy session): the turn's own lock still stands when the answer comes
    const slowUnlocks = { ...db, session: sessionSeeing(db, unlocksLate) };
    const store = storeOn(slowUnlocks, { schema });
    const { payer, paid } = payDesk();
    try {
      for (const amount of [5, 6, 7]) {
        const lm = scripted([{ toolCalls: [{ id: "p", name: "pay", input: { amount } }] }, { text: `paid ${amount}` }]);
        const conv = payer.conversation(`answered-${amount}`, { store, approve: "changes", lm, lease: LONG_LEASE });
        await expect(conv.send({ amount })).rejects.toBeInstanceOf(Waiting);
        const [turn] = await conv.turns();
        expect(await turn!.approve({ by: "sam" })).toBe(`paid ${amount}`);
      }
      expect(paid).toEqual([5, 6, 7]);
    } finally {
      await store.close();
      await dropSchema(schema);
    }
  });

  it("a turn stopped by a failing append reads interrupted at once in its own process, though that process's unlock of it is still on its way; resumed there, it runs its tool once", async () => {
    const schema = freshSchema();
    const db = pgDb({ connectionString: SERVER_URL! });
    const failing = { appends: false };
    const flaky = {
      ...db,
      // appends fail while `failing.appends` (a database that went away for a moment)
      query: queriesSeeing(db, (text) => failing.appends && text.includes(".append(")),
      // the lock session's unlocks reach the server 100 ms late (a busy session)
      session: sessionSeeing(db, unlocksLate),
    };
    const store = storeOn(flaky, { schema });
    const { payer, paid } = payDesk();
    try {
      const lm = scripted([() => ((failing.appends = true), PAY_CALL), PAY_CALL, { text: "paid 5" }]);
      const conv = payer.conversation("stopped", { store, lm, lease: LONG_LEASE });
      await expect(conv.send({ amount: 5 })).rejects.toMatchObject({ code: "store-io" });
      expect(paid).toEqual([]); // its started record was never kept: the tool did not run
      failing.appends = false;
      const [turn] = await conv.turns();
      expect(turn!.state).toBe("interrupted");
      expect(await turn!.resume()).toBe("paid 5");
      expect(paid).toEqual([5]);
    } finally {
      await store.close();
      await dropSchema(schema);
    }
  });

  it("a turn whose waiting record the store refused lets go of its advisory lock: once the store is back, another host reads it interrupted and resumes it", async () => {
    const schema = freshSchema();
    const { app, url } = namedApp("lock-wait");
    const db = pgDb({ connectionString: url });
    const failing = { waits: false };
    // the append that carries the turn's waiting record fails while `failing.waits` (the database went away just then)
    const flaky = {
      ...db,
      query: queriesSeeing(
        db,
        (text, params) => failing.waits && text.includes(".append(") && JSON.stringify(params ?? []).includes('\\"kind\\":\\"waiting\\"'),
      ),
    };
    const store = storeOn(flaky, { schema });
    const other = postgresStore({ connectionString: SERVER_URL! }, { schema });
    const { payer, paid } = payDesk();
    try {
      failing.waits = true;
      const lm = scripted([PAY_CALL]);
      await expect(payer.conversation("unkept", { store, approve: "changes", lm, lease: LONG_LEASE }).send({ amount: 5 })).rejects.toMatchObject({
        code: "store-io",
      });
      failing.waits = false;
      await until("the turn's unlock reached the server", async () => (await lockers(app)).length === 0);
      // the reply that asked for the pay was in the refused append with the waiting record: written as the turn let go
      // (hunt 73), it is replayed there, not paid again; only the reply after the pay is asked for
      const lmElsewhere = scripted([{ text: "paid 5" }]);
      const elsewhere = payer.conversation("unkept", { store: other, approve: "changes", lm: lmElsewhere });
      const [turn] = await elsewhere.turns();
      expect(turn!.state).toBe("interrupted");
      await expect(turn!.resume()).rejects.toBeInstanceOf(Waiting); // the pay waits for a person again
      expect(paid).toEqual([]);
      const [asked] = await elsewhere.turns();
      expect(await asked!.approve({ by: "sam" })).toBe("paid 5");
      expect(paid).toEqual([5]);
      expect(lmElsewhere.requests).toHaveLength(1);
    } finally {
      await store.close();
      await other.close();
      await dropSchema(schema);
    }
  });
});
