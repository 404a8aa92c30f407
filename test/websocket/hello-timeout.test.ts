/**
 * A welcome that comes after the companion gave up on its hello (a slow
 * server, a slow network): the socket it gave up on is never adopted.
 */
import { afterEach, describe, expect, it } from "vitest";
import { WebSocketServer } from "ws";
import { connect, serve } from "../../adapters/websocket/index.js";
import { memoryStore } from "../../src/testing/index.js";
import { desk, WrappedSocket } from "./fixtures.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

/** A server that welcomes each hello `delayMs` late; counts its connections. */
async function slowServer(delayMs: number) {
  const wss = new WebSocketServer({ port: 0, host: "127.0.0.1" });
  await new Promise((r) => wss.once("listening", r));
  let connections = 0;
  wss.on("connection", (ws) => {
    connections++;
    ws.on("message", (d) => {
      const m = JSON.parse(String(d)) as { type: string; id: string };
      if (m.type === "hello") setTimeout(() => ws.send(JSON.stringify({ type: "welcome", id: m.id, v: 1, programs: [] })), delayMs);
    });
  });
  closers.push(() => new Promise<void>((r) => (wss.clients.forEach((c) => c.terminate()), wss.close(() => r()))));
  return { url: `ws://127.0.0.1:${(wss.address() as { port: number }).port}`, connections: () => connections, open: () => [...wss.clients].filter((c) => c.readyState === c.OPEN).length };
}

/** A real ws socket whose close frame leaves `lagMs` late (a slow network): what the server sent meanwhile still arrives. */
const laggingSocket = (lagMs: number) =>
  class extends WrappedSocket {
    override close(code?: number, reason?: string): void {
      setTimeout(() => this.ws.close(code, reason), lagMs);
    }
  };

describe("a welcome after the hello's deadline", () => {
  it("connect() rejected: the late welcome does not adopt the socket, and nothing reconnects in the background", async () => {
    const server = await slowServer(60);
    const e = await connect(server.url, { timeoutMs: 20, maxDelayMs: 20, WebSocket: laggingSocket(150) }).then(() => null, (x: unknown) => x);
    expect(e).toMatchObject({ code: "remote-closed" });
    await new Promise((r) => setTimeout(r, 500)); // the lagging close lands; a companion that adopted the socket would reconnect about now
    expect(server.connections()).toBe(1);
    expect(server.open()).toBe(0);
  });
});

/** A real socket whose hello names its companion past the protocol's bound (connect() refuses such a name: another build's hello). */
class LongNamedHello extends WrappedSocket {
  override send(data: string): void {
    const m = JSON.parse(data) as { type: string };
    super.send(JSON.stringify(m.type === "hello" ? { ...m, client: "x".repeat(300) } : m));
  }
}

describe("a hello the server refuses without closing", () => {
  it("connect() rejects with the server's error and closes its socket (none left for the server's hello deadline)", async () => {
    const server = await serve({ store: memoryStore(), programs: [desk().fn], port: 0 });
    closers.push(() => server.close());
    const e = await connect(server.url, { WebSocket: LongNamedHello }).then(() => null, (x: unknown) => x);
    expect(e).toMatchObject({ code: "remote-protocol" });
    const end = Date.now() + 1000; // (the server's own deadline is 5 s)
    while (server.connections > 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
    expect(server.connections).toBe(0);
  });
});
