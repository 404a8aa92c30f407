/**
 * Reconnects back off, and do not come back in step: a server that welcomes
 * each hello and drops the connection at once is not asked again every
 * 100 ms (the backoff started again at every welcome), and the waits carry
 * a random part, so companions a restart dropped together spread out.
 */
import { afterEach, describe, expect, it } from "vitest";
import { WebSocketServer } from "ws";
import { connect } from "../../adapters/websocket/index.js";
import { reconnectDelay } from "../../adapters/websocket/client/link.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

/** A server that welcomes each hello, then (from the second connection on) closes at once; counts connections. */
async function flakyServer() {
  const wss = new WebSocketServer({ port: 0, host: "127.0.0.1" });
  await new Promise((r) => wss.once("listening", r));
  let connections = 0;
  wss.on("connection", (ws) => {
    const n = ++connections;
    ws.on("message", (d) => {
      const m = JSON.parse(String(d)) as { type: string; id: string };
      if (m.type !== "hello") return;
      ws.send(JSON.stringify({ type: "welcome", id: m.id, v: 1, programs: [] }));
      if (n > 1) setTimeout(() => ws.close(1011, "going away"), 5);
    });
  });
  closers.push(() => new Promise<void>((r) => (wss.clients.forEach((c) => c.terminate()), wss.close(() => r()))));
  return { url: `ws://127.0.0.1:${(wss.address() as { port: number }).port}`, connections: () => connections, drop: () => wss.clients.forEach((c) => c.close(1011, "restart")) };
}

describe("reconnect backoff", () => {
  it("a server that welcomes and drops at once is asked again less and less often, not every 100 ms", async () => {
    const server = await flakyServer();
    const app = await connect(server.url, { maxDelayMs: 5_000 });
    closers.push(() => app.close());
    server.drop();
    await new Promise((r) => setTimeout(r, 2_000));
    // 100, 200, 400, 800 ms (each with up to half taken off): about five in 2 s; every 100 ms would be about twenty
    expect(server.connections()).toBeGreaterThanOrEqual(3);
    expect(server.connections()).toBeLessThanOrEqual(8);
  });

  it("each wait is 100 ms doubling, capped at maxDelayMs, less a random part of at most half", () => {
    expect([0, 1, 2, 3].map((a) => reconnectDelay(a, 5_000, () => 1))).toEqual([100, 200, 400, 800]);
    expect([0, 1, 2, 3].map((a) => reconnectDelay(a, 5_000, () => 0))).toEqual([50, 100, 200, 400]);
    expect(reconnectDelay(20, 5_000, () => 1)).toBe(5_000);
    expect(reconnectDelay(20, 5_000, () => 0)).toBe(2_500);
    expect(reconnectDelay(1_000, 5_000, () => 0.5)).toBe(3_750); // (no overflow for a long outage)
    const spread = new Set(Array.from({ length: 20 }, () => reconnectDelay(5, 5_000)));
    expect(spread.size).toBeGreaterThan(1);
  });
});
