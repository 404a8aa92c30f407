/**
 * `app.on("event")` shows the turns the server runs, the ones this companion set going included: the server sends a
 * turn's events once to the companion that asked (with its request id) rather than again as a subscriber's. Dropped
 * there unless a call's stream took them, a companion that approved a turn never saw any of its events, while every
 * other companion watching did (and, its cursor moved past them, was not given them after a drop either).
 */
import { describe, expect, it } from "vitest";
import { connect, serve } from "../../adapters/websocket/index.js";
import { keeper, until, waitingDesk } from "./fixtures.js";

const keep = keeper();

describe("a subscribed companion that answers a turn itself", () => {
  it("sees that turn's events, each once, in order, as a companion that only watches does", async () => {
    const d = await waitingDesk(["sam"]);
    const server = keep(await serve({ store: d.store, programs: [d.served], port: 0 }));
    const app = keep(await connect(server.url));
    const watcher = keep(await connect(server.url));
    const mine: string[] = [];
    const watched: string[] = [];
    app.on("event", ({ conversation, event }) => mine.push(`${conversation}:${event.seq}:${event.type}`));
    watcher.on("event", ({ conversation, event }) => watched.push(`${conversation}:${event.seq}:${event.type}`));
    await watcher.waiting(); // (the subscribes went first)
    const [w] = await app.waiting();
    expect(await app.approve({ conversation: "sam", turn: w!.turn, by: "maria" })).toContain("refunded");
    // (its own were sent to it before the reply; the watcher's may come a little later)
    await until(() => watched.some((e) => e.endsWith(":done")) && watched.length >= mine.length);
    expect(mine).toEqual(watched);
    expect(mine).toContain(watched.find((e) => e.endsWith(":tool_result")));
    expect(new Set(mine).size).toBe(mine.length);
  });
});
