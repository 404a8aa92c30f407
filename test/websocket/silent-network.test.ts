/**
 * A network that goes silent without a close (a laptop's Wi-Fi gone, a NAT
 * that forgot the connection): neither end hears a FIN. The server drops
 * such a companion by its pings; the companion hears the server's
 * heartbeats stop, gives the connection up, and reconnects: a call in flight
 * ends with remote-closed (never waits for ever) and the waiting list is
 * sent again.
 */
import { createServer, connect as tcpConnect, type AddressInfo, type Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { connect, serve } from "../../adapters/websocket/index.js";
import { Waiting } from "../../src/index.js";
import { keeper, until, waitingDesk } from "./fixtures.js";

const keep = keeper();
/**
 * Each ping's answer crosses the proxy, all in this one process: at 50 ms a loaded machine made the server drop the
 * companion before the silence (at connect(), or before the call's first event). The companion gives up after
 * 2 × 500 + 1000 ms of silence, well within the tests' limits.
 */
const HEARTBEAT_MS = 500;

/** A TCP proxy whose current connections a test can make silent: nothing passes, nothing closes (the far end's close is not passed on either). */
async function silentProxy(port: number) {
  const pairs = new Set<{ client: Socket; upstream: Socket; silent: boolean }>();
  const server = createServer((client) => {
    const upstream = tcpConnect(port, "127.0.0.1");
    const pair = { client, upstream, silent: false };
    pairs.add(pair);
    for (const s of [client, upstream]) {
      s.on("error", () => undefined);
      s.on("close", () => {
        if (pair.silent) return; // a close that never reaches the other end
        pairs.delete(pair);
        client.destroy();
        upstream.destroy();
      });
    }
    client.on("data", (b) => pair.silent || upstream.write(b));
    upstream.on("data", (b) => pair.silent || client.write(b));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`,
    silence: () => pairs.forEach((p) => (p.silent = true)),
    close: () =>
      new Promise<void>((r) => {
        pairs.forEach((p) => (p.client.destroy(), p.upstream.destroy()));
        server.close(() => r());
      }),
  };
}

describe("a network that goes silent", () => {
  it("an owner call in flight ends with remote-closed naming its turn, and the companion reconnects and gets the waiting list again", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const d = await waitingDesk(["ana"], { gate });
    const server = keep(
      await serve({ store: d.store, programs: [d.served], keys: ["k1"], port: 0, heartbeatMs: HEARTBEAT_MS, settings: { approve: null } }),
    );
    const net = keep(await silentProxy(server.port));
    const app = keep(await connect(net.url, { key: "k1", maxDelayMs: 50 }));
    let reconnects = 0;
    app.on("reconnect", () => reconnects++);
    const lists: string[][] = [];
    app.on("waiting", (w) => lists.push(w.map((x) => x.conversation)));

    const s = app.call("desk", "Order A-1042 never arrived. Refund it, please."); // owner call, a new conversation; the refund is held at the gate
    const seen: string[] = [];
    const iterated = (async () => {
      for await (const e of s) {
        seen.push(e.type);
        if (e.type === "tool_call" && e.name === "refund") net.silence();
      }
    })();
    const ended = await iterated.then(
      () => null,
      (e: unknown) => e,
    );
    expect(ended).toMatchObject({ code: "remote-closed" });
    expect(s.conversation).toMatch(/^call-/); // learnt from its events: the turn can be found again
    expect(String((ended as Error).message)).toContain(`conversation ${s.conversation}`);
    await expect(Promise.resolve(s)).rejects.toMatchObject({ code: "remote-closed" });

    // while it was away, bob started waiting: the reconnected companion is told
    const bob = await d.served
      .conversation("bob", { store: d.store, approve: "changes" })
      .send("Order A-1042 never arrived. Refund it, please.")
      .catch((e: unknown) => e);
    expect(bob).toBeInstanceOf(Waiting);
    await until(() => reconnects >= 1);
    await until(() => lists.at(-1)?.includes("bob") === true);
    expect(lists.at(-1)).toEqual(expect.arrayContaining(["ana", "bob"]));
    release();
    await until(async () => (await app.status({ conversation: s.conversation!, turn: s.turn! })).state === "done");
    expect(d.REFUNDS).toEqual([["A-1042", 39]]);
  }, 10_000);

  it("a companion that does not reconnect is told of the close, and its calls end", async () => {
    const d = await waitingDesk(["ana"]);
    const server = keep(await serve({ store: d.store, programs: [d.served], keys: ["k1"], port: 0, heartbeatMs: HEARTBEAT_MS }));
    const net = keep(await silentProxy(server.port));
    const app = keep(await connect(net.url, { key: "k1", reconnect: false }));
    const closes: { code: number; reason: string }[] = [];
    app.on("close", (e) => closes.push(e));
    net.silence();
    const list = app.waiting();
    await expect(list).rejects.toMatchObject({ code: "remote-closed" });
    expect(closes).toEqual([{ code: 1006, reason: expect.stringContaining("no word from the server") }]);
  }, 10_000);
});
