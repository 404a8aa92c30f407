/**
 * A server that refuses this companion's protocol version (it was upgraded
 * while the companion was connected: it drops the connection, and answers
 * the next hello `remote-protocol`, closing 4400) will refuse it again at
 * every attempt. The companion retried for ever (every `maxDelayMs`), and
 * its caller never learnt why: each request failed "not connected". It now
 * stops at the refusal, tells its `close` listeners (4400, the server's
 * words), and every later request fails with the refusal's code.
 */
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { WebSocketServer } from "ws";
import { connect } from "../../adapters/websocket/index.js";
import { keeper, until } from "./fixtures.js";

const keep = keeper();

/** A server speaking only version `v`: it welcomes the first companion (as before its upgrade), then drops it and refuses every later hello. */
async function upgradedServer() {
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await new Promise((r) => wss.once("listening", r));
  let hellos = 0;
  wss.on("connection", (ws) => {
    ws.on("message", (data) => {
      const m = JSON.parse(String(data)) as { type: string; id: string; v: number };
      if (m.type !== "hello") return;
      hellos += 1;
      if (hellos === 1) {
        ws.send(JSON.stringify({ type: "welcome", id: m.id, v: 1, programs: [] }));
        setTimeout(() => ws.close(1001, "restarting"), 50);
        return;
      }
      ws.send(
        JSON.stringify({
          type: "error",
          id: m.id,
          code: "remote-protocol",
          message: `protocol version ${m.v} is not supported (this server speaks 2)`,
        }),
      );
      ws.close(4400, "version");
    });
  });
  return {
    url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`,
    get hellos() {
      return hellos;
    },
    close: () =>
      new Promise<void>((r) => {
        for (const c of wss.clients) c.terminate();
        wss.close(() => r());
      }),
  };
}

describe("a protocol version the server refuses", () => {
  it("ends the companion at the refusal: no retry, the close listener told, later requests refused with the code", async () => {
    const server = keep(await upgradedServer());
    const app = keep(await connect(server.url, { maxDelayMs: 20 }));
    const closes: { code: number; reason: string }[] = [];
    app.on("close", (e) => closes.push(e));
    await until(() => closes.some((c) => c.code === 4400));
    const hellosAtRefusal = server.hellos;
    expect(hellosAtRefusal).toBe(2);
    // a retry loop would say hello again every 10–20 ms; given a generous second (a loaded machine), none comes
    await new Promise((r) => setTimeout(r, 1000));
    expect(server.hellos).toBe(2);
    expect(closes.at(-1)!.reason).toContain("protocol version 1 is not supported");
    await expect(app.waiting()).rejects.toMatchObject({ code: "remote-protocol", message: expect.stringContaining("not supported") });
  });
});
