/**
 * A server restarted on the same port under a companion that listens for
 * events: the companion comes back by itself, gets the waiting list again,
 * and is subscribed again (the new server knows nothing of the old
 * subscription): a turn another companion answers there is told to it.
 */
import { describe, expect, it } from "vitest";
import { connect, serve } from "../../adapters/websocket/index.js";
import { keeper, until, waitingDesk } from "./fixtures.js";

const keep = keeper();

describe("a server restarted under a listening companion", () => {
  it("the companion reconnects, gets the list again and is told the events of a turn answered on the new server", async () => {
    const d = await waitingDesk(["sam", "ana"]);
    const first = await serve({ store: d.store, programs: [d.served], port: 0 });
    const app = keep(await connect(first.url, { maxDelayMs: 50 }));
    const events: string[] = [];
    app.on("event", (e) => events.push(`${e.conversation}:${e.event.type}`));
    let reconnects = 0;
    app.on("reconnect", () => reconnects++);
    const lists: number[] = [];
    app.on("waiting", (list) => lists.push(list.length));
    await until(() => app.last.length === 2);
    await first.close();
    const second = keep(await serve({ store: d.store, programs: [d.served], port: first.port }));
    await until(() => reconnects === 1);
    await until(() => lists.length > 0);
    expect(lists.at(-1)).toBe(2);
    await app.waiting(); // (a round trip: the subscribe sent before it has been heard)
    const other = keep(await connect(second.url));
    const w = (await other.waiting()).find((x) => x.conversation === "ana")!;
    expect(await other.approve({ conversation: "ana", turn: w.turn })).toBe("The last tool said: refunded 39.00 for A-1042");
    await until(() => events.includes("ana:done"));
    expect(events[0]).toBe("ana:approved");
    expect(events.every((e) => e.startsWith("ana:"))).toBe(true);
  });
});
