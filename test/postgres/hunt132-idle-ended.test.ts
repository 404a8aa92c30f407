/**
 * Hunt 132: a pool's client that the server ended at its idle_session_timeout
 * (a role, database or pool option that sets one), in the moment between the
 * pool handing it out as idle and its statement: the server's FATAL 57P05
 * reaches the client just after it sent the statement. The server ends a
 * session so only while it idles, before it reads or runs anything more (a
 * FATAL before a commit rolls its transaction back), so the statement never
 * took effect: it is sent again on another connection, as an append that
 * fails must never be (its outcome unknown) and as a read always can be.
 */
import net from "node:net";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { postgresStore } from "../../adapters/postgres/index.js";
import { rec } from "../store/contract.js";
import { until } from "./fixtures/hosts.js";
import { NO_SERVER, SERVER_URL, admin, dropSchema, freshSchema } from "./server.js";

/**
 * A TCP proxy in front of the test server. `arm()`: from then on, what the
 * server sends on the connections open now is kept, and its close too; once
 * the server closed one, the client's next write gets what was kept and the
 * connection's end (the server's FATAL arrives just after the client's
 * statement left). Resolves once the server closed every armed connection.
 */
async function racingProxy(serverUrl: string, params: Record<string, string>) {
  const target = new URL(serverUrl);
  const links = new Set<{ arm(): Promise<void> }>();
  const listening = net.createServer((client) => {
    const server = net.connect(Number(target.port || 5432), target.hostname);
    let held: Buffer[] | null = null;
    let gone = false;
    let told: () => void = () => undefined;
    const serverGone = new Promise<void>((r) => (told = r));
    server.on("data", (d: Buffer) => (held ? held.push(d) : client.write(d)));
    const end = (): void => {
      gone = true;
      told();
      if (!held) client.destroy();
    };
    server.on("close", end).on("error", end);
    client.on("data", (d: Buffer) => {
      if (!gone) return void server.write(d);
      if (held) for (const b of held) client.write(b);
      held = null;
      client.end();
    });
    const drop = (): void => {
      server.destroy();
      links.delete(link);
    };
    client.on("close", drop).on("error", drop);
    const link = {
      arm: () => {
        held ??= [];
        return serverGone;
      },
    };
    links.add(link);
  });
  await new Promise<void>((r) => listening.listen(0, "127.0.0.1", r));
  const url = new URL(serverUrl);
  url.port = String((listening.address() as net.AddressInfo).port);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return {
    url: url.toString(),
    open: () => links.size,
    arm: async () => {
      await Promise.all([...links].map((l) => l.arm()));
    },
    close: () => new Promise<void>((r) => listening.close(() => r())),
  };
}

/** The server ends a session idle for 300 ms (a role's setting, here the connection's). */
const IDLE = { options: "-c idle_session_timeout=300" };

describe.skipIf(NO_SERVER !== null)("hunt132: a pool's client the server ended at its idle_session_timeout", () => {
  for (const given of [false, true]) {
    it(`${given ? "a given pool" : "the store's own pool"}: an append and a read on such a client are sent again on another connection, once (never lost, never twice)`, async () => {
      const schema = freshSchema();
      const proxy = await racingProxy(SERVER_URL!, IDLE);
      const pool = given ? new pg.Pool({ connectionString: proxy.url, max: 3 }) : null;
      const store = postgresStore(pool ? { pool } : { connectionString: proxy.url }, { schema });
      try {
        expect(await store.append("c", [rec()])).toBe(1);
        expect(proxy.open()).toBeGreaterThan(0);
        await proxy.arm(); // (the server ended each idle client; the pool does not know yet)
        // before the fix: store-io "terminating connection due to idle-session timeout" (57P05), nothing written
        expect(await store.append("c", [rec("second")])).toBe(2);
        await proxy.arm();
        expect((await store.read("c")).map((r) => [r.seq, r.kind])).toEqual([
          [1, "note"],
          [2, "second"],
        ]);
      } finally {
        await store.close();
        await pool?.end();
        await proxy.close();
        await dropSchema(schema);
      }
    }, 20_000);
  }

  it("a wait whose watch statement meets such a client writes its row on another and wakes for the next append (before: it failed, store-io)", async () => {
    const schema = freshSchema();
    const proxy = await racingProxy(SERVER_URL!, IDLE);
    const store = postgresStore({ connectionString: proxy.url }, { schema });
    const other = postgresStore({ connectionString: SERVER_URL! }, { schema });
    try {
      expect(await store.append("c", [rec()])).toBe(1);
      await proxy.arm();
      const waiting = store.wait!("c", 1, 15_000);
      // (its row written: the append after it notifies the store's listener, a connection of its own)
      await until("the wait's row is written", async () => (await admin(`SELECT 1 FROM "${schema}".waiters`)).length > 0, 10_000);
      expect(await other.append("c", [rec()])).toBe(2);
      expect(await waiting).toBe(true);
    } finally {
      await other.close();
      await store.close();
      await proxy.close();
      await dropSchema(schema);
    }
  }, 20_000);
});
