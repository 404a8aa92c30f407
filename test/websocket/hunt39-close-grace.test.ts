/**
 * Sockets the server closes politely (a revoked key, no hello in time) wait
 * for the companion's answer to the close; `ws` kept one whose peer never
 * answers (a network gone silent) for 30 s, counted among the server's
 * connections (and against its address's limit). The server lets go of it
 * after a short grace (2 s without reading anything), as `close()` does.
 */
import { createConnection } from "node:net";
import { describe, expect, it } from "vitest";
import { connect, serve } from "../../adapters/websocket/index.js";
import { keeper, until, waitingDesk } from "./fixtures.js";
import { freezingProxy } from "./fixtures/hunt36-kit.js";

const keep = keeper();

describe("a socket the server closed, whose peer never answers the close", () => {
  it("a revoked key's: let go of within a few seconds", async () => {
    const d = await waitingDesk(["sam"]);
    const server = keep(await serve({ store: d.store, programs: [d.served], keys: ["k1", "k2"], port: 0 }));
    const proxy = keep(await freezingProxy(server.port));
    const app = keep(await connect(proxy.url, { key: "k1", reconnect: false }));
    expect(await app.waiting()).toHaveLength(1);
    expect(server.connections).toBe(1);
    proxy.freeze();
    server.setKeys(["k2"]);
    const began = Date.now();
    await until(() => server.connections === 0, 10_000);
    expect(Date.now() - began).toBeLessThan(8000); // (ws holds it 30 s)
  }, 40_000);

  it("one that never said hello: let go of within a few seconds of its deadline", async () => {
    const d = await waitingDesk([]);
    const server = keep(await serve({ store: d.store, programs: [d.served], port: 0, helloTimeoutMs: 200 }));
    // an upgrade done by hand, then silence: nothing read, nothing answered
    const socket = createConnection(server.port, "127.0.0.1");
    socket.on("error", () => undefined);
    keep({ close: async () => void socket.destroy() });
    socket.write(
      "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
    );
    await until(() => server.connections === 1, 5000);
    const began = Date.now();
    await until(() => server.connections === 0, 10_000);
    expect(Date.now() - began).toBeLessThan(8000); // (ws holds it 30 s)
  }, 40_000);
});
