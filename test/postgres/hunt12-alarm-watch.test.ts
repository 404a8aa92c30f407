/**
 * Hunt 12 (alarm): the waiting list's `refresh()` (adapters/websocket/server/watch.ts) now resolves once a scan
 * begun after the call has ended, and a scan reads 16 conversations at once. Checked through `serve` on a real
 * PostgreSQL server: an approval's turn is never listed right after the approval resolved; a turn made waiting
 * elsewhere is listed at the next request; a damaged conversation among 40 others does not hide them nor hang
 * `waiting()`; `close()` while a scan has its reads out resolves promptly.
 */
import { afterEach, describe, expect, it } from "vitest";
import { postgresStore } from "../../adapters/postgres/index.js";
import { connect, serve } from "../../adapters/websocket/index.js";
import type { Store } from "../../src/store/types.js";
import { waitingDesk } from "../websocket/fixtures.js";
import { NO_SERVER, SERVER_URL, admin, dropSchema, freshSchema } from "./server.js";

const open: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  for (const x of open.splice(0).reverse()) await x.close();
});
const keep = <T extends { close(): Promise<unknown> }>(x: T): T => (open.push(x), x);

/** A fresh schema (dropped last) and a store on it. */
function fresh() {
  const schema = freshSchema();
  keep({ close: () => dropSchema(schema) });
  const store = keep(postgresStore({ connectionString: SERVER_URL! }, { schema }));
  return { schema, store };
}

/** Turns made waiting in `list` (a desk's scripted model has 20 turns: a desk per 15), and the first desk. */
async function manyWaiting(list: readonly string[], store: Store) {
  const first = await waitingDesk(list.slice(0, 15), { store });
  for (let i = 15; i < list.length; i += 15) await waitingDesk(list.slice(i, i + 15), { store });
  return first;
}

const ids = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${String(i).padStart(2, "0")}`);
const names = (list: readonly { conversation: string }[]) => list.map((w) => w.conversation).sort();
/** A poll so slow that only requests (their `refresh`) bring the list up to date during a test. */
const NO_POLL = 600_000;

describe.skipIf(NO_SERVER !== null)("serve's waiting list after the refresh change (Postgres)", () => {
  it("right after an approval resolves, waiting() never lists that turn (each of 6, with the others still listed)", async () => {
    const { store } = fresh();
    const desk = await waitingDesk(ids("a", 6), { store });
    const server = keep(await serve({ store, programs: [desk.served], keys: ["k1"], port: 0, pollMs: NO_POLL }));
    const app = keep(await connect(server.url, { key: "k1" }));
    const first = await app.waiting();
    expect(names(first)).toEqual(ids("a", 6));
    const left = new Set(ids("a", 6));
    for (const w of first) {
      await app.approve({ conversation: w.conversation, turn: w.turn, by: "alarm" });
      left.delete(w.conversation);
      const now = await app.waiting();
      expect(now.some((x) => x.turn === w.turn)).toBe(false);
      expect(names(now)).toEqual([...left].sort());
    }
    expect(desk.REFUNDS).toHaveLength(6);
  }, 20_000);

  it("a turn made waiting through another store on the schema is listed by the next waiting() (no poll in between)", async () => {
    const { schema, store } = fresh();
    const desk = await waitingDesk(["b00"], { store });
    const server = keep(await serve({ store, programs: [desk.served], keys: ["k1"], port: 0, pollMs: NO_POLL }));
    const app = keep(await connect(server.url, { key: "k1" }));
    expect(names(await app.waiting())).toEqual(["b00"]);
    const other = keep(postgresStore({ connectionString: SERVER_URL! }, { schema }));
    for (const id of ["b01", "b02"]) {
      await waitingDesk([id], { store: other });
      expect(names(await app.waiting())).toContain(id);
    }
    // several asked at once, right after one more: each answer lists it
    await waitingDesk(["b03"], { store: other });
    const many = await Promise.all(Array.from({ length: 5 }, () => app.waiting()));
    for (const list of many) expect(names(list)).toEqual(["b00", "b01", "b02", "b03"]);
  }, 20_000);

  it("a conversation whose last batch row is gone, among 40 waiting ones, leaves the 40 listed and waiting() answers", async () => {
    const { schema, store } = fresh();
    const desk = await manyWaiting([...ids("w", 40), "d-bad"], store);
    await admin(
      `DELETE FROM "${schema}".batches WHERE conversation = 'd-bad' AND last = (SELECT max(last) FROM "${schema}".batches WHERE conversation = 'd-bad')`,
    );
    const errors: string[] = [];
    const server = keep(
      await serve({ store, programs: [desk.served], keys: ["k1"], port: 0, pollMs: NO_POLL, onError: (m, e) => errors.push(`${m}: ${String(e)}`) }),
    );
    const app = keep(await connect(server.url, { key: "k1" }));
    const t0 = Date.now();
    expect(names(await app.waiting())).toEqual(ids("w", 40));
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(errors.join("\n")).toMatch(/d-bad/);
  }, 20_000);

  // (hunt6-damaged-rows.test.ts: a length below 0 by hand; the store's `lengths()` reads every length in one go)
  it("a conversation whose length is negative (damaged), among 40 waiting ones, leaves the 40 listed", async () => {
    const { schema, store } = fresh();
    const desk = await manyWaiting([...ids("n", 40), "d-neg"], store);
    await admin(`UPDATE "${schema}".conversations SET length = -5 WHERE id = 'd-neg'`);
    const server = keep(await serve({ store, programs: [desk.served], keys: ["k1"], port: 0, pollMs: NO_POLL, onError: () => undefined }));
    const app = keep(await connect(server.url, { key: "k1" }));
    expect(names(await app.waiting())).toEqual(ids("n", 40));
  }, 20_000);

  it("server.close() while a scan has its 16 reads out resolves within its bound (the reads held 8 s by a lock)", async () => {
    const { schema, store } = fresh();
    const empty = await waitingDesk([], { store });
    const server = await serve({ store, programs: [empty.served], keys: ["k1"], port: 0, pollMs: NO_POLL });
    const app = await connect(server.url, { key: "k1" });
    expect(await app.waiting()).toEqual([]);
    // 40 turns made waiting through another store: the server reads them at its next scan only
    const other = keep(postgresStore({ connectionString: SERVER_URL! }, { schema }));
    await manyWaiting(ids("s", 40), other);
    // a slow database: the batches are locked for 8 s, so every read of the next scan waits
    const lockHolder = admin(`BEGIN; LOCK TABLE "${schema}".batches IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(8); COMMIT;`);
    await untilLocked(schema);
    const asked = app.waiting().then(
      (l) => l.length,
      (e: unknown) => String((e as { code?: unknown }).code),
    );
    await untilWaiting(schema, 1); // the scan's reads are out, held by the lock
    const t0 = Date.now();
    await server.close();
    const closedMs = Date.now() - t0;
    await app.close();
    // close waits for the scan at most its 5 s bound (serve.ts shutdown), never for the locked reads' 8 s
    expect(closedMs).toBeLessThan(6_500);
    expect(await asked).not.toBe(40); // (the server closed before the scan could end: never a list read after close)
    await lockHolder;
    await store.close();
  }, 20_000);
});

/** Until a session holds the lock on the schema's batches. */
async function untilLocked(schema: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const rows = await admin<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_locks l JOIN pg_class c ON c.oid = l.relation JOIN pg_namespace s ON s.oid = c.relnamespace WHERE s.nspname = $1 AND c.relname = 'batches' AND l.mode = 'AccessExclusiveLock' AND l.granted",
      [schema],
    );
    if (rows[0]!.n > 0) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error("the lock was never taken");
}

/** Until at least `n` sessions wait for a lock on the schema's batches. */
async function untilWaiting(schema: string, n: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const rows = await admin<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_locks l JOIN pg_class c ON c.oid = l.relation JOIN pg_namespace s ON s.oid = c.relnamespace WHERE s.nspname = $1 AND c.relname = 'batches' AND NOT l.granted",
      [schema],
    );
    if (rows[0]!.n >= n) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error("no read ever waited for the lock");
}
