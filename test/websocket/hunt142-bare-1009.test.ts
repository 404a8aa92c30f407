/**
 * A companion's socket that refuses a message too large and says only 1009 (a browser's: its error event carries no
 * cause, and its close is the bare 1009 the server echoes) was taken for a connection that merely dropped: the
 * companion reconnected, was sent the same waiting list and dropped again, for ever, told a bare 1009 each time; one
 * whose welcome was too large was retried for ever as a server that closed. A 1009 with no reason is now read as a
 * message too large here (the server's own limit always says why): told with a reason, no reconnect, every later
 * request refused `remote-protocol` saying why; `app.open()` tries again.
 */
import { describe, expect, it } from "vitest";
import { connect, serve, type SocketConstructor } from "../../adapters/websocket/index.js";
import { keeper, until, waitingDesk, WrappedSocket } from "./fixtures.js";

const keep = keeper();

/**
 * A socket that refuses a message over `max` bytes as a browser may: it closes 1009 itself and waits for the server's
 * answer (the same code, no reason), its error event carrying no cause. (`ws` stops reading instead, and says 1006.)
 */
const refusingAt = (max: number) =>
  class extends WrappedSocket {
    override addEventListener(type: "open" | "error" | "message" | "close", listener: (e: never) => void): void {
      if (type !== "message") return super.addEventListener(type, listener);
      this.ws.addEventListener("message", (e) => {
        if (String(e.data).length > max) return this.ws.close(1009);
        (listener as (e: { data: unknown }) => void)(e);
      });
    }
  } as unknown as SocketConstructor;

describe("a 1009 close with no reason", () => {
  it("after the welcome (the waiting list too large here): told with a reason, and not reconnected to for ever", async () => {
    const d = await waitingDesk(["sam"]);
    const server = keep(await serve({ store: d.store, programs: [d.served], port: 0 }));
    let welcomes = 0;
    // (a welcome fits in 200 bytes; a waiting list with an approval does not)
    const app = keep(await connect(server.url, { WebSocket: refusingAt(200), maxDelayMs: 50 }));
    app.on("reconnect", () => welcomes++);
    const closes: { code: number; reason: string }[] = [];
    app.on("close", (e) => closes.push(e));
    await until(() => closes.length > 0);
    expect(closes[0]!.code).toBe(1009);
    expect(closes[0]!.reason).toMatch(/too large/);
    // refused for good, saying why (a companion reconnecting would say "not connected", remote-closed)
    const e = await app.waiting().catch((x: unknown) => x as { code?: string; message?: string });
    expect(e).toMatchObject({ code: "remote-protocol" });
    expect((e as { message: string }).message).toMatch(/1009/);
    await until(() => server.connections === 0);
    expect(welcomes).toBe(0);
    expect(closes).toHaveLength(1);
  });

  it("before the welcome (the welcome itself too large here): connect() is refused for good (remote-protocol), not as a server that closed", async () => {
    const d = await waitingDesk([]);
    const server = keep(await serve({ store: d.store, programs: [d.served], port: 0 }));
    const e = await connect(server.url, { WebSocket: refusingAt(20) }).catch((x: unknown) => x as { code?: string; message?: string });
    expect(e).toMatchObject({ code: "remote-protocol" });
    expect((e as { message: string }).message).toMatch(/too large/);
  });
});
