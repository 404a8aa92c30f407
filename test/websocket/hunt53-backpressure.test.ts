/**
 * The server pings each companion every `heartbeatMs` and drops one whose
 * pong did not come back by the next beat. A ping is queued behind what
 * waits to be sent: a companion on a slow link reading a long backlog (many
 * large waiting lists) answers it only once it has read what came before,
 * so it was dropped (1006) while it read steadily, then reconnected and was
 * sent the same backlog again. A connection whose backlog drains is now
 * judged alive (TCP sends only what the peer acknowledges); one whose
 * backlog does not move is still dropped.
 */
import { describe, expect, it } from "vitest";
import { serve } from "../../adapters/websocket/index.js";
import { keeper, until, waitingDesk } from "./fixtures.js";
import { rawClient } from "./fixtures/hunt25-kit.js";
import { slowLink } from "./fixtures/hunt53-kit.js";

const keep = keeper();

describe("a companion reading a backlog", () => {
  it("over a slow link is not dropped for a pong queued behind it: every reply arrives", async () => {
    const d = await waitingDesk(Array.from({ length: 25 }, (_, i) => `c${i}`)); // each waiting list ~7 KB
    const server = keep(
      await serve({
        store: d.store,
        programs: [d.served],
        port: 0,
        // (2 s: a loaded machine's event loop stalls, and a stall past a beat leaves the backlog unmoved at that look)
        heartbeatMs: 2000,
        maxBuffered: 512 * 1024 * 1024, // (this test is about the heartbeat, not the slow-reader cap)
        rate: { perSecond: 1e6, burst: 1e6 },
      }),
    );
    // ~21 MB at ~4 MB/s: more than two heartbeats' worth queued ahead of the first ping
    const link = keep(await slowLink(server.port, 4_000_000));
    const c = keep(await rawClient(link.url, ""));
    const asked = 3000;
    for (let i = 0; i < asked; i++) c.send({ type: "waiting", id: `w${i}` });
    // generous: a loaded machine reads this slow link slower still; the connection must stay up all along
    await until(() => c.code !== null || c.messages.filter((m) => m.type === "reply").length === asked, 90_000);
    expect(c.code).toBeNull();
    expect(c.messages.filter((m) => m.type === "reply")).toHaveLength(asked);
  }, 120_000);

  it("that stops reading altogether is still dropped", async () => {
    const d = await waitingDesk(Array.from({ length: 25 }, (_, i) => `c${i}`));
    const server = keep(
      await serve({
        store: d.store,
        programs: [d.served],
        port: 0,
        heartbeatMs: 300,
        maxBuffered: 512 * 1024 * 1024,
        rate: { perSecond: 1e6, burst: 1e6 },
      }),
    );
    const c = keep(await rawClient(server.url, ""));
    (c.ws as unknown as { _socket: { pause(): void } })._socket.pause(); // reads nothing more, answers no ping
    for (let i = 0; i < 3000; i++) c.send({ type: "waiting", id: `w${i}` });
    await until(() => server.connections === 0, 30_000);
  }, 60_000);
});
