import { describe, expect, it } from "vitest";
import { connect, serve, type WaitingEntry, type WebSocketServerHandle, type Companion } from "../../adapters/websocket/index.js";
import { readConversation } from "../../src/index.js";
import { keeper, until, waitingDesk } from "./fixtures.js";

const keep = keeper();

async function setup(ids?: string[]) {
  const d = await waitingDesk(ids);
  const server: WebSocketServerHandle = keep(await serve({ store: d.store, programs: [d.served], keys: ["k1"], port: 0 }));
  const app: Companion = keep(await connect(server.url, { key: "k1" }));
  return { ...d, server, app };
}

describe("remote approval: a conversation's turn", () => {
  it("is listed, approved by a companion and finished by the server; the tool ran once", async () => {
    const { app, REFUNDS, LOOKUPS, lm, store } = await setup();
    expect(app.last).toHaveLength(1); // pushed right after the hello
    const [w] = await app.waiting();
    expect(w).toMatchObject({ conversation: "sam", program: "desk", state: "waiting" });
    expect(w!.approvals.map((a) => [a.name, a.input, a.path])).toEqual([["refund", { order_id: "A-1042", amount: 39 }, "desk/refund"]]);

    const s = app.approve({ conversation: "sam", turn: w!.turn, by: "maria" });
    const types: string[] = [];
    for await (const e of s) types.push(e.type);
    expect(await s).toBe("The last tool said: refunded 39.00 for A-1042");
    expect(types).toContain("tool_result");
    expect(types).toContain("done");
    expect(REFUNDS).toEqual([["A-1042", 39]]);
    expect(LOOKUPS).toEqual(["A-1042"]); // the lookup before the wait was not run again
    expect(lm.requests).toHaveLength(3); // the two replies before the wait were not paid twice

    const state = readConversation(await store.read("sam"), { now: Date.now() });
    const turn = state.turns.get(w!.turn)!;
    expect(turn.state).toBe("done");
    expect(turn.answers.map((a) => [a.verdict, a.by])).toEqual([["yes", "maria"]]);
    expect(await app.waiting()).toEqual([]);
  });

  it("deny with a reason reaches the model", async () => {
    const { app, REFUNDS } = await setup();
    const [w] = await app.waiting();
    const answer = await app.deny({ conversation: "sam", turn: w!.turn, reason: "not today", by: "maria" });
    expect(answer).toBe("The last tool said: The person did not allow this call. Reason: not today");
    expect(REFUNDS).toEqual([]);
  });

  it("pushes the waiting list live as turns start and stop waiting", async () => {
    const { app, served, store } = await setup(["sam"]);
    const seen: WaitingEntry[][] = [];
    app.on("waiting", (list) => seen.push(list));
    // another process (here: the test) sends a turn that waits
    await served.conversation("ana", { store, approve: "changes" }).send("Refund A-1042.").catch(() => undefined);
    await until(() => seen.at(-1)?.length === 2);
    expect(seen.at(-1)!.map((w) => w.conversation).sort()).toEqual(["ana", "sam"]);
    const ana = seen.at(-1)!.find((w) => w.conversation === "ana")!;
    await app.approve({ conversation: "ana", turn: ana.turn, by: "maria" });
    await until(() => seen.at(-1)?.length === 1);
    expect(seen.at(-1)![0]!.conversation).toBe("sam");
  });

  it("subscribers see the events of a turn another companion answered", async () => {
    const { app, server } = await setup();
    const watcher = keep(await connect(server.url, { key: "k1" }));
    const events: string[] = [];
    watcher.on("event", ({ conversation, event }) => events.push(`${conversation}:${event.type}`));
    await until(async () => (await watcher.waiting()).length === 1); // the subscribe went first on the same socket
    const [w] = await app.waiting();
    await app.approve({ conversation: "sam", turn: w!.turn });
    await until(() => events.includes("sam:done"));
    expect(events).toContain("sam:tool_result");
  });

  it("an approval answered already is refused with approval-answered", async () => {
    const { app } = await setup();
    const [w] = await app.waiting();
    await app.approve({ conversation: "sam", turn: w!.turn });
    const again = await app.approve({ conversation: "sam", turn: w!.turn }).then(() => null, (e: unknown) => e);
    expect(again).toMatchObject({ code: "approval-answered" });
  });
});
