/**
 * A companion whose connection the server closes before its welcome is told why, not only the close's code: its hello
 * past the server's maxPayload (1009), or a server full (1013, "too many connections"). `connect` said
 * "the server closed the connection (1009)", the reason the server gave dropped.
 */
import { describe, expect, it } from "vitest";
import { connect, serve } from "../../adapters/websocket/index.js";
import { keeper, waitingDesk } from "./fixtures.js";

const keep = keeper();

describe("a connection closed before its welcome", () => {
  it("a hello past maxPayload: connect rejects (remote-closed) saying the limit", async () => {
    const d = await waitingDesk([]);
    const server = keep(await serve({ store: d.store, programs: [d.served], keys: ["k1"], port: 0, maxPayload: 1024 }));
    const e = await connect(server.url, { key: "k".repeat(1000), reconnect: false }).then(
      (a) => (keep(a), null),
      (x: unknown) => x,
    );
    expect(e).toMatchObject({ code: "remote-closed", message: expect.stringContaining("1009: a message over 1024 bytes") });
  });

  it("a server full: connect rejects (remote-closed) saying so", async () => {
    const d = await waitingDesk([]);
    const server = keep(await serve({ store: d.store, programs: [d.served], port: 0, maxConnections: 1 }));
    keep(await connect(server.url));
    const e = await connect(server.url, { reconnect: false }).then(
      (a) => (keep(a), null),
      (x: unknown) => x,
    );
    expect(e).toMatchObject({ code: "remote-closed", message: expect.stringContaining("1013: too many connections") });
  });
});
