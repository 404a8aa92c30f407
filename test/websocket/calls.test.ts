import { describe, expect, it } from "vitest";
import { connect, serve, type WaitingEntry } from "../../adapters/websocket/index.js";
import { memoryStore } from "../../src/testing/index.js";
import { desk, deskModel, keeper, until } from "./fixtures.js";

const keep = keeper();

async function setup() {
  const d = desk();
  const lm = deskModel();
  const store = memoryStore();
  const server = keep(await serve({ store, programs: [d.fn.using({ lm })], keys: ["k1"], port: 0 }));
  const app = keep(await connect(server.url, { key: "k1" }));
  return { ...d, lm, store, server, app };
}

describe("calling a served program", () => {
  it("approvals: caller — the approval comes to the caller's stream, whose answer the server applies", async () => {
    const { app, REFUNDS, store } = await setup();
    const s = app.call("desk", "Refund A-1042, please.", { approvals: "caller" });
    const types: string[] = [];
    for await (const e of s) {
      types.push(e.type);
      if (e.type === "approval") {
        expect(e.approval).toMatchObject({ name: "refund", input: { order_id: "A-1042", amount: 39 } });
        expect(s.pending).toHaveLength(1);
        void s.approve({ by: "caller" });
      }
    }
    expect(await s).toBe("The last tool said: refunded 39.00 for A-1042");
    expect(types).toEqual(expect.arrayContaining(["started", "tool_call", "approval", "approved", "tool_result", "done"]));
    expect(REFUNDS).toEqual([["A-1042", 39]]);
    expect(await store.list!()).toEqual([]); // the caller's call is not kept in the owner's store
    expect(await app.waiting()).toEqual([]);
  });

  it("approvals: caller — a deny's reason reaches the model", async () => {
    const { app, REFUNDS } = await setup();
    const s = app.call("desk", { message: "Refund A-1042." }, { approvals: "caller" });
    for await (const e of s) if (e.type === "approval") void s.deny("over the limit");
    expect(await s).toBe("The last tool said: The person did not allow this call. Reason: over the limit");
    expect(REFUNDS).toEqual([]);
  });

  it("approvals: owner (default) — the call waits in a conversation of the store, and the owner's companion answers it", async () => {
    const { app, server, REFUNDS } = await setup();
    const owner = keep(await connect(server.url, { key: "k1" }));
    let list: WaitingEntry[] = [];
    owner.on("waiting", (w) => (list = w));
    const s = app.call("desk", "Refund A-1042.", { conversation: "web-1" });
    const err = await Promise.resolve(s).then(() => null, (e: unknown) => e);
    expect(err).toMatchObject({ code: "turn-waiting" });
    expect((err as { approvals: unknown[] }).approvals).toHaveLength(1);
    expect(s.conversation).toBe("web-1");
    await until(() => list.length === 1);
    expect(list[0]).toMatchObject({ conversation: "web-1", program: "desk", state: "waiting" });
    expect(await owner.approve({ conversation: "web-1", turn: list[0]!.turn, by: "owner" })).toBe("The last tool said: refunded 39.00 for A-1042");
    expect(REFUNDS).toEqual([["A-1042", 39]]);
  });

  it("refuses an unknown program and an input the program does not take, running nothing", async () => {
    const { app, lm } = await setup();
    await expect(app.call("nope", "x", { approvals: "caller" })).rejects.toMatchObject({ code: "remote-unknown-program" });
    await expect(app.call("desk", { wrong: 1 }, { approvals: "caller" })).rejects.toMatchObject({ code: "input-invalid" });
    expect(lm.requests).toHaveLength(0);
  });

  it("a caller call stops when its caller goes away (nobody is left to answer)", async () => {
    const { app, server, REFUNDS } = await setup();
    const s = app.call("desk", "Refund A-1042.", { approvals: "caller" });
    for await (const e of s) if (e.type === "approval") break;
    await app.close();
    await until(() => server.connections === 0);
    // the server waits (up to 5 s) for turns it still runs: a stopped call lets it close at once
    const started = Date.now();
    await server.close();
    expect(Date.now() - started).toBeLessThan(2000);
    expect(REFUNDS).toEqual([]);
  });
});
