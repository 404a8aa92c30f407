/**
 * A subscribed companion (`app.on("event")`) whose connection drops while a
 * turn runs on the server reconnects and subscribes again, but the events
 * sent meanwhile are gone: the protocol has no way to ask for a turn's
 * events after a seq (`subscribe` takes no position, and the server keeps
 * no events to replay; a turn's records could be read back as events).
 * A live view of the turn silently misses its tool results and its end.
 *
 * Now the server numbers the events it sends (`n`) and keeps the latest;
 * a companion subscribing again says the last it got (`after`) and is sent
 * what it missed, each once, before anything newer.
 */
import { describe, expect, it } from "vitest";
import { connect, serve } from "../../adapters/websocket/index.js";
import type { TurnEvent } from "../../src/index.js";
import { keeper, proxy, until, waitingDesk } from "./fixtures.js";

const keep = keeper();

describe("a subscriber's connection dropped mid-turn", () => {
  it("gets every event of the turn once, after it reconnects", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const d = await waitingDesk(["sam"], { gate });
    const server = keep(await serve({ store: d.store, programs: [d.served], port: 0 }));
    const net = keep(await proxy(server.port));
    const watcher = keep(await connect(net.url, { maxDelayMs: 50 }));
    const seen: TurnEvent[] = [];
    watcher.on("event", ({ event }) => seen.push(event));
    let reconnects = 0;
    watcher.on("reconnect", () => reconnects++);
    await watcher.waiting(); // (the subscribe went first)
    const app = keep(await connect(server.url));
    const [w] = await app.waiting();
    const s = app.approve({ conversation: "sam", turn: w!.turn, by: "maria" });
    await until(() => seen.some((e) => e.type === "tool_call"));
    net.cut(); // the watcher's network drops while the refund runs
    release(); // meanwhile the refund ends, the model answers, the turn ends
    expect(await s).toBe("The last tool said: refunded 39.00 for A-1042");
    await until(() => reconnects === 1);
    await watcher.waiting();
    await new Promise((r) => setTimeout(r, 300));
    const seqs = seen.filter((e) => e.seq > 0).map((e) => e.seq);
    expect(new Set(seqs).size).toBe(seqs.length); // none repeated
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => seqs[0]! + i)); // none lost
    expect(seen.map((e) => e.type)).toContain("done");
  }, 20_000);
});
