import { describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { connect, serve, type WaitingEntry } from "../../adapters/websocket/index.js";
import { keeper, proxy, until, waitingDesk } from "./fixtures.js";

const keep = keeper();

describe("dropped connections", () => {
  it("a companion cut off mid-stream reconnects and gets the waiting list again; the turn went on in the server, once", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const d = await waitingDesk(["ana", "sam"], { gate });
    const server = keep(await serve({ store: d.store, programs: [d.served], keys: ["k1"], port: 0 }));
    const net = keep(await proxy(server.port));
    const app = keep(await connect(net.url, { key: "k1", maxDelayMs: 50 }));
    const lists: WaitingEntry[][] = [];
    app.on("waiting", (w) => lists.push(w));
    let reconnects = 0;
    app.on("reconnect", () => reconnects++);

    const sam = (await app.waiting()).find((w) => w.conversation === "sam")!;
    const s = app.approve({ conversation: "sam", turn: sam.turn, by: "maria" });
    const seen: string[] = [];
    const iterated = (async () => {
      for await (const e of s) {
        seen.push(e.type);
        if (e.type === "tool_call" && e.name === "refund") net.cut(); // the refund is running (held at the gate): the network drops
      }
    })();
    await expect(iterated).rejects.toMatchObject({ code: "remote-closed" });
    await expect(Promise.resolve(s)).rejects.toMatchObject({ code: "remote-closed" });
    expect(seen).toContain("approved");

    const pushed = lists.length;
    release(); // the turn goes on in the server, whoever watches
    await until(() => reconnects === 1 && lists.length > pushed);
    await until(async () => (await app.status({ conversation: "sam", turn: sam.turn })).state === "done");
    expect(lists.at(-1)!.map((w) => w.conversation)).toEqual(["ana"]); // pushed again after the hello: ana still waits
    expect((await app.status({ conversation: "sam", turn: sam.turn })).value).toBe("The last tool said: refunded 39.00 for A-1042");
    expect(d.REFUNDS).toEqual([["A-1042", 39]]);
  });

  it("heartbeats drop a connection that stops answering pings; a live one stays", async () => {
    const d = await waitingDesk([]);
    // a live companion must answer each ping within one heartbeat, here through a process it shares with the server:
    // 40 ms was less than a loaded machine may leave it between two turns of the event loop (the live one was dropped)
    const server = keep(await serve({ store: d.store, programs: [d.served], port: 0, heartbeatMs: 500 }));
    const live = keep(await connect(server.url));
    const dead = new WebSocket(server.url, { autoPong: false }); // a peer that no longer answers (a sleeping laptop)
    dead.on("error", () => undefined);
    await new Promise((r) => dead.once("open", r));
    dead.send(JSON.stringify({ type: "hello", id: "h", v: 1 }));
    const code = await new Promise<number>((r) => dead.once("close", r));
    expect(code).toBe(1006); // terminated, not closed politely
    expect(await live.waiting()).toEqual([]);
    expect(server.connections).toBe(1);
  });

  it("a companion that never says hello is closed", async () => {
    const d = await waitingDesk([]);
    const server = keep(await serve({ store: d.store, programs: [d.served], port: 0, helloTimeoutMs: 50 }));
    const ws = new WebSocket(server.url);
    ws.on("error", () => undefined);
    expect(await new Promise<number>((r) => ws.once("close", r))).toBe(4400);
  });
});
