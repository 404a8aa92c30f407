/**
 * A companion whose key the server revoked while it was connected is closed
 * 4401 and does not reconnect (the key will not start working). Every later
 * request then failed "not connected" (remote-closed), as though the network
 * were down and a retry might help; a refused protocol version already says
 * its refusal. Now each later request is refused with remote-auth, saying the
 * key was revoked; `open()` asks again (a key set back is let in).
 */
import { describe, expect, it } from "vitest";
import { connect, serve } from "../../adapters/websocket/index.js";
import { keeper, waitingDesk } from "./fixtures.js";

const keep = keeper();

describe("a companion whose key was revoked while it was connected", () => {
  it("is refused remote-auth at each later request (it was remote-closed, not connected), nothing sent; open() asks again", async () => {
    const d = await waitingDesk(["sam"]);
    const server = keep(await serve({ store: d.store, programs: [d.served], keys: ["k1", "k2"], port: 0 }));
    const app = keep(await connect(server.url, { key: "k2", maxDelayMs: 50 }));
    const [w] = await app.waiting();
    const closed = new Promise<number>((r) => app.on("close", (e) => r(e.code)));
    server.setKeys(["k1"]);
    expect(await closed).toBe(4401);
    const read = await app.waiting().catch((e: unknown) => e);
    expect(read).toMatchObject({ code: "remote-auth" });
    expect((read as Error).message).toContain("revoked");
    await expect(Promise.resolve(app.approve({ conversation: "sam", turn: w!.turn }))).rejects.toMatchObject({ code: "remote-auth" });
    expect(d.REFUNDS).toEqual([]);
    // the key given back, the companion asked to open again is let in
    server.setKeys(["k1", "k2"]);
    await app.open();
    expect((await app.waiting()).map((x) => x.conversation)).toEqual(["sam"]);
  });
});
