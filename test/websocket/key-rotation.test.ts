/**
 * setKeys on a loopback server moving between no keys and keys: a
 * connection is closed only when its key no longer lets it in, never one
 * that would be let in again at once (a 4401 tells the companion to stop
 * trying for good).
 */
import { describe, expect, it } from "vitest";
import { connect, serve } from "../../adapters/websocket/index.js";
import { keeper, waitingDesk } from "./fixtures.js";

const keep = keeper();

const closeCode = (app: { on(type: "close", fn: (e: { code: number }) => void): unknown }): Promise<number | "open"> =>
  Promise.race([new Promise<number>((r) => app.on("close", (e) => r(e.code))), new Promise<"open">((r) => setTimeout(() => r("open"), 300))]);

describe("keys set on a running loopback server", () => {
  it("keys required from now on: a companion that already showed one of them stays; one without is closed (4401)", async () => {
    const d = await waitingDesk(["sam"]);
    const server = keep(await serve({ store: d.store, programs: [d.served], port: 0 }));
    const keyed = keep(await connect(server.url, { key: "k1" }));
    const bare = keep(await connect(server.url));
    const [keyedClose, bareClose] = [closeCode(keyed), closeCode(bare)];
    server.setKeys([{ key: "k1", conversations: ["ana"] }]);
    expect(await bareClose).toBe(4401);
    expect(await keyedClose).toBe("open");
    expect(await keyed.waiting()).toEqual([]); // under its key's limits now: sam is not its
  });

  it("keys dropped: companions are not closed as revoked (anyone may connect now)", async () => {
    const d = await waitingDesk(["sam"]);
    const server = keep(await serve({ store: d.store, programs: [d.served], keys: [{ key: "k1", conversations: ["ana"] }], port: 0 }));
    const app = keep(await connect(server.url, { key: "k1" }));
    const closed = closeCode(app);
    server.setKeys([]);
    expect(await closed).toBe("open");
    expect((await app.waiting()).map((w) => w.conversation)).toEqual(["sam"]); // as any connection to a keyless server
  });
});
