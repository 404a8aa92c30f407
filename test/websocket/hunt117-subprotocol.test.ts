/**
 * The server speaks no WebSocket subprotocol. An upgrade asking for one (a client of another protocol pointed at the
 * wrong port, a browser page's `new WebSocket(url, ["graphql-ws"])`) must not be told the server speaks it: `ws` left
 * alone echoes the first one asked for, and the client goes on believing it talks to that protocol's server. Selecting
 * none, the client sees at once that it does not (RFC 6455: it fails the connection).
 */
import { describe, expect, it } from "vitest";
import { WebSocket as WsSocket } from "ws";
import { connect, serve } from "../../adapters/websocket/index.js";
import { keeper, waitingDesk } from "./fixtures.js";

const keep = keeper();

/** How an upgrade asking for `protocols` ends: opened (and the subprotocol the server chose), or failed. */
function upgrade(url: string, protocols: string[]): Promise<{ opened: string } | { failed: string }> {
  return new Promise((resolve) => {
    const socket = new WsSocket(url, protocols);
    socket.on("open", () => {
      resolve({ opened: socket.protocol });
      socket.close();
    });
    socket.on("error", (e) => resolve({ failed: e.message }));
  });
}

describe("an upgrade asking for a subprotocol", () => {
  it("is never told the server speaks one it does not", async () => {
    const d = await waitingDesk(["sam"]);
    const server = keep(await serve({ store: d.store, programs: [d.served], port: 0 }));
    expect(await upgrade(server.url, ["graphql-ws", "mqtt"])).toEqual({ failed: expect.stringMatching(/subprotocol/i) });
    // a companion, which asks for none, is served as before
    const app = keep(await connect(server.url));
    expect((await app.waiting()).map((w) => w.conversation)).toEqual(["sam"]);
  });
});
