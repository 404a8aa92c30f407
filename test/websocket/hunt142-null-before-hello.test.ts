/**
 * A text frame of JSON `null` before the hello threw in the server's message handler (it read `.type` of null to
 * tell a hello it could not read from any other first frame): an uncaught exception, which ends a Node process. Any
 * socket that reached the server, with no key, could take it down. It is now refused as any frame not understood
 * (an error reply, remote-protocol), and the same socket's hello, and other companions, are served.
 */
import { describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { connect, serve } from "../../adapters/websocket/index.js";
import { keeper, until, waitingDesk } from "./fixtures.js";

const keep = keeper();

describe("JSON that is no object, before the hello", () => {
  it.each(["null", "1", '"hello"', "[]", "true"])("%s: an error reply; the socket's hello then welcomed, another companion served", async (frame) => {
    const d = await waitingDesk(["sam"]);
    const server = keep(await serve({ store: d.store, programs: [d.served], port: 0, keys: ["k1"] }));
    const ws = new WebSocket(server.url);
    keep({ close: async () => ws.close() });
    ws.on("error", () => undefined);
    const got: { type?: string; id?: string | null; code?: string }[] = [];
    ws.on("message", (m) => got.push(JSON.parse(String(m)) as (typeof got)[number]));
    await new Promise((r) => ws.once("open", r));
    ws.send(frame);
    await until(() => got.length === 1);
    expect(got[0]).toMatchObject({ type: "error", id: null, code: "remote-protocol" });
    ws.send(JSON.stringify({ type: "hello", id: "h", v: 1, key: "k1" }));
    await until(() => got.some((m) => m.type === "welcome"));
    const app = keep(await connect(server.url, { key: "k1" }));
    expect((await app.waiting()).map((w) => w.conversation)).toEqual(["sam"]);
  });
});
