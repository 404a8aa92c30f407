/**
 * `app.on("event")` subscribes the companion. Asked while many requests are
 * held back for the server's rate (a person answered hundreds of turns at
 * once), the subscribe waited too long by the companion's measure and was
 * refused (remote-rate-limit), and that refusal was swallowed: the listener
 * was never told a single event, and nothing said why. A subscribe is now
 * held as long as it takes (as a cancel is), never refused for the rate.
 */
import { describe, expect, it } from "vitest";
import { connect, serve } from "../../adapters/websocket/index.js";
import type { TurnEvent } from "../../src/index.js";
import { keeper, until, waitingDesk } from "./fixtures.js";

const keep = keeper();

describe("a subscribe asked while the companion holds many requests back for the rate", () => {
  it("is sent once the rate allows: the listener is told the events of a turn another companion answers", async () => {
    const d = await waitingDesk(["sam"]);
    const server = keep(await serve({ store: d.store, programs: [d.served], port: 0, maxRuns: 10_000, rate: { perSecond: 50, burst: 50 } }));
    const app = keep(await connect(server.url));
    // ~9 s of requests at the server's rate (abandons of turns that do not exist: each is refused at once by the server)
    const held = Array.from({ length: 450 }, (_, i) => app.abandon({ conversation: "nobody", turn: `t${i}` }).catch((e: unknown) => e));
    const events: TurnEvent[] = [];
    app.on("event", ({ event }) => events.push(event));
    const settled = await Promise.all(held);
    // (those past what the companion holds were refused at once, nothing sent; the others were sent and refused by the server)
    expect(settled.every((e) => typeof (e as { code?: unknown }).code === "string")).toBe(true);
    // (the subscribe went before this read, in order; a read the rate does not allow yet is refused: asked again)
    await until(
      () =>
        app.waiting().then(
          () => true,
          () => false,
        ),
      30_000, // (a bound for a loaded machine: the rate lets a read through within a second)
    );
    const other = keep(await connect(server.url));
    const [w] = await other.waiting();
    expect(await other.approve({ conversation: "sam", turn: w!.turn, by: "maria" })).toBe("The last tool said: refunded 39.00 for A-1042");
    await until(() => events.some((e) => e.type === "done"), 20_000);
    expect(events.filter((e) => e.type === "tool_result").map((e) => (e as { name: string }).name)).toEqual(["refund"]);
  }, 60_000);
});
