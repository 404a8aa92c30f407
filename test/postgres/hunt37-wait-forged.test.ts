/**
 * Hunt 37, on a real PostgreSQL server: notifications the store did not
 * send. Any role that may connect may NOTIFY on any channel, the store's
 * (`functai_<schema>`) included, with any payload. The store's contract
 * (src/store/types.ts): `wait` "resolves true once the conversation holds
 * more than `after` records, false after `timeoutMs`". A notification is a
 * hint to look, never the answer: a wait woken by one that names no new
 * record (forged, or garbled) waits on; a real append still wakes it at once.
 */
import { describe, expect, it } from "vitest";
import { postgresStore } from "../../adapters/postgres/index.js";
import { rec } from "../store/contract.js";
import { until } from "./fixtures/hunt7-net-desk.js";
import { NO_SERVER, SERVER_URL, admin, dropSchema, freshSchema, settle } from "./server.js";

/** Until `conversation`'s waiter row is written in `schema` (written after the store listens: a notification now is heard). */
const waiterWritten = (schema: string, conversation: string) =>
  until(
    `a waiter on ${conversation}`,
    async () =>
      // (to_regclass: the tables are made by the wait's first statement)
      (
        await admin(`SELECT to_regclass($1) IS NOT NULL AND EXISTS (SELECT 1 FROM "${schema}".waiters WHERE conversation = $2) AS ok`, [
          `"${schema}".waiters`,
          conversation,
        ]).catch(() => [{ ok: false }])
      )[0]!["ok"] === true,
  );

/** Sends `payload` on the store's channel as another session would (no record written). */
const forge = (schema: string, payload: string) => admin("SELECT pg_notify($1, $2)", [`functai_${schema}`, payload]);

/** Whether `p` is still unsettled 50 ms from now. */
const pendingStill = (p: Promise<unknown>): Promise<boolean> =>
  Promise.race([p.then(() => false), new Promise<boolean>((r) => setTimeout(() => r(true), 50))]);

describe.skipIf(NO_SERVER !== null)("postgresStore wait and notifications it did not send", () => {
  it("a forged notification naming the conversation with a length above `after` (no record written): the wait answers false at its timeout, not true", async () => {
    const schema = freshSchema();
    const store = postgresStore({ connectionString: SERVER_URL! }, { schema });
    try {
      expect(await store.append("held", [rec()])).toBe(1);
      const empty = settle(store.wait!("sam", 0, 2_000)); // never written
      const past = settle(store.wait!("held", 1, 2_000)); // holds 1, no more
      await waiterWritten(schema, "sam");
      await waiterWritten(schema, "held");
      for (const payload of ["sam 99", "held 5", "sam 1", "held 2147483647"]) await forge(schema, payload);
      const [a, b] = [await empty, await past];
      expect(a.got).toBe(false);
      expect(b.got).toBe(false);
      expect(a.ms).toBeGreaterThanOrEqual(1_900);
      expect(await store.read("sam")).toEqual([]);
    } finally {
      await store.close();
      await dropSchema(schema);
    }
  }, 30_000);

  it("garbled payloads (empty, no length, not a number, a huge one, 7,000 characters) neither wake nor break the wait; a real append after them wakes it at once", async () => {
    const schema = freshSchema();
    const store = postgresStore({ connectionString: SERVER_URL! }, { schema });
    const other = postgresStore({ connectionString: SERVER_URL! }, { schema });
    const errors: unknown[] = [];
    const onError = (e: unknown) => errors.push(e);
    process.on("unhandledRejection", onError);
    process.on("uncaughtException", onError);
    try {
      const waiting = settle(store.wait!("sam", 0, 15_000));
      await waiterWritten(schema, "sam");
      for (const payload of ["", "sam", "sam x", "sam 1e9", "sam Infinity", "sam -1", " 5", `sam ${"9".repeat(400)}`, `${"s".repeat(7_000)} 1`])
        await forge(schema, payload);
      await new Promise((r) => setTimeout(r, 500));
      expect(await pendingStill(waiting)).toBe(true);
      const t0 = Date.now();
      expect(await other.append("sam", [rec()])).toBe(1);
      const { got } = await waiting;
      expect(got).toBe(true);
      expect(Date.now() - t0).toBeLessThan(3_000);
      expect(errors).toEqual([]);
    } finally {
      process.off("unhandledRejection", onError);
      process.off("uncaughtException", onError);
      await other.close();
      await store.close();
      await dropSchema(schema);
    }
  }, 30_000);

  it("a flood of forged notifications on a conversation: its waits stay unanswered until a real append, which wakes all of them at once", async () => {
    const schema = freshSchema();
    const store = postgresStore({ connectionString: SERVER_URL! }, { schema });
    const other = postgresStore({ connectionString: SERVER_URL! }, { schema });
    try {
      expect(await other.append("sam", [rec()])).toBe(1);
      const waits = Array.from({ length: 20 }, () => settle(store.wait!("sam", 1, 20_000)));
      await waiterWritten(schema, "sam");
      // one statement sends them all (each a notification of its own: the payloads differ)
      await admin("SELECT pg_notify($1, 'sam ' || g) FROM generate_series(2, 2001) g", [`functai_${schema}`]);
      await new Promise((r) => setTimeout(r, 1_000));
      for (const w of waits) expect(await pendingStill(w)).toBe(true);
      const t0 = Date.now();
      expect(await other.append("sam", [rec()])).toBe(2);
      for (const w of await Promise.all(waits)) expect(w.got).toBe(true);
      expect(Date.now() - t0).toBeLessThan(3_000);
    } finally {
      await other.close();
      await store.close();
      await dropSchema(schema);
    }
  }, 40_000);
});
