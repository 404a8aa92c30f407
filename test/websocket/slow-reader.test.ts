/**
 * A companion that reads slower than the server writes: past `maxBuffered`
 * bytes waiting to be sent, the server closes it (4408) instead of holding
 * every message in memory.
 */
import { describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { serve } from "../../adapters/websocket/index.js";
import { keeper, waitingDesk } from "./fixtures.js";

const keep = keeper();

describe("a companion that stops reading", () => {
  it("is closed with 4408 once more than maxBuffered waits to be sent; the server holds no more", async () => {
    const d = await waitingDesk(Array.from({ length: 25 }, (_, i) => `c${i}`));
    const errors: string[] = [];
    const server = keep(await serve({
      store: d.store, programs: [d.served], port: 0, maxBuffered: 256 * 1024,
      rate: { perSecond: 1e6, burst: 1e6 }, maxRuns: 10_000, onError: (m) => errors.push(m),
    }));
    const ws = new WebSocket(server.url);
    ws.on("error", () => undefined);
    await new Promise((r) => ws.once("open", r));
    let replies = 0;
    let welcomed = false;
    ws.on("message", (data) => {
      const m = JSON.parse(String(data)) as { type: string };
      if (m.type === "welcome") welcomed = true;
      if (m.type === "reply") replies++;
    });
    const closed = new Promise<{ code: number; reason: string }>((r) => ws.once("close", (code, reason) => r({ code, reason: String(reason) })));
    ws.send(JSON.stringify({ type: "hello", id: "h", v: 1 }));
    while (!welcomed) await new Promise((r) => setTimeout(r, 5));
    (ws as unknown as { _socket: { pause(): void; resume(): void } })._socket.pause(); // reads nothing more
    const asked = 5000; // each reply holds the 25 waiting turns: ~ 50 MB in all, far past what the kernel buffers
    for (let i = 0; i < asked; i++) ws.send(JSON.stringify({ type: "waiting", id: `w${i}` }));
    await new Promise((r) => setTimeout(r, 1500));
    (ws as unknown as { _socket: { resume(): void } })._socket.resume();
    const close = await Promise.race([closed, new Promise<null>((r) => setTimeout(() => r(null), 5000))]);
    expect(close).toEqual({ code: 4408, reason: "reading too slowly" });
    expect(replies).toBeLessThan(asked);
    expect(errors).toContain("a companion reads too slowly: closed");
  }, 20_000);
});
