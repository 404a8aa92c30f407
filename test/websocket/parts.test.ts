import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { WebSocketServer, WebSocket as WsSocket } from "ws";
import { connect, serve } from "../../adapters/websocket/index.js";
import { allowsConversation, isLoopback, KeyRing } from "../../adapters/websocket/server/keys.js";
import { TokenBucket } from "../../adapters/websocket/server/limits.js";
import { waitingDesk, WrappedSocket } from "./fixtures.js";
import { entriesOf, WaitingWatcher } from "../../adapters/websocket/server/watch.js";
import { memoryStore, readConversation, type Store } from "../../src/index.js";

/** Only what a browser's WebSocket offers (no `.on`, no Buffers): `connect` must need nothing more. */
class BrowserLikeSocket extends WrappedSocket {
  static made = 0;
  constructor(url: string) {
    super(url);
    BrowserLikeSocket.made++;
  }
  override addEventListener(type: "open" | "error" | "message" | "close", listener: (e: never) => void): void {
    this.ws.addEventListener(type, (e: unknown) => {
      if (type === "message") {
        const data = (e as { data: unknown }).data;
        if (typeof data !== "string") throw new Error("a browser gives text frames as strings");
        return (listener as (e: { data: string }) => void)({ data });
      }
      if (type === "close") return (listener as (e: { code: number; reason: string }) => void)({ code: (e as { code: number }).code, reason: (e as { reason: string }).reason });
      (listener as () => void)();
    });
  }
}

describe("the waiting list", () => {
  it("walks each conversation once: later scans read only what was appended since, and say what a full read says", async () => {
    const base = memoryStore();
    const full: string[] = [];
    const store: Store = { ...base, read: (id, after) => (after ? undefined : full.push(id), base.read(id, after)) };
    const { served } = await waitingDesk(["ana", "sam"], { store: base });
    const watcher = new WaitingWatcher(store, 60_000, (e) => { throw e; });
    const now = async () => entriesOf("ana", readConversation(await base.read("ana"), { now: Date.now() }), Date.now()).concat(entriesOf("sam", readConversation(await base.read("sam"), { now: Date.now() }), Date.now()));
    await watcher.refresh();
    expect(watcher.all.map((e) => [e.conversation, e.state])).toEqual([["ana", "waiting"], ["sam", "waiting"]]);
    const [turn] = await served.conversation("sam", { store: base }).turns();
    await turn!.approve({ by: "maria" });
    await served.conversation("sam", { store: base, approve: "changes" }).send("And A-1043?").catch((e: unknown) => e);
    await base.append("ana", [{ functai_conversation: 1, kind: "note", at: new Date().toISOString() }]);
    await watcher.refresh();
    expect(watcher.all).toEqual(await now());
    expect(watcher.all.filter((e) => e.conversation === "sam")).toHaveLength(1);
    expect(full.sort()).toEqual(["ana", "sam"]); // once each
  });
});

describe("parts", () => {
  it("keys: each key found in constant time among all; limits; a removed key's grant lapses", () => {
    const ring = new KeyRing(["k1", { key: "k2", conversations: ["sam"] }]);
    expect(ring.match("k1")?.conversations).toBeNull();
    const limited = ring.match("k2")!;
    expect(allowsConversation(limited, "sam")).toBe(true);
    expect(allowsConversation(limited, "ana")).toBe(false);
    expect(ring.match("k3")).toBeNull();
    expect(ring.match(undefined)).toBeNull();
    expect(ring.match("")).toBeNull();
    ring.set(["k1"]);
    expect(ring.current(limited)).toBeNull();
    expect(new KeyRing([]).match(undefined)?.conversations).toBeNull(); // no keys (loopback): everybody, every conversation
    expect(new KeyRing([]).match("any key")?.conversations).toBeNull();
    expect(() => new KeyRing([""])).toThrow();
  });

  it("loopback hosts", () => {
    for (const h of ["127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]"]) expect(isLoopback(h)).toBe(true);
    for (const h of ["0.0.0.0", "::", "192.168.1.2", "example.com", "127.0.0.1.example.com"]) expect(isLoopback(h)).toBe(false);
  });

  it("the token bucket refills at its rate, up to its burst", () => {
    let now = 0;
    const bucket = new TokenBucket(10, 3, () => now);
    expect([bucket.take(), bucket.take(), bucket.take(), bucket.take()]).toEqual([true, true, true, false]);
    now += 100; // one token
    expect([bucket.take(), bucket.take()]).toEqual([true, false]);
    now += 10_000;
    expect([bucket.take(), bucket.take(), bucket.take(), bucket.take()]).toEqual([true, true, true, false]);
  });

  it("connect needs only the browser's WebSocket API", async () => {
    const d = await waitingDesk(["sam"]);
    const server = await serve({ store: d.store, programs: [d.served], keys: ["k1"], port: 0 });
    try {
      const app = await connect(server.url, { key: "k1", WebSocket: BrowserLikeSocket });
      const [w] = await app.waiting();
      expect(await app.approve({ conversation: "sam", turn: w!.turn })).toBe("The last tool said: refunded 39.00 for A-1042");
      await app.close();
      expect(BrowserLikeSocket.made).toBe(1);
    } finally {
      await server.close();
    }
  });

  it("attaches to an HTTP server: without keys only when it already listens on loopback", async () => {
    const d = await waitingDesk(["sam"]);
    const http = createServer();
    await expect(serve({ store: d.store, programs: [d.served], server: http })).rejects.toMatchObject({ code: "remote-auth" }); // not listening yet: unknown
    await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
    const server = await serve({ store: d.store, programs: [d.served], server: http, path: "/functai" });
    try {
      expect(server.url).toBe(`ws://127.0.0.1:${(http.address() as AddressInfo).port}/functai`);
      const app = await connect(server.url);
      expect((await app.waiting()).map((w) => w.conversation)).toEqual(["sam"]);
      await app.close();
    } finally {
      await server.close();
      await new Promise((r) => http.close(r));
    }
  });

  it("attached with a path, it leaves the server's other WebSocket endpoints alone", async () => {
    const d = await waitingDesk(["sam"]);
    const http = createServer();
    // the app's own endpoint at /live, attached the way ws documents for sharing a server
    const live = new WebSocketServer({ noServer: true });
    live.on("connection", (ws) => ws.on("message", (m) => ws.send(`echo ${String(m)}`)));
    http.on("upgrade", (req, socket, head) => {
      if (req.url === "/live") live.handleUpgrade(req, socket, head, (ws) => live.emit("connection", ws, req));
    });
    await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
    const server = await serve({ store: d.store, programs: [d.served], server: http, path: "/functai" });
    try {
      const { port } = http.address() as AddressInfo;
      const echoed = await new Promise<string>((resolve, reject) => {
        const ws = new WsSocket(`ws://127.0.0.1:${port}/live`);
        ws.on("error", reject);
        ws.on("open", () => ws.send("hi"));
        ws.on("message", (m) => (resolve(String(m)), ws.close()));
      });
      expect(echoed).toBe("echo hi");
      const app = await connect(server.url);
      expect((await app.waiting()).map((w) => w.conversation)).toEqual(["sam"]);
      await app.close();
    } finally {
      await server.close();
      live.close();
      http.closeAllConnections();
      await new Promise((r) => http.close(r));
    }
  });

  it("a hello in a version this server does not speak is refused", async () => {
    const d = await waitingDesk([]);
    const server = await serve({ store: d.store, programs: [d.served], port: 0 });
    try {
      const ws = new WsSocket(server.url);
      const replies: unknown[] = [];
      ws.on("message", (m) => replies.push(JSON.parse(String(m))));
      await new Promise((r) => ws.once("open", r));
      ws.send(JSON.stringify({ type: "hello", id: "h", v: 2 }));
      expect(await new Promise((r) => ws.once("close", r))).toBe(4400);
      expect(replies).toEqual([{ type: "error", id: "h", code: "remote-protocol", message: "protocol version 2 is not supported (this server speaks 1)" }]);
    } finally {
      await server.close();
    }
  });

  it("refuses connections beyond maxConnections", async () => {
    const d = await waitingDesk([]);
    const server = await serve({ store: d.store, programs: [d.served], port: 0, maxConnections: 1 });
    try {
      const app = await connect(server.url);
      await expect(connect(server.url, { reconnect: false })).rejects.toMatchObject({ code: "remote-closed" });
      await app.close();
    } finally {
      await server.close();
    }
  });
});
