/**
 * A key narrowed by `setKeys` while one of its caller calls waits for the
 * caller's answer: the key may no longer use that program, and a key
 * "answers only its programs' turns, under its limits as they are when the
 * answer is sent". Its yes was taken all the same, and the changing tool
 * ran (a key whose program was taken away, say because it leaked, still
 * approved a refund). It is refused (`remote-forbidden`), nothing runs, and
 * the call can still be stopped.
 */
import { describe, expect, it } from "vitest";
import { connect, serve } from "../../adapters/websocket/index.js";
import { isFunctaiError } from "../../src/index.js";
import { keeper, until, waitingDesk } from "./fixtures.js";

const keep = keeper();

describe("a caller call whose key loses its program while the call waits", () => {
  it("refuses the caller's answer (remote-forbidden): the changing tool does not run", async () => {
    const d = await waitingDesk([]);
    const server = keep(await serve({ store: d.store, programs: [d.served], keys: ["admin", "k2"], port: 0 }));
    const app = keep(await connect(server.url, { key: "k2" }));
    const s = app.call("desk", { message: "Order A-1042 never arrived. Refund it, please." }, { approvals: "caller" });
    await until(() => s.pending.length === 1);
    server.setKeys(["admin", { key: "k2", programs: [] }]);
    await until(() => app.programs.length === 0); // told it may call nothing now
    const answered = await s.approve({ by: "k2" }).then(
      () => "taken",
      (e: unknown) => e,
    );
    expect(isFunctaiError(answered) && answered.code).toBe("remote-forbidden");
    await new Promise((r) => setTimeout(r, 200));
    expect(d.REFUNDS).toEqual([]);
    s.abort();
    expect((await s.outcome).state).toBe("stopped");
    expect(d.REFUNDS).toEqual([]);
  });

  it("refuses it too once the key is limited to some conversations (where only owner calls run)", async () => {
    const d = await waitingDesk([]);
    const server = keep(await serve({ store: d.store, programs: [d.served], keys: ["admin", "k2"], port: 0 }));
    const app = keep(await connect(server.url, { key: "k2" }));
    const s = app.call("desk", { message: "Order A-1042 never arrived. Refund it, please." }, { approvals: "caller" });
    await until(() => s.pending.length === 1);
    server.setKeys(["admin", { key: "k2", conversations: ["sam"] }]);
    await new Promise((r) => setTimeout(r, 100));
    await expect(s.approve({ by: "k2" })).rejects.toMatchObject({ code: "remote-forbidden" });
    await expect(s.deny("no", { by: "k2" })).rejects.toMatchObject({ code: "remote-forbidden" });
    s.abort();
    expect((await s.outcome).state).toBe("stopped");
    expect(d.REFUNDS).toEqual([]);
  });

  it("an unchanged key still answers its call", async () => {
    const d = await waitingDesk([]);
    const server = keep(await serve({ store: d.store, programs: [d.served], keys: ["admin", { key: "k2", programs: ["desk"] }], port: 0 }));
    const app = keep(await connect(server.url, { key: "k2" }));
    const s = app.call("desk", { message: "Order A-1042 never arrived. Refund it, please." }, { approvals: "caller" });
    await until(() => s.pending.length === 1);
    server.setKeys(["admin", { key: "k2", programs: ["desk", "shop"] }]);
    await s.approve({ by: "k2" });
    expect(await s).toBe("The last tool said: refunded 39.00 for A-1042");
    expect(d.REFUNDS).toEqual([["A-1042", 39]]);
  });
});
