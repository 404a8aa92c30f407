/**
 * Hunt 30, network faults (real PostgreSQL, through a proxy of this file's
 * that can turn into a black hole): `close()` once nothing at all comes back
 * from the server's side, not even the answer to a connection's end (the FIN
 * of TCP: a cable pulled, a firewall that drops every packet). hunt 7's
 * proxy answers a client's end itself, so there a graceful end of a
 * connection always completes. README "Many hosts": never hangs.
 */
import net from "node:net";
import { describe, expect, it } from "vitest";
import { postgresStore } from "../../adapters/postgres/index.js";
import { rec } from "../store/contract.js";
import { NO_SERVER, SERVER_URL, dropSchema, freshSchema, settle } from "./server.js";

/** A TCP proxy to the test server; `blackhole()` from then on drops everything both ways and never ends a connection. */
async function blackholeProxy() {
  const target = new URL(SERVER_URL!);
  const sides: net.Socket[] = [];
  let dropping = false;
  const server = net.createServer({ allowHalfOpen: true }, (client) => {
    const upstream = net.connect({ port: Number(target.port || 5432), host: target.hostname, allowHalfOpen: true });
    sides.push(client, upstream);
    client.on("data", (d) => void (dropping || upstream.write(d)));
    upstream.on("data", (d) => void (dropping || client.write(d)));
    client.on("end", () => void (dropping || upstream.end()));
    upstream.on("end", () => void (dropping || client.end()));
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = new URL(SERVER_URL!);
  url.port = String((server.address() as net.AddressInfo).port);
  return {
    url: url.toString(),
    blackhole: () => void (dropping = true),
    close: async () => {
      for (const s of sides) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}

describe.skipIf(NO_SERVER !== null)("close() when the server's side has gone silent", () => {
  // Found by hunt 30 (failed before): close ended its own connections (the listener's, the lock session's) gracefully,
  // waiting for the server's side to end them too: with nothing coming back, it waited as long as the operating system
  // keeps such a socket.
  it("a store that listened and held a turn's lock, idle: close settles within seconds", async () => {
    const proxy = await blackholeProxy();
    const schema = freshSchema();
    const store = postgresStore({ connectionString: proxy.url }, { schema });
    try {
      expect(await store.append("c", [rec()])).toBe(1);
      expect(await store.wait!("c", 0, 1_000)).toBe(true); // listening
      await store.liveness!.hold("c", "t"); // the lock session, idle now
      proxy.blackhole();
      const closed = await settle(store.close());
      expect(closed.got).toBeUndefined();
      expect(closed.ms).toBeLessThan(8_000);
    } finally {
      await proxy.close();
      await store.close();
      await dropSchema(schema);
    }
  }, 60_000);
});
