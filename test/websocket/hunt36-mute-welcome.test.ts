/**
 * A server that takes the WebSocket upgrade, then says nothing and reads
 * nothing more (a process stuck after the upgrade): `connect` gives up
 * after `timeoutMs` (remote-closed), as documented. The socket given up on
 * was closed politely, and a close nobody answers keeps `ws`'s socket (and
 * the process) for 30 s; each reconnect attempt left one more behind. It is
 * let go of at once.
 */
import { createHash } from "node:crypto";
import { createServer, type Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { connect } from "../../adapters/websocket/index.js";
import { keeper, until } from "./fixtures.js";

const keep = keeper();

/** A server that answers the WebSocket upgrade by hand, then reads (and drops) all that comes and sends nothing: no welcome, no answer to a close. */
async function upgradesThenMute() {
  const sockets = new Set<Socket>();
  const server = createServer((s) => {
    sockets.add(s);
    s.on("error", () => undefined);
    s.on("close", () => sockets.delete(s));
    s.once("data", (head) => {
      const key = /sec-websocket-key: *(\S+)/i.exec(String(head))?.[1] ?? "";
      const accept = createHash("sha1").update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest("base64");
      s.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
      s.resume(); // the hello and any close frame are read, and never answered
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `ws://127.0.0.1:${port}`,
    get open() {
      return sockets.size;
    },
    close: () => new Promise<void>((r) => (sockets.forEach((s) => s.destroy()), server.close(() => r()))),
  };
}

describe("a server that upgrades, then never welcomes nor reads", () => {
  it("connect() rejects with remote-closed after timeoutMs, and the socket given up on is let go at once", async () => {
    const m = keep(await upgradesThenMute());
    const began = Date.now();
    await expect(connect(m.url, { timeoutMs: 300 })).rejects.toMatchObject({ name: "RemoteError", code: "remote-closed" });
    expect(Date.now() - began).toBeLessThan(3000);
    await until(() => m.open === 0, 3000);
  }, 40_000);
});
