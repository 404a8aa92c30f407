/**
 * A wait settles within its own timeout whatever the listening connection
 * is doing: on a server that was reached once and then went down, the
 * store's first wait (whose listening connection is still being made while
 * the store keeps trying to reconnect) ends false at its timeout, as a wait
 * whose statement is slow does, never 20–30 s later when the reconnecting
 * gives up; and a wait that outlasts the outage wakes once the server is back.
 */
import { describe, expect, it } from "vitest";
import { postgresStore } from "../../adapters/postgres/index.js";
import { rec } from "../store/contract.js";
import { proxy } from "./fixtures/proxy.js";
import { NO_SERVER, SERVER_URL, dropSchema, freshSchema, settle as outcome } from "./server.js";

const url = SERVER_URL ?? "";

/**
 * A store reached through a proxy that can take the server away (`via`),
 * on a schema of its own, with another store on the same schema straight
 * to the server (another host, still connected); both closed and the
 * schema dropped after `run`.
 */
async function outage(run: (t: { via: Awaited<ReturnType<typeof proxy>>; store: ReturnType<typeof postgresStore>; other: ReturnType<typeof postgresStore> }) => Promise<void>): Promise<void> {
  const schema = freshSchema();
  const via = await proxy(url);
  const store = postgresStore({ connectionString: via.url }, { schema });
  const other = postgresStore({ connectionString: url }, { schema });
  try {
    await run({ via, store, other });
  } finally {
    await other.close();
    await store.close();
    await dropSchema(schema);
  }
}

describe.skipIf(NO_SERVER !== null)("a wait while the server is down", () => {
  it("the store's first wait on a server that went down settles at its timeout", async () => {
    await outage(async ({ via, store }) => {
      expect(await store.append("c", [rec()])).toBe(1); // reached once
      await via.down();
      const { got, ms } = await outcome(store.wait!("c", 1, 1_000));
      expect(got).toBe(false);
      expect(ms).toBeLessThan(3_000);
    });
  }, 60_000);
});

describe.skipIf(NO_SERVER !== null)("a wait that outlasts an outage", () => {
  it("the store's first wait, made while the server is down, wakes once it is back for an append made meanwhile", async () => {
    await outage(async ({ via, store, other }) => {
      expect(await store.append("c", [rec()])).toBe(1);
      await via.down();
      const waiting = outcome(store.wait!("c", 1, 15_000));
      await new Promise((r) => setTimeout(r, 500));
      expect(await other.append("c", [rec()])).toBe(2); // nobody here listens: no notification to keep
      await via.up();
      const { got, ms } = await waiting;
      expect(got).toBe(true);
      expect(ms).toBeLessThan(10_000);
    });
  }, 60_000);

  it("a wait under way when the listening connection is cut wakes for an append made while it was", async () => {
    await outage(async ({ via, store, other }) => {
      expect(await store.append("c", [rec()])).toBe(1);
      expect(await store.wait!("c", 0, 1_000)).toBe(true); // listening now
      const waiting = outcome(store.wait!("c", 1, 15_000));
      await new Promise((r) => setTimeout(r, 200));
      await via.down();
      expect(await other.append("c", [rec()])).toBe(2);
      await new Promise((r) => setTimeout(r, 300));
      await via.up();
      const { got, ms } = await waiting;
      expect(got).toBe(true);
      expect(ms).toBeLessThan(10_000);
    });
  }, 60_000);
});

describe.skipIf(NO_SERVER !== null)("close while the server is down", () => {
  it("close settles at once while the listening connection is still being made (never after the reconnecting gives up)", async () => {
    await outage(async ({ via, store }) => {
      expect(await store.append("c", [rec()])).toBe(1);
      await via.down();
      const waiting = outcome(store.wait!("c", 1, 60_000));
      await new Promise((r) => setTimeout(r, 300)); // the listener is connecting now
      const closing = outcome(store.close());
      expect(await waiting).toMatchObject({ got: false }); // a close answers a wait under way
      const closed = await closing;
      expect(closed.got).toBeUndefined();
      expect(closed.ms).toBeLessThan(3_000);
    });
  }, 60_000);
});
