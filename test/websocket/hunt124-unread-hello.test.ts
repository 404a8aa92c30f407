/**
 * A hello the server cannot read (valid JSON, every field of the wrong type) was refused by its id, and the socket
 * left open: it waited for the hello deadline (then closed "no hello in time", though it said one), and a hello sent
 * after it was taken. The companion's own code (client/link.ts) says the server closes 4400 on "a hello it cannot
 * read"; limits.test.ts holds that a frame that is not JSON, before the hello, is answered and the socket kept.
 *
 * Decided: closed at once (4400, "no hello understood"), as a socket whose first request is not a hello is, and as
 * client/link.ts expects; a frame that is not JSON before the hello is still answered and the socket kept (limits.test.ts).
 */
import { describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { serve } from "../../adapters/websocket/index.js";
import { keeper, waitingDesk } from "./fixtures.js";

const keep = keeper();

describe("a hello that cannot be read", () => {
  it("is refused by its id and the socket closed 4400 at once; a hello sent after it is not taken", async () => {
    const d = await waitingDesk([]);
    const server = keep(await serve({ store: d.store, programs: [d.served], port: 0, helloTimeoutMs: 60_000 }));
    const ws = new WebSocket(server.url);
    ws.on("error", () => undefined);
    const got: { type: string; id?: string | null; code?: string }[] = [];
    ws.on("message", (m) => {
      got.push(JSON.parse(String(m)));
      if (got.at(-1)?.type === "welcome") ws.close(1000, "welcomed"); // (taken: nothing more to see)
    });
    const closed = new Promise<{ code: number; reason: string }>((r) => ws.once("close", (code, reason) => r({ code, reason: String(reason) })));
    await new Promise((r) => ws.once("open", r));
    ws.send(JSON.stringify({ type: "hello", id: "h1", v: "1", key: 42, client: { name: "x" } }));
    ws.send(JSON.stringify({ type: "hello", id: "h2", v: 1 }));
    expect(await closed).toEqual({ code: 4400, reason: "no hello understood" });
    expect(got.map((m) => [m.type, m.id, m.code])).toEqual([["error", "h1", "remote-protocol"]]);
  });
});
