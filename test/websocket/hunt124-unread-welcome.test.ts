/**
 * A welcome the companion cannot read (valid JSON, its fields of the wrong type: a server speaking another protocol,
 * or a broken one) refuses the connect at once (`remote-protocol`), as a hello the server refuses does. It was dropped:
 * `connect` waited for its deadline and said the server never answered the hello (`remote-closed`), to be tried again.
 */
import { describe, expect, it } from "vitest";
import { WebSocketServer } from "ws";
import { connect } from "../../adapters/websocket/index.js";
import { keeper } from "./fixtures.js";

const keep = keeper();

/** A server that answers each hello with a welcome whose every field is of the wrong type; counts its connections. */
async function garbledServer() {
  const wss = new WebSocketServer({ port: 0, host: "127.0.0.1" });
  await new Promise((r) => wss.once("listening", r));
  let connections = 0;
  wss.on("connection", (ws) => {
    connections++;
    ws.on("message", (data) => {
      const m = JSON.parse(String(data)) as { type: string; id: string };
      if (m.type === "hello") ws.send(JSON.stringify({ type: "welcome", id: m.id, v: "one", programs: "desk", heartbeatMs: -1 }));
    });
  });
  keep({ close: () => new Promise<void>((r) => (wss.clients.forEach((c) => c.terminate()), wss.close(() => r()))) });
  return { url: `ws://127.0.0.1:${(wss.address() as { port: number }).port}`, connections: () => connections };
}

describe("a welcome that cannot be read", () => {
  it("refuses connect (remote-protocol), saying so, and nothing is tried again", async () => {
    const server = await garbledServer();
    const e = await connect(server.url, { timeoutMs: 2000, maxDelayMs: 50 }).then(
      (a) => (keep(a), null),
      (x: unknown) => x,
    );
    expect(e).toMatchObject({ code: "remote-protocol", message: "the server's welcome was not understood" });
    expect(server.connections()).toBe(1);
  });
});
