/**
 * Hunt 30, on a real PostgreSQL server: the store's own connections ended by
 * the server (pg_terminate_backend), no proxy. DESIGN "Many hosts": `wait`
 * listens on one connection per store (no lost wake-ups; re-read after a
 * reconnect); a host that loses its lock connection stops before its next
 * record or side effect, and takes the lock again only if nobody else took
 * it. wait-many.test.ts has waits under way at one termination; here, waits
 * begun while the listener reconnects, and terminations one after another.
 * lock-session.test.ts has the turns idle in a tool; here, in a model call.
 */
import pg from "pg";
import { describe, expect, it } from "vitest";
import { postgresStore, type PostgresStore } from "../../adapters/postgres/index.js";
import { lockText } from "../../adapters/postgres/liveness.js";
import { beforeGenerate } from "../fixtures/before-generate.js";
import { scripted, type ScriptedReply } from "../../src/testing/index.js";
import { rec } from "../store/contract.js";
import { CHARGE, LONG_LEASE, desk, outcome, rows, until } from "./fixtures/hunt7-net-desk.js";
import { NO_SERVER, SERVER_URL, admin, dropSchema, freshSchema, lockers, namedApp, settle } from "./server.js";

/** The server process of the store's listening connection (named `app`), once it listens. */
async function listenerPid(app: string): Promise<number> {
  let pid: number | undefined;
  await until("the store listens", async () => {
    const rows = await admin<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND query LIKE 'LISTEN %'", [app]);
    pid = rows[0]?.pid;
    return rows.length === 1;
  });
  return pid!;
}

/** Until `n` waiters' rows are written in `schema` (a wait that wrote its row is one an append must notify). */
const waitersWritten = (schema: string, n: number) =>
  until(`${n} waiters written`, async () => (await admin(`SELECT 1 FROM "${schema}".waiters`)).length >= n);

describe.skipIf(NO_SERVER !== null)("the listening connection terminated by the server", () => {
  it("a wait under way and waits begun while it reconnects wake on another store's appends; once back, a new wait wakes by notification; again after two terminations in a row", async () => {
    const schema = freshSchema();
    const { app, url } = namedApp("h30-listen");
    const store = postgresStore({ connectionString: url }, { schema });
    const other = postgresStore({ connectionString: SERVER_URL! }, { schema });
    const errors: unknown[] = [];
    const onError = (e: unknown) => errors.push(e);
    process.on("uncaughtException", onError);
    try {
      expect(await other.append("a", [rec()])).toBe(1);
      const pending = settle(store.wait!("a", 1, 20_000));
      await waitersWritten(schema, 1);
      expect(await admin("SELECT pg_terminate_backend($1) AS ok", [await listenerPid(app)])).toEqual([{ ok: true }]);
      // begun while nobody listens (the listener reconnects): its row is written, the append's notification is lost, the re-read tells
      const during = settle(store.wait!("b", 0, 20_000));
      await waitersWritten(schema, 2);
      expect(await other.append("a", [rec()])).toBe(2);
      expect(await other.append("b", [rec()])).toBe(1);
      for (const { got, ms } of [await pending, await during]) {
        expect(got).toBe(true);
        expect(ms).toBeLessThan(10_000);
      }

      // listening again: a wake-up by notification, not by the wait's timeout
      await listenerPid(app);
      const later = settle(store.wait!("c", 0, 20_000));
      await until("c's waiter written", async () => (await admin(`SELECT 1 FROM "${schema}".waiters WHERE conversation = 'c'`)).length === 1);
      expect(await other.append("c", [rec()])).toBe(1);
      expect((await later).got).toBe(true);
      expect((await later).ms).toBeLessThan(3_000);

      // terminated twice in a row: once listening, once more as soon as it is back
      const twice = settle(store.wait!("d", 0, 30_000));
      await until("d's waiter written", async () => (await admin(`SELECT 1 FROM "${schema}".waiters WHERE conversation = 'd'`)).length === 1);
      const first = await listenerPid(app);
      await admin("SELECT pg_terminate_backend($1)", [first]);
      await until(
        "a new listener",
        async () =>
          (
            await admin<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND query LIKE 'LISTEN %' AND pid <> $2", [
              app,
              first,
            ])
          ).length === 1,
      );
      await admin("SELECT pg_terminate_backend($1)", [await listenerPid(app)]);
      expect(await other.append("d", [rec()])).toBe(1);
      expect((await twice).got).toBe(true);
      expect(errors).toEqual([]);
    } finally {
      process.off("uncaughtException", onError);
      await store.close();
      await other.close();
      await dropSchema(schema);
    }
  }, 60_000);
});

/** A scripted model whose `at`-th request (from 1) waits until `open` is called. */
function gatedLM(replies: ScriptedReply[], at: number) {
  const inner = scripted(replies);
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  const state = { waiting: false, open };
  let calls = 0;
  const lm = beforeGenerate(inner, async () => {
    if (++calls !== at) return;
    state.waiting = true;
    await opened;
  });
  return { lm, inner, state };
}

const LOOK = { toolCalls: [{ id: "p", name: "pause", input: {} }] };

describe.skipIf(NO_SERVER !== null)("the lock connection terminated while the turn waits for a model reply (between two steps)", () => {
  /** A turn of `id` on a store named `app`, its reads tool done, waiting for its second model reply; then its lock session ended. */
  async function cutBetweenSteps(store: PostgresStore, app: string, id: string) {
    const here = desk();
    here.state.open(); // the reading tool returns at once
    const gated = gatedLM([LOOK, CHARGE, { text: "done" }], 2);
    const sent = outcome(here.fn.conversation(id, { store, lm: gated.lm, lease: LONG_LEASE }).send({ id }));
    await until("the second model request waits", () => gated.state.waiting);
    const [session] = await lockers(app);
    expect(session).toEqual({ pid: expect.any(Number), locks: 1 });
    expect(await admin("SELECT pg_terminate_backend($1) AS ok", [session!.pid])).toEqual([{ ok: true }]);
    return { here, gated, sent };
  }

  async function withStores(run: (s: { store: PostgresStore; other: PostgresStore; app: string; schema: string }) => Promise<void>) {
    const schema = freshSchema();
    const { app, url } = namedApp("h30-lock");
    const store = postgresStore({ connectionString: url }, { schema });
    const other = postgresStore({ connectionString: SERVER_URL! }, { schema });
    try {
      await run({ store, other, app, schema });
    } finally {
      await store.close();
      await other.close();
      await dropSchema(schema);
    }
  }

  it("another host resumed the turn and finished it meanwhile (its lock free again): the reply comes here, and the host stops with a clear error, writing nothing, charging nothing", async () => {
    await withStores(async ({ store, other, app, schema }) => {
      const { here, gated, sent } = await cutBetweenSteps(store, app, "a");
      const there = desk();
      const chat = there.fn.conversation("a", { store: other, lm: scripted([CHARGE, { text: "done there" }]), lease: LONG_LEASE });
      await until("the turn reads interrupted", async () => (await chat.turns()).at(-1)!.state === "interrupted", 5_000);
      expect(await (await chat.turns()).at(-1)!.resume()).toBe("done there");
      expect(there.state.charges).toBe(1);
      const after = await rows(schema, "a");
      gated.state.open();
      expect(await sent).toBe("error lease-lost");
      expect(here.state.charges).toBe(0);
      expect(gated.inner.requests).toHaveLength(2);
      expect(await rows(schema, "a")).toEqual(after);
    });
  });

  it("another host holds the turn's lock now: lease-lost before the charge, nothing written", async () => {
    await withStores(async ({ store, other, app, schema }) => {
      const thief = new pg.Client({ connectionString: SERVER_URL! });
      await thief.connect();
      try {
        const { here, gated, sent } = await cutBetweenSteps(store, app, "b");
        const chat = desk().fn.conversation("b", { store: other, lm: scripted([]), lease: LONG_LEASE });
        await until("the turn reads interrupted", async () => (await chat.turns()).at(-1)!.state === "interrupted", 5_000);
        const turn = (await chat.turns()).at(-1)!;
        expect((await thief.query("SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS ok", [lockText(schema, "b", turn.id)])).rows).toEqual([
          { ok: true },
        ]);
        const before = await rows(schema, "b");
        gated.state.open();
        expect(await sent).toBe("error lease-lost");
        expect(here.state.charges).toBe(0);
        expect(await rows(schema, "b")).toEqual(before);
      } finally {
        await thief.end();
      }
    });
  });
});
