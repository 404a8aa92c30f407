/**
 * A companion's listener that throws (a bug in the user's own code): the
 * other listeners are still told, the throw is reported, and the connection
 * goes on reading (it used to escape into the socket's message handler: an
 * uncaught exception, and every later reply lost).
 */
import { describe, expect, it, vi } from "vitest";
import { connect, serve } from "../../adapters/websocket/index.js";
import { keeper, proxy, until, waitingDesk } from "./fixtures.js";

const keep = keeper();

describe("a listener that throws", () => {
  it("waiting: the next listener is told, the throw is reported, and replies still come", async () => {
    const reported = vi.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      const d = await waitingDesk(["ana"]);
      const server = keep(await serve({ store: d.store, programs: [d.served], port: 0, pollMs: 20 }));
      const app = keep(await connect(server.url));
      const got: number[] = [];
      app.on("waiting", () => {
        throw new Error("a bug in the listener");
      });
      app.on("waiting", (w) => got.push(w.length));
      await d.served.conversation("bob", { store: d.store, approve: "changes" }).send("Order A-1042 never arrived. Refund it, please.").catch(() => undefined);
      await until(() => got.includes(2));
      expect((await app.waiting()).map((w) => w.conversation)).toEqual(["ana", "bob"]);
      expect(reported).toHaveBeenCalledWith('[functai/websocket] a "waiting" listener threw:', expect.objectContaining({ message: "a bug in the listener" }));
    } finally {
      reported.mockRestore();
    }
  });

  it("close: the companion still reconnects", async () => {
    const reported = vi.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      const d = await waitingDesk(["ana"]);
      const server = keep(await serve({ store: d.store, programs: [d.served], port: 0 }));
      const net = keep(await proxy(server.port));
      const app = keep(await connect(net.url, { maxDelayMs: 50 }));
      let reconnects = 0;
      const off = app.on("close", () => {
        throw new Error("a bug in the listener");
      });
      app.on("reconnect", () => reconnects++);
      net.cut();
      await until(() => reconnects === 1);
      expect((await app.waiting()).map((w) => w.conversation)).toEqual(["ana"]);
      expect(reported).toHaveBeenCalledWith('[functai/websocket] a "close" listener threw:', expect.objectContaining({ message: "a bug in the listener" }));
      off(); // (the keeper's close after the test would call it again)
    } finally {
      reported.mockRestore();
    }
  });
});
