/**
 * A request larger than the server takes (maxPayload) is refused by the
 * companion before it is sent (input-invalid, saying the limit): sent, the
 * server would close the connection (1009), failing every other request in
 * flight with it.
 */
import { describe, expect, it } from "vitest";
import { connect, serve } from "../../adapters/websocket/index.js";
import { keeper, waitingDesk } from "./fixtures.js";

const keep = keeper();

describe("a request larger than the server's maxPayload", () => {
  it("is input-invalid at the companion; the connection and the other requests go on", async () => {
    const d = await waitingDesk(["ana"]);
    const server = keep(await serve({ store: d.store, programs: [d.served], port: 0, maxPayload: 2048 }));
    const app = keep(await connect(server.url, { maxDelayMs: 50 }));
    let closes = 0;
    app.on("close", () => closes++);
    const other = app.waiting();
    const big = app.call("desk", "é".repeat(1500)); // 1500 characters, 3000 bytes and more
    await expect(Promise.resolve(big)).rejects.toMatchObject({ code: "input-invalid", message: expect.stringContaining("2048") });
    expect((await other).map((w) => w.conversation)).toEqual(["ana"]);
    expect((await app.waiting()).map((w) => w.conversation)).toEqual(["ana"]);
    expect(closes).toBe(0);
  });
});
