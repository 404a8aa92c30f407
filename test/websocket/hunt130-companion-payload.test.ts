/**
 * A frame from the server larger than the companion's own socket takes (its `maxPayload`: `ws` closes 1009 itself,
 * saying no reason) dropped the connection; the companion reconnected, was sent the same list (or the same events
 * again) and dropped again, for ever, its user told only a bare 1009 each time. It now says what happened (the
 * `close` listener's reason; every request later refused `remote-protocol`, saying why) and stops reconnecting:
 * `app.open()` tries again.
 */
import { describe, expect, it } from "vitest";
import { WebSocket as WsSocket } from "ws";
import { connect, serve, type SocketConstructor } from "../../adapters/websocket/index.js";
import { keeper, until, waitingDesk } from "./fixtures.js";

const keep = keeper();

/** `ws`, taking at most 200 bytes a message (a welcome fits; a waiting list with an approval does not). */
class SmallSocket extends WsSocket {
  constructor(url: string) {
    super(url, { maxPayload: 200 });
  }
}

describe("a frame past the companion's own maxPayload", () => {
  it("is told, with a reason, and not reconnected to for ever", async () => {
    const d = await waitingDesk(["sam"]);
    const server = keep(await serve({ store: d.store, programs: [d.served], port: 0 }));
    let welcomes = 0;
    const app = keep(await connect(server.url, { WebSocket: SmallSocket as unknown as SocketConstructor, maxDelayMs: 50 }));
    app.on("reconnect", () => welcomes++);
    const closes: { code: number; reason: string }[] = [];
    app.on("close", (e) => closes.push(e));
    await until(() => closes.length > 0);
    expect(closes[0]).toMatchObject({ code: 1009 });
    expect(closes[0]!.reason).toMatch(/larger than this companion takes/);
    const e = await app.waiting().catch((x: unknown) => x as { code?: string; message?: string });
    expect(e).toMatchObject({ code: "remote-protocol" });
    expect((e as { message: string }).message).toMatch(/1009/);
    expect(welcomes).toBe(0);
  });
});
