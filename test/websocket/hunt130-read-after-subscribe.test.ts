/**
 * A companion's requests reach the server in the order its user made them. A read (`waiting()`, `status()`) that the
 * rate let through took a token that had come due for a subscribe held back before it (its timer not run yet: a
 * loaded event loop), and went first: the read's answer came back while the subscription was not yet made, so a turn
 * another companion answered right after was shown to the listener only in part (its `done`, not its `tool_result`).
 * A read now goes only after what is held for the rate before it (it still passes answers held for `maxRuns`).
 */
import { describe, expect, it } from "vitest";
import { connect, serve } from "../../adapters/websocket/index.js";
import { keeper, waitingDesk, WrappedSocket } from "./fixtures.js";

const keep = keeper();

/**
 * A companion's socket that records every frame it sends (by type), and tells the companion a rate of two messages at
 * once, then one every ~22 ms, where the server takes far more: the test's stall of the event loop (which the
 * server's in the same process shares) never makes the server refuse what it reads late, all at once.
 */
function recording(sent: string[]) {
  return class Recording extends WrappedSocket {
    override send(data: string): void {
      sent.push((JSON.parse(data) as { type: string }).type);
      super.send(data);
    }
    override addEventListener(type: "open" | "error" | "message" | "close", listener: (e: never) => void): void {
      if (type !== "message") return super.addEventListener(type, listener);
      super.addEventListener(type, ((e: { data: unknown }) => {
        const m = JSON.parse(String(e.data)) as { type: string };
        const data = m.type === "welcome" ? JSON.stringify({ ...m, rate: { perSecond: 50, burst: 2 } }) : e.data;
        (listener as (e: { data: unknown }) => void)({ data });
      }) as never);
    }
  };
}

/** Keeps the event loop busy (a loaded process): tokens come due by the clock, while no timer can run. */
function stall(ms: number): void {
  const end = Date.now() + ms;
  while (Date.now() < end);
}

describe("a read asked after a subscribe that is held back for the rate", () => {
  it("is sent after the subscribe, never before it", async () => {
    const d = await waitingDesk(["sam"]);
    const server = keep(await serve({ store: d.store, programs: [d.served], port: 0 }));
    const sent: string[] = [];
    const app = keep(await connect(server.url, { WebSocket: recording(sent) }));
    // reads until one is refused (nothing sent): no token is left now
    const reads: Promise<unknown>[] = [];
    for (let before = -1; before !== sent.length; ) {
      before = sent.length;
      reads.push(app.status({ conversation: "sam", turn: "nope" }).catch(() => undefined));
    }
    app.on("event", () => undefined); // the subscribe: held, no token left
    expect(sent.at(-1)).toBe("status");
    stall(120); // two tokens come due; the subscribe's timer has not run
    await app.waiting();
    await Promise.all(reads);
    expect(sent.slice(-2)).toEqual(["subscribe", "waiting"]);
  });
});
