/**
 * Hunt 6, on a real PostgreSQL server: a store closed, or a pool given to it
 * ended by its owner, while a turn runs (waiting in a reading tool) or while
 * appends are out and grouped. README ("Many hosts: PostgreSQL", and the
 * PostgresStore type's `close`: "refuses calls from now on, lets those under
 * way settle") and DESIGN ("never runs a changing tool without a durable
 * `started` record") say: the turn fails with store-io before its changing
 * tool, another store then finds it interrupted and finishes it with the
 * tool run once; every append out at close either landed and resolved, or
 * was refused and is not in the table.
 */
import pg from "pg";
import { describe, expect, it } from "vitest";
import { postgresStore } from "../../adapters/postgres/index.js";
import { scripted } from "../../src/testing/index.js";
import { rec } from "../store/contract.js";
import { CHARGE, LONG_LEASE, desk, pausedTurn } from "./fixtures/hunt7-net-desk.js";
import { NO_SERVER, SERVER_URL, admin, dropSchema, freshSchema } from "./server.js";

const url = SERVER_URL ?? "";

/** Another host: finds the turn of `id` interrupted and resumes it; returns the state it found and the answer. */
async function resumeElsewhere(schema: string, id: string) {
  const other = postgresStore({ connectionString: url }, { schema });
  try {
    const d = desk();
    d.state.open();
    const chat = d.fn.conversation(id, { store: other, lm: scripted([CHARGE, { text: "done" }]), lease: LONG_LEASE });
    const turn = (await chat.turns()).at(-1)!;
    const state = turn.state;
    const answer = await turn.resume();
    return { state, answer, charges: d.state.charges };
  } finally {
    await other.close();
  }
}

describe.skipIf(NO_SERVER !== null)("a store closed, or its given pool ended, while a turn runs", () => {
  it("closed while the turn waits in a reading tool: close settles at once; the turn fails store-io before its charge; another host resumes it, charging once", async () => {
    const schema = freshSchema();
    const store = postgresStore({ connectionString: url }, { schema });
    try {
      const p = await pausedTurn(store, "closed-mid");
      const t0 = Date.now();
      await store.close();
      expect(Date.now() - t0).toBeLessThan(3_000);
      p.state.open();
      expect(await p.turn).toMatch(/^error store-io: .*the store is closed/);
      expect(p.state.charges).toBe(0);
      expect(await resumeElsewhere(schema, "closed-mid")).toEqual({ state: "interrupted", answer: "done", charges: 1 });
    } finally {
      await store.close();
      await dropSchema(schema);
    }
  }, 20_000);

  it("the given pool ended by its owner while the turn waits: the turn fails store-io naming the ended pool, before its charge; another host (the store still open) finds it interrupted and resumes it, charging once", async () => {
    const schema = freshSchema();
    const pool = new pg.Pool({ connectionString: url, max: 3 });
    const store = postgresStore({ pool }, { schema });
    try {
      const p = await pausedTurn(store, "pool-ended");
      await pool.end();
      p.state.open();
      const answer = await p.turn;
      expect(answer).toMatch(/^error store-io: .*pool was ended/);
      expect(p.state.charges).toBe(0);
      const records = await admin<{ kind: string }>(`SELECT record->>'kind' AS kind FROM "${schema}".records WHERE conversation = 'pool-ended' ORDER BY seq`);
      expect(records.map((r) => r.kind)).not.toContain("started");
      // its lock (on the store's own session, not the pool) was let go when the turn failed: interrupted at once, store still open
      expect(await resumeElsewhere(schema, "pool-ended")).toEqual({ state: "interrupted", answer: "done", charges: 1 });
    } finally {
      await store.close();
      await dropSchema(schema);
    }
  }, 20_000);

  it("closed while sixty appends are out (grouped): each that resolved is in the table at its length, each refused is not; close settles", async () => {
    const schema = freshSchema();
    const store = postgresStore({ connectionString: url }, { schema });
    try {
      await store.append("warm", [rec()]); // tables made: the appends below go to their statements at once
      const ids = Array.from({ length: 60 }, (_, i) => `g${i}`);
      const outcomes = ids.map((id, i) =>
        store.append(id, [rec("x", { i }), rec("y", { i })]).then(
          (length) => ({ id, length, code: null as string | null }),
          (e: { code?: string }) => ({ id, length: null as number | null, code: e.code ?? String(e) }),
        ),
      );
      await new Promise((r) => setImmediate(r));
      await store.close();
      const got = await Promise.all(outcomes);
      const rows = await admin<{ conversation: string; n: number }>(`SELECT conversation, count(*)::int AS n FROM "${schema}".records GROUP BY conversation`);
      const inTable = new Map(rows.map((r) => [r.conversation, r.n]));
      for (const o of got) {
        if (o.code === null) {
          expect(o.length, o.id).toBe(2);
          expect(inTable.get(o.id), o.id).toBe(2);
        } else {
          expect(o.code, o.id).toBe("store-io");
          expect(inTable.has(o.id), o.id).toBe(false);
        }
      }
      // close lets the calls under way settle: appends already taken are not cut off
      expect(got.filter((o) => o.code === null).length).toBe(ids.length);
    } finally {
      await store.close();
      await dropSchema(schema);
    }
  }, 20_000);
});
