/**
 * An approve or deny without an approval id answers what its companion
 * showed (`shown` on the wire), never an approval the turn went on to ask
 * for since, unseen: another companion (on this server or another one on
 * the same store) may have answered first, or the answer is a retry after
 * a dropped connection.
 */
import { describe, expect, it } from "vitest";
import { connect, serve } from "../../adapters/websocket/index.js";
import { readConversation } from "../../src/index.js";
import { keeper, proxy, until } from "./fixtures.js";
import { rawClient, twoStepDesk } from "./fixtures/hunt25-kit.js";

const keep = keeper();
const settle = <T>(p: PromiseLike<T>) =>
  Promise.resolve(p).then(
    (v) => ({ v }),
    (e: unknown) => ({ e }),
  );

describe("an answer without an approval id", () => {
  it("on the wire, with `shown`: refused (approval-answered) once the turn went on to ask for another tool; that tool is not run", async () => {
    const d = await twoStepDesk();
    const server = keep(await serve({ store: d.store, programs: [d.fn], port: 0 }));
    const a = await rawClient(server.url, "");
    keep({ close: a.close });
    const list = (await a.ask({ type: "waiting", id: "w1" })).result as { turn: string; approvals: { id: string; name: string }[] }[];
    const refundId = list[0]!.approvals[0]!.id;
    const ref = { conversation: "sam", turn: list[0]!.turn };
    // another companion approves the refund first; the turn goes on and waits for the email
    const b = keep(await connect(server.url));
    await expect(Promise.resolve(b.approve({ ...ref, id: refundId }))).rejects.toMatchObject({ code: "turn-waiting" });
    // a's person saw the refund, and says yes to "it" (no id)
    const late = await a.ask({ type: "approve", id: "a1", ...ref, shown: [refundId], by: "ana" });
    expect(late).toMatchObject({ type: "error", code: "approval-answered" });
    expect(d.RAN).toEqual(["refund A-1042"]);
    expect((await b.waiting())[0]!.approvals.map((x) => x.name)).toEqual(["email"]);
    // without `shown` (an older companion) it answers what waits when it arrives, as documented
    const old = await a.ask({ type: "approve", id: "a2", ...ref, by: "ana" });
    expect(old).toMatchObject({ type: "reply", result: { state: "done" } });
    expect(d.RAN).toEqual(["refund A-1042", "email On its way."]);
  });

  it("over two servers on one store: a companion whose server has not seen the turn move on does not approve the tool it asks for now", async () => {
    const d = await twoStepDesk();
    const s1 = keep(await serve({ store: d.store, programs: [d.fn], port: 0 }));
    // the second server polls the store rarely: its companion still shows the refund after the turn moved on
    const s2 = keep(await serve({ store: d.store, programs: [d.fn], port: 0, pollMs: 60_000 }));
    const a = keep(await connect(s2.url));
    const b = keep(await connect(s1.url));
    const [w] = await a.waiting();
    const ref = { conversation: "sam", turn: w!.turn };
    expect(w!.approvals.map((x) => x.name)).toEqual(["refund"]);
    await expect(Promise.resolve(b.approve({ ...ref, by: "bo" }))).rejects.toMatchObject({ code: "turn-waiting" });
    expect(a.last[0]!.approvals.map((x) => x.name)).toEqual(["refund"]); // (what a's person sees)
    const r = await settle(a.approve({ ...ref, by: "ana" }));
    expect(d.RAN).toEqual(["refund A-1042"]);
    expect(r).toMatchObject({ e: { code: "approval-answered" } });
    // once a's companion shows the email, a's person may approve it without an id
    await until(async () => (await a.waiting()).some((x) => x.approvals.some((y) => y.name === "email")));
    expect(await a.approve({ ...ref, by: "ana" })).toBe("Done.");
    expect(d.RAN).toEqual(["refund A-1042", "email On its way."]);
    const turn = readConversation(await d.store.read("sam"), { now: Date.now() }).turns.get(w!.turn)!;
    expect(turn.answers.map((x) => x.by)).toEqual(["bo", "ana"]);
  });

  it("answered, then again at once when the turn waits for the next tool: the second answers that tool (the outcome showed it)", async () => {
    const d = await twoStepDesk();
    // no poll to speak of: the pushed list comes after each reply, so only the outcome tells the companion what waits next
    const server = keep(await serve({ store: d.store, programs: [d.fn], port: 0, pollMs: 60_000 }));
    const app = keep(await connect(server.url));
    const [w] = await app.waiting();
    const ref = { conversation: "sam", turn: w!.turn };
    const first = await settle(app.approve(ref));
    expect(first).toMatchObject({ e: { code: "turn-waiting", approvals: [{ name: "email" }] } });
    expect(await app.approve(ref)).toBe("Done.");
    expect(d.RAN).toEqual(["refund A-1042", "email On its way."]);
  });

  it("lost before the server got it (the network cut under it): the retry answers the approval shown, which still waits", async () => {
    const d = await twoStepDesk();
    const server = keep(await serve({ store: d.store, programs: [d.fn], port: 0 }));
    const net = keep(await proxy(server.port));
    const app = keep(await connect(net.url, { maxDelayMs: 50 }));
    let reconnects = 0;
    app.on("reconnect", () => reconnects++);
    const [w] = await app.waiting();
    const ref = { conversation: "sam", turn: w!.turn };
    net.cut();
    const lost = await settle(app.approve(ref)); // written to a socket whose peer is gone
    expect(lost).toMatchObject({ e: { code: "remote-closed" } });
    expect(d.RAN).toEqual([]);
    await until(() => reconnects === 1);
    const retry = await settle(app.approve(ref));
    expect(retry).toMatchObject({ e: { code: "turn-waiting", approvals: [{ name: "email" }] } });
    expect(d.RAN).toEqual(["refund A-1042"]);
  });
});
