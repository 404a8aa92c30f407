/**
 * `open()` is public on a Companion (`new Companion(url, options)`, then
 * `open()`): opening one that is open, or being opened, makes no second
 * connection (the first would be left open by `close()`, holding the
 * server's slot and the process), and one that was closed is not opened
 * again behind a misleading error.
 */
import { describe, expect, it } from "vitest";
import { Companion, connect, serve } from "../../adapters/websocket/index.js";
import { keeper, until, waitingDesk } from "./fixtures.js";

const keep = keeper();

describe("open() on a companion", () => {
  it("already open, or twice at once: one connection, and close() leaves none", async () => {
    const d = await waitingDesk(["sam"]);
    const server = keep(await serve({ store: d.store, programs: [d.served], port: 0 }));
    const app = await connect(server.url);
    await app.open();
    expect(server.connections).toBe(1);
    await app.close();
    await until(() => server.connections === 0);

    const b = new Companion(server.url, {});
    await Promise.all([b.open(), b.open()]);
    expect(server.connections).toBe(1);
    expect(await b.waiting()).toHaveLength(1);
    await b.close();
    await until(() => server.connections === 0);
  });

  it("after the connection dropped (reconnect: false): connects again, once, and says it reconnected", async () => {
    const d = await waitingDesk(["sam"]);
    const first = await serve({ store: d.store, programs: [d.served], port: 0 });
    const app = keep(await connect(first.url, { reconnect: false }));
    let reconnects = 0;
    app.on("reconnect", () => reconnects++);
    const closed = new Promise((r) => app.on("close", r));
    await first.close();
    await closed;
    const second = keep(await serve({ store: d.store, programs: [d.served], port: first.port }));
    await Promise.all([app.open(), app.open()]);
    expect(second.connections).toBe(1);
    expect(reconnects).toBe(1);
    expect(await app.waiting()).toHaveLength(1);
  });

  it("after close(): refused (remote-closed, saying it was closed), without connecting", async () => {
    const d = await waitingDesk(["sam"]);
    const server = keep(await serve({ store: d.store, programs: [d.served], port: 0 }));
    const app = await connect(server.url);
    await app.close();
    await until(() => server.connections === 0);
    const r = await app.open().then(
      () => "opened",
      (e: unknown) => e,
    );
    expect(r).toMatchObject({ code: "remote-closed", message: expect.stringContaining("closed (app.close())") });
    expect(server.connections).toBe(0);
  });
});
