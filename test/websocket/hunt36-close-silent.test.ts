/**
 * `app.close()` when the server has gone silent (a network that drops
 * without a close: a laptop that slept, a balancer that lost the backend):
 * nobody answers the close, and `ws` waits 30 s for it before it lets the
 * socket go. `close()` took those 30 s (a shutdown path hung on it); it
 * lets the socket go after a short grace, and whatever was in flight has
 * settled (`remote-closed`) by the time it resolves.
 */
import { describe, expect, it } from "vitest";
import { connect, serve } from "../../adapters/websocket/index.js";
import { keeper, waitingDesk } from "./fixtures.js";
import { freezingProxy } from "./fixtures/hunt36-kit.js";

const keep = keeper();

describe("close() on a connection the server no longer answers", () => {
  it("resolves within a few seconds, its requests in flight settled with remote-closed, and does not reconnect", async () => {
    const d = await waitingDesk(["sam"]);
    const server = keep(await serve({ store: d.store, programs: [d.served], port: 0 }));
    const proxy = keep(await freezingProxy(server.port));
    const app = await connect(proxy.url, { maxDelayMs: 50 });
    let reconnects = 0;
    app.on("reconnect", () => reconnects++);
    expect(await app.waiting()).toHaveLength(1);
    proxy.freeze();
    const asked = app.waiting().then(
      () => "answered",
      (e: unknown) => e,
    );
    const began = Date.now();
    await app.close();
    expect(Date.now() - began).toBeLessThan(3000);
    // settled by then: the close does not leave a request hanging for the socket's own timeout
    const settled = await Promise.race([asked, Promise.resolve("pending")]);
    expect(settled).toMatchObject({ name: "RemoteError", code: "remote-closed" });
    await new Promise((r) => setTimeout(r, 300));
    expect(reconnects).toBe(0);
  }, 40_000);
});
