/**
 * A companion keeps within the server's rate by its own clock, but frames can reach the server bunched (a network
 * that held some back, a server whose event loop stalled): the server then refuses some for the rate
 * (`remote-rate-limit`). A subscribe so refused was dropped without a word: the `event` listeners were told nothing
 * for as long as the connection lasted. It is now asked again.
 */
import { describe, expect, it } from "vitest";
import { connect, serve } from "../../adapters/websocket/index.js";
import type { TurnEvent } from "../../src/index.js";
import { keeper, until, waitingDesk } from "./fixtures.js";

const keep = keeper();

/** Keeps the event loop busy: the companion's tokens come due by the clock, and the server (in this process) reads nothing meanwhile. */
function stall(ms: number): void {
  const end = Date.now() + ms;
  while (Date.now() < end);
}

describe("a subscribe the server refuses for its rate (frames that reached it bunched)", () => {
  it("is asked again: the listener is told the events of a turn another companion answers", async () => {
    const d = await waitingDesk(["sam"]);
    const server = keep(await serve({ store: d.store, programs: [d.served], port: 0, rate: { perSecond: 50, burst: 2 } }));
    const app = keep(await connect(server.url));
    const read = () => app.status({ conversation: "sam", turn: "nope" }).catch((e: unknown) => e as { code?: string });
    stall(100);
    const early = [read(), read()]; // the companion's two tokens; the server reads them only after the next stall
    stall(100);
    const events: TurnEvent[] = [];
    app.on("event", ({ event }) => events.push(event)); // the companion's tokens again; the server has none left for it
    const last = read();
    await Promise.all(early);
    await last; // (answered after the subscribe, in order: its refusal came back first)
    await until(
      () =>
        app.waiting().then(
          () => true,
          () => false,
        ),
      10_000,
    );
    const other = keep(await connect(server.url));
    const [w] = await other.waiting();
    await other.approve({ conversation: "sam", turn: w!.turn, by: "maria" });
    await until(() => events.some((e) => e.type === "done"));
    expect(events.filter((e) => e.type === "tool_result").map((e) => (e as { name: string }).name)).toEqual(["refund"]);
  }, 30_000);
});
