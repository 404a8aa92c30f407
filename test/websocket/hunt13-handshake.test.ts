/**
 * A server that takes the TCP connection but never answers the WebSocket
 * upgrade (a process stuck, a balancer in front of a backend that is down):
 * `connect` gives up after `timeoutMs` like on a server that never
 * welcomes (remote-closed), and a companion reconnecting to it goes on
 * trying; neither waits for ever on a socket that never opens.
 */
import { createServer, type Server, type Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { Companion, connect, serve } from "../../adapters/websocket/index.js";
import { keeper, until, waitingDesk } from "./fixtures.js";

const keep = keeper();

/** A TCP server that accepts and answers nothing; `accepted` counts the connections it took. */
async function mute() {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server: Server = createServer((s) => {
    accepted++;
    sockets.add(s);
    s.on("error", () => undefined);
    s.on("close", () => sockets.delete(s));
    s.resume(); // reads (and drops) the upgrade request: the companion letting go is seen
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    url: `ws://127.0.0.1:${port}`,
    get accepted() {
      return accepted;
    },
    get open() {
      return sockets.size;
    },
    close: () => new Promise<void>((r) => (sockets.forEach((s) => s.destroy()), server.close(() => r()))),
  };
}

/** What `p` settles to, or "hang". */
const settled = <T>(p: PromiseLike<T>, ms: number): Promise<{ v: T } | { e: unknown } | "hang"> =>
  Promise.race([
    Promise.resolve(p).then(
      (v) => ({ v }),
      (e: unknown) => ({ e }),
    ),
    new Promise<"hang">((r) => setTimeout(() => r("hang"), ms)),
  ]);

describe("a server that never answers the WebSocket upgrade", () => {
  it("connect() rejects with remote-closed after timeoutMs, and leaves no socket open", async () => {
    const m = keep(await mute());
    const outcome = await settled(connect(m.url, { timeoutMs: 300 }), 3000);
    expect(outcome).toMatchObject({ e: { name: "RemoteError", code: "remote-closed" } });
    expect(m.accepted).toBe(1);
    await until(() => m.open === 0); // the socket given up on is let go
  });

  it("close() while the upgrade goes unanswered: open() rejects at once, and the socket is let go", async () => {
    const m = keep(await mute());
    const app = new Companion(m.url, {}); // the default deadline (10 s): close() must not wait for it
    const opening = settled(app.open(), 3000);
    await until(() => m.accepted === 1);
    expect(await settled(app.close(), 3000)).toEqual({ v: undefined });
    expect(await opening).toMatchObject({ e: { code: "remote-closed" } });
    await until(() => m.open === 0);
  });

  it("a companion whose server went mute keeps trying, and comes back once a server answers there again", async () => {
    const d = await waitingDesk(["sam"]);
    const first = await serve({ store: d.store, programs: [d.served], keys: ["k1"], port: 0 });
    const port = first.port;
    const app = keep(await connect(first.url, { key: "k1", timeoutMs: 300, maxDelayMs: 100 }));
    let reconnects = 0;
    app.on("reconnect", () => reconnects++);
    await first.close();
    // the port now takes connections and says nothing: each attempt must give up and try again
    const silent = createServer((s) => s.on("error", () => undefined));
    const held: Socket[] = [];
    silent.on("connection", (s) => held.push(s));
    await new Promise<void>((r) => silent.listen(port, "127.0.0.1", r));
    await until(() => held.length >= 2, 5000); // it gave up on the first attempt and tried again
    held.forEach((s) => s.destroy());
    await new Promise<void>((r) => silent.close(() => r()));
    const second = keep(await serve({ store: d.store, programs: [d.served], keys: ["k1"], port }));
    await until(() => reconnects === 1, 5000);
    expect((await app.waiting()).map((w) => w.conversation)).toEqual(["sam"]);
    expect(second.connections).toBe(1);
  });
});
