/**
 * After `close`, the connections of the store's own pool are still being
 * ended (pg-pool's `end` resolves once it has asked each to end, not once
 * each has): the server may end them first (a restart or shutdown, an
 * administrator's pg_terminate_backend, DROP DATABASE … WITH (FORCE), the
 * role's idle_session_timeout) and send its FATAL on them.
 */
import net from "node:net";
import { describe, expect, it } from "vitest";
import { postgresStore } from "../../adapters/postgres/index.js";
import { rec } from "../store/contract.js";
import { NO_SERVER, SERVER_URL, admin, dropSchema, freshSchema } from "./server.js";

/**
 * A TCP proxy to the test server whose client-to-server direction can be
 * held (`holdUp`): what the clients send then (a Terminate) never reaches the
 * server, while what the server sends goes on reaching them. `closed`: every
 * client side closed.
 */
async function upHoldingProxy(): Promise<{ url: string; app: string; holdUp(): void; closed(): Promise<void>; stop(): Promise<void> }> {
  const target = new URL(SERVER_URL!);
  let held = false;
  const gone: Promise<void>[] = [];
  const sockets: net.Socket[] = [];
  // (half open: a client that ended its side after its Terminate still reads what the server sends)
  const listening = net.createServer({ allowHalfOpen: true }, (client) => {
    const server = net.connect(Number(target.port || 5432), target.hostname);
    sockets.push(client, server);
    gone.push(new Promise((r) => client.on("close", () => r())));
    client.on("data", (d: Buffer) => void (held ? undefined : server.write(d)));
    server.on("data", (d: Buffer) => void client.write(d));
    client.on("error", () => server.destroy());
    server.on("error", () => client.destroy());
    server.on("close", () => client.end());
  });
  await new Promise<void>((r) => listening.listen(0, "127.0.0.1", r));
  const url = new URL(SERVER_URL!);
  url.port = String((listening.address() as net.AddressInfo).port);
  const app = `h113-closed-${Math.random().toString(36).slice(2, 10)}`;
  url.searchParams.set("application_name", app);
  return {
    url: url.toString(),
    app,
    holdUp: () => void (held = true),
    closed: async () => void (await Promise.all(gone)),
    stop: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => listening.close(() => r()));
    },
  };
}

describe.skipIf(NO_SERVER !== null)("postgres store: its own pool's connections ended by the server after close", () => {
  // A user expects: once `close` resolved, nothing of the store can end the process. Before the fix: close took
  // the store's 'error' listener off its own pool (pg-db.ts close → leavePool, there for a given pool, which
  // outlives the store) and then ended it; a connection still being ended that the server ended first (its FATAL
  // "terminating connection due to administrator command" arriving before the server read the Terminate) made
  // pg-pool emit 'error' on the pool with no listener: an uncaught exception that ends the process.
  it("a FATAL from the server on a connection still being ended after close is no uncaught exception", async () => {
    const schema = freshSchema();
    const proxy = await upHoldingProxy();
    const errors: unknown[] = [];
    const onError = (e: unknown) => errors.push(e);
    process.on("uncaughtException", onError);
    try {
      const store = postgresStore({ connectionString: proxy.url }, { schema });
      // idle clients in the store's pool: two appends at once use two
      await store.append("c", [rec()]);
      await Promise.all([store.append("a", [rec()]), store.append("b", [rec()])]);
      proxy.holdUp(); // the Terminate that close sends never reaches the server
      await store.close();
      const ended = await admin<{ ok: boolean }>("SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE application_name = $1", [
        proxy.app,
      ]);
      expect(ended.length).toBeGreaterThan(0);
      await proxy.closed(); // every client read the server's FATAL, then its close
      await new Promise((r) => setImmediate(r));
      expect(errors).toEqual([]);
    } finally {
      process.off("uncaughtException", onError);
      await proxy.stop();
      await dropSchema(schema);
    }
  });
});
