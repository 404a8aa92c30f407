/**
 * A socket closed for a frame the server refused itself (past maxPayload, 1009) whose peer then reads nothing (gone
 * silent) is let go of after a short grace, as every socket the server closes is: `ws` held it up to 30 s waiting for
 * the close's answer, with its slot among the connections and its address's.
 */
import { describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { serve } from "../../adapters/websocket/index.js";
import { keeper, until, waitingDesk } from "./fixtures.js";

const keep = keeper();

describe("a peer silent after its frame was refused", () => {
  it("is let go of within a few seconds, not held for ws's 30 s", async () => {
    const d = await waitingDesk([]);
    const server = keep(await serve({ store: d.store, programs: [d.served], port: 0, maxPayload: 1024 }));
    const ws = new WebSocket(server.url);
    ws.on("error", () => undefined);
    await new Promise((r) => ws.once("open", r));
    ws.send(JSON.stringify({ type: "hello", id: "h", v: 1 }));
    await new Promise((r) => ws.once("message", r)); // (welcomed)
    (ws as unknown as { _socket: { pause(): void } })._socket.pause(); // reads nothing more: never answers the close
    ws.send("x".repeat(2048));
    await until(() => server.connections === 0, 10_000).catch(() => undefined);
    expect(server.connections).toBe(0);
    ws.terminate();
  }, 20_000);
});
