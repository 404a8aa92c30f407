/**
 * Closing either end while the other is slow or mid-way: nothing hangs,
 * nothing stays open.
 */
import { afterEach, describe, expect, it } from "vitest";
import { WebSocket as WsSocket } from "ws";
import { connect, serve, type SocketLike } from "../../adapters/websocket/index.js";
import type { Store } from "../../src/store/types.js";
import { proxy, until, waitingDesk } from "./fixtures.js";

const open: { close(): Promise<void> }[] = [];
const sockets: WsSocket[] = [];
afterEach(async () => {
  for (const ws of sockets.splice(0)) ws.terminate();
  for (const x of open.splice(0).reverse()) await x.close();
});
const keep = <T extends { close(): Promise<void> }>(x: T): T => (open.push(x), x);

describe("server.close()", () => {
  it("returns promptly when a companion stopped reading (it never answers the close)", async () => {
    const d = await waitingDesk(["sam"]);
    const server = await serve({ store: d.store, programs: [d.served], keys: ["k1"], port: 0 });
    const live = await connect(server.url, { key: "k1", reconnect: false });
    const asleep = new WsSocket(server.url); // a peer that stopped reading: a sleeping laptop, a stuck tab
    sockets.push(asleep);
    asleep.on("error", () => undefined);
    await new Promise((r) => asleep.once("open", r));
    asleep.send(JSON.stringify({ type: "hello", id: "h", v: 1, key: "k1" }));
    await new Promise((r) => asleep.once("message", r));
    asleep.pause();
    const liveClosed = new Promise<number>((r) => live.on("close", (e) => r(e.code)));
    const started = Date.now();
    await server.close();
    expect(Date.now() - started).toBeLessThan(10_000); // not a speed goal: a hang check (ws's own close timeout is 30 s, the grace 1 s; room for a loaded machine)
    expect(await liveClosed).toBe(1001); // a companion that does answer is closed politely
    expect(server.connections).toBe(0);
  });
  it("waits for the waiting list's scan in flight: the store is not read after it resolves, so it may be closed then", async () => {
    const d = await waitingDesk(["sam"]);
    let gate: (() => void) | undefined;
    let entered: (() => void) | undefined;
    const inScan = new Promise<void>((r) => (entered = r));
    let closed = false;
    const afterClose: string[] = [];
    const seen = (name: string): void => void (closed && afterClose.push(name));
    // the store as serve reads it: its third list() (a poll's scan) is held until the server was asked to close
    let lists = 0;
    const store: Store = {
      append: (c, r, o) => d.store.append(c, r, o),
      read: (c, after) => (seen("read"), d.store.read(c, after)),
      length: (c) => (seen("length"), d.store.length!(c)),
      list: async () => {
        seen("list");
        if (++lists === 3) {
          entered?.();
          await new Promise<void>((r) => (gate = r));
        }
        return d.store.list!();
      },
    };
    const errors: unknown[] = [];
    const server = await serve({ store, programs: [d.served], keys: ["k1"], port: 0, pollMs: 20, onError: (_m, e) => errors.push(e) });
    await inScan;
    const closing = server.close().then(() => (closed = true));
    // the scan goes on a moment after the server was asked to close: a store read slowly (a busy database)
    setTimeout(() => gate?.(), 200);
    await closing;
    await new Promise((r) => setTimeout(r, 300)); // room for a scan left running to read on (it would within a tick of its list)
    expect(afterClose).toEqual([]);
    expect(errors).toEqual([]);
  });
});

describe("companion.close()", () => {
  it("during a reconnect's hello leaves no socket open and reports no reconnect", async () => {
    const d = await waitingDesk(["sam"]);
    const server = keep(await serve({ store: d.store, programs: [d.served], keys: ["k1"], port: 0 }));
    const net = keep(await proxy(server.port));
    let closing: Promise<void> | null = null;
    const made: WsSocket[] = [];
    /** A real ws socket whose second one (the reconnect) has the companion closed right after it said hello. */
    class Socket implements SocketLike {
      readonly #ws: WsSocket;
      constructor(url: string) {
        this.#ws = new WsSocket(url);
        made.push(this.#ws);
      }
      get readyState(): number {
        return this.#ws.readyState;
      }
      send(data: string): void {
        this.#ws.send(data);
        if (made.length === 2 && data.includes('"hello"')) closing = app.close();
      }
      close(code?: number, reason?: string): void {
        this.#ws.close(code, reason);
      }
      addEventListener(type: "open" | "error" | "message" | "close", listener: (e: never) => void): void {
        this.#ws.addEventListener(type, listener as never);
      }
    }
    const app = await connect(net.url, { key: "k1", maxDelayMs: 20, WebSocket: Socket });
    let reconnects = 0;
    app.on("reconnect", () => reconnects++);
    net.cut();
    await until(() => closing !== null);
    await closing;
    await until(() => server.connections === 0, 3000);
    await until(() => made[1]!.readyState === made[1]!.CLOSED, 3000);
    await new Promise((r) => setTimeout(r, 200)); // no later attempt either
    expect(made).toHaveLength(2);
    expect(reconnects).toBe(0);
    expect(server.connections).toBe(0);
  });
});
