/**
 * A companion keeps within the server's `maxRuns` (its welcome says it):
 * a request that runs a turn past it waits for room rather than being
 * refused; one of those cancelled while it waits is never sent.
 */
import { describe, expect, it } from "vitest";
import { connect, serve } from "../../adapters/websocket/index.js";
import { keeper, proxy, until, waitingDesk } from "./fixtures.js";

const keep = keeper();

describe("requests that run a turn, past the server's maxRuns", () => {
  it("wait for room and then run, where the server refused them", async () => {
    const d = await waitingDesk([]);
    const server = keep(await serve({ store: d.store, programs: [d.served], port: 0, maxRuns: 1 }));
    const app = keep(await connect(server.url, { reconnect: false }));
    const first = app.call("desk", { message: "Order A-1042 never arrived. Refund it, please." }, { approvals: "caller" });
    await until(() => first.pending.length === 1); // it waits for the caller's approval, holding the one run
    const second = app.call("desk", { message: "Order A-1042 never arrived. Refund it, please." }, { approvals: "caller" });
    await new Promise((r) => setTimeout(r, 200));
    expect(d.LOOKUPS).toHaveLength(1); // held, not run beside the first
    await first.approve();
    expect(await first).toBe("The last tool said: refunded 39.00 for A-1042");
    await until(() => second.pending.length === 1);
    await second.approve();
    expect(await second).toBe("The last tool said: refunded 39.00 for A-1042");
    expect(d.REFUNDS).toHaveLength(2);
  }, 20_000);

  it("one cancelled while it waits is never sent: it reads turn-aborted and nothing of it runs", async () => {
    const d = await waitingDesk([]);
    const server = keep(await serve({ store: d.store, programs: [d.served], port: 0, maxRuns: 1 }));
    const app = keep(await connect(server.url, { reconnect: false }));
    const first = app.call("desk", { message: "Order A-1042 never arrived. Refund it, please." }, { approvals: "caller" });
    await until(() => first.pending.length === 1);
    const second = app.call("desk", { message: "Order A-1042 never arrived. Refund it, please." }, { approvals: "caller" });
    second.abort();
    await expect(second.outcome).rejects.toMatchObject({ code: "turn-aborted" });
    await first.approve();
    await first;
    await new Promise((r) => setTimeout(r, 300));
    expect(d.LOOKUPS).toHaveLength(1);
    expect(d.REFUNDS).toHaveLength(1);
  }, 20_000);

  it("one held when the connection drops was never sent: remote-closed saying so, and it is not sent after the reconnect", async () => {
    const d = await waitingDesk([]);
    const server = keep(await serve({ store: d.store, programs: [d.served], port: 0, maxRuns: 1 }));
    const net = keep(await proxy(server.port));
    const app = keep(await connect(net.url, { maxDelayMs: 50 }));
    let reconnected = false;
    app.on("reconnect", () => (reconnected = true));
    const first = app.call("desk", { message: "Order A-1042 never arrived. Refund it, please." }, { approvals: "caller" });
    await until(() => first.pending.length === 1);
    const second = app.call("desk", { message: "Order A-1042 never arrived. Refund it, please." }, { approvals: "caller" });
    net.cut();
    const e = await second.outcome.then(
      () => null,
      (x: unknown) => x,
    );
    expect(e).toMatchObject({ code: "remote-closed" });
    expect(String((e as Error).message)).toContain("nothing was sent");
    await expect(first.outcome).rejects.toMatchObject({ code: "remote-closed" });
    await until(() => reconnected);
    await new Promise((r) => setTimeout(r, 300));
    expect(d.LOOKUPS).toHaveLength(1); // the first only (stopped in the server with its connection)
  }, 20_000);
});
