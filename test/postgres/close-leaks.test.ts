/**
 * A closed store leaves no connection open, whatever it was doing when
 * closed: a held turn's lock session, the listening connection, a hold or
 * a wait under way, a lock session whose backend the server terminated.
 * Counted at a proxy in front of the server, so only this store's own.
 */
import { describe, expect, it } from "vitest";
import { postgresStore } from "../../adapters/postgres/index.js";
import { lockText } from "../../adapters/postgres/liveness.js";
import { rec } from "../store/contract.js";
import { proxy } from "./fixtures/proxy.js";
import { NO_SERVER, SERVER_URL, admin, dropSchema, freshSchema } from "./server.js";

const url = SERVER_URL ?? "";

/** Resolves once `check` holds (polled), or fails after `ms`. */
async function eventually(check: () => boolean, ms = 5_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error("still not so");
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe.skipIf(NO_SERVER !== null)("a closed store leaves no connection open", () => {
  it("closed while holds, waits, appends and lists are under way", async () => {
    const schema = freshSchema();
    const via = await proxy(url);
    const store = postgresStore({ connectionString: via.url }, { schema });
    try {
      expect(await store.append("c", [rec()])).toBe(1);
      const release = await store.liveness!.hold("c", "t1");
      const busy = [
        store.append("c", [{ ...rec(), turn: "t1" }]),
        store.wait!("c", 5, 60_000),
        store.wait!("d", 0, 60_000),
        store.liveness!.hold("c", "t2"),
        store.liveness!.isHeld("c", "t1"),
        store.list!(),
        store.read("c"),
      ].map((p) =>
        p.then(
          () => "ok",
          (e: { code?: string }) => e.code ?? "error",
        ),
      );
      const closed = store.close();
      const outcomes = await Promise.all(busy);
      release(); // (before its append settled, that append would be fenced out: lease-lost)
      for (const outcome of outcomes) expect(["ok", "store-io"]).toContain(outcome);
      await closed;
      await eventually(() => via.open() === 0);
    } finally {
      await store.close();
      await dropSchema(schema);
    }
  }, 30_000);

  it("closed after the server terminated its lock session and its listener", async () => {
    const schema = freshSchema();
    const via = await proxy(url);
    const store = postgresStore({ connectionString: via.url }, { schema });
    try {
      const release = await store.liveness!.hold("c", "t1");
      expect(await store.wait!("c", 0, 10)).toBe(false); // listening now
      const before = via.open();
      const lockPids = await admin<{ pid: number }>(
        "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 1 AND granted AND ((classid::bigint << 32) | objid::bigint) = hashtextextended($1, 0)",
        [lockText(schema, "c", "t1")],
      );
      const listenPids = await admin<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE query = $1", [`LISTEN functai_${schema}`]);
      expect([lockPids.length, listenPids.length]).toEqual([1, 1]);
      for (const { pid } of [...lockPids, ...listenPids]) await admin("SELECT pg_terminate_backend($1)", [pid]);
      release();
      // a new turn after the loss opens a new lock session; the listener comes back
      const again = await store.liveness!.hold("c", "t2");
      again();
      expect(via.open()).toBeLessThanOrEqual(before + 1);
      await store.close();
      await eventually(() => via.open() === 0);
    } finally {
      await store.close();
      await dropSchema(schema);
    }
  }, 30_000);
});
