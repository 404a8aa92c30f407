/**
 * A server that answers the upgrade with an HTTP status, never switching (a wrong path, an origin it does not let in,
 * a proxy's 403), was told as a network drop: `connect()` rejected `remote-closed` "(1006)", naming nothing to check,
 * and a companion whose server came back refusing it (restarted under another path, a proxy in front now asking for
 * credentials) reconnected for ever, each request told "not connected". `ws` says the status: a 401 or 403 is now
 * `remote-auth`, another 4xx `remote-protocol`, each naming the status and what to check; a reconnect refused so three
 * times in a row stops, saying why. A 5xx (a proxy whose server is restarting) is still retried until it gets through,
 * and a request meanwhile, refused "not connected", now says why the last try failed (it said nothing more).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { WebSocket as WsSocket } from "ws";
import { connect, serve, type SocketConstructor } from "../../adapters/websocket/index.js";
import { keeper, until, waitingDesk } from "./fixtures.js";

const keep = keeper();

/** An HTTP server on `port` that answers every upgrade with `status()`, counting them (a proxy in front of a server). */
async function refusing(port: number, status: () => number) {
  let upgrades = 0;
  const http: Server = createServer((_req, res) => res.writeHead(404).end());
  http.on("upgrade", (_req, socket) => {
    upgrades++;
    socket.on("error", () => undefined);
    const s = status();
    socket.end(`HTTP/1.1 ${s} Refused\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
  });
  await new Promise<void>((r) => http.listen(port, "127.0.0.1", r));
  return {
    port: (http.address() as AddressInfo).port,
    get upgrades() {
      return upgrades;
    },
    close: () => new Promise<void>((r) => (http.closeAllConnections(), http.close(() => r()))),
  };
}

describe("an upgrade the server refuses with an HTTP status", () => {
  it("connect() to a wrong path is refused remote-protocol, naming the status and the path to check", async () => {
    const d = await waitingDesk([]);
    const server = keep(await serve({ store: d.store, programs: [d.served], port: 0, path: "/functai" }));
    const e = await connect(server.url.replace(/\/functai$/, "/other")).catch((x: unknown) => x as { code?: string; message?: string });
    expect(e).toMatchObject({ code: "remote-protocol" });
    expect((e as { message: string }).message).toMatch(/HTTP 400.*path/);
  });

  it("connect() from a page whose origin the server does not let in is refused remote-auth, naming the origins to check", async () => {
    const d = await waitingDesk([]);
    const server = keep(await serve({ store: d.store, programs: [d.served], port: 0, origins: ["http://localhost:5173"] }));
    // (`ws` sending an Origin, as a page's WebSocket does)
    const page = (origin: string) =>
      class extends WsSocket {
        constructor(url: string) {
          super(url, { headers: { origin } });
        }
      } as unknown as SocketConstructor;
    const e = await connect(server.url, { WebSocket: page("https://other.example") }).catch((x: unknown) => x as { code?: string; message?: string });
    expect(e).toMatchObject({ code: "remote-auth" });
    expect((e as { message: string }).message).toMatch(/HTTP 401.*origins/);
    // (the page it lets in connects)
    const app = keep(await connect(server.url, { WebSocket: page("http://localhost:5173") }));
    expect(await app.waiting()).toEqual([]);
  });

  it("connect() refused 403 (a proxy's credentials) is remote-auth, naming the status", async () => {
    const proxy = keep(await refusing(0, () => 403));
    const e = await connect(`ws://127.0.0.1:${proxy.port}`).catch((x: unknown) => x as { code?: string; message?: string });
    expect(e).toMatchObject({ code: "remote-auth" });
    expect((e as { message: string }).message).toMatch(/HTTP 403/);
    expect(proxy.upgrades).toBe(1);
  });

  it("a reconnect refused 403 three times in a row stops, and every later request says why", async () => {
    const d = await waitingDesk(["sam"]);
    const first = await serve({ store: d.store, programs: [d.served], port: 0 });
    const app = keep(await connect(first.url, { maxDelayMs: 20 }));
    const closes: { code: number; reason: string }[] = [];
    app.on("close", (e) => closes.push(e));
    await first.close();
    const proxy = keep(await refusing(first.port, () => 403));
    // the first close is the drop itself; the second says the companion stopped
    await until(() => closes.length === 2);
    expect(closes[1]).toMatchObject({ code: 4401 });
    expect(closes[1]!.reason).toMatch(/HTTP 403/);
    expect(proxy.upgrades).toBe(3);
    const e = await app.waiting().catch((x: unknown) => x as { code?: string; message?: string });
    expect(e).toMatchObject({ code: "remote-auth" });
    expect((e as { message: string }).message).toMatch(/HTTP 403/);
  });

  it("a reconnect refused 503 (a proxy whose server is restarting) goes on until the server is back, a request meanwhile saying why", async () => {
    const d = await waitingDesk(["sam"]);
    const first = await serve({ store: d.store, programs: [d.served], port: 0 });
    const app = keep(await connect(first.url, { maxDelayMs: 20 }));
    let reconnects = 0;
    app.on("reconnect", () => reconnects++);
    await first.close();
    const proxy = await refusing(first.port, () => 503);
    // more refusals than would stop a 4xx; a request meanwhile says why the companion is not connected
    await until(() => proxy.upgrades >= 2);
    const e = await app.waiting().catch((x: unknown) => x as { code?: string; message?: string });
    expect(e).toMatchObject({ code: "remote-closed" });
    expect((e as { message: string }).message).toMatch(/not connected \(reconnecting; the last try: .*HTTP 503/);
    await until(() => proxy.upgrades >= 5);
    await proxy.close();
    keep(await serve({ store: d.store, programs: [d.served], port: first.port }));
    await until(() => reconnects === 1);
    expect((await app.waiting()).map((w) => w.conversation)).toEqual(["sam"]);
  });
});
