/**
 * A companion that sent a yes and lost its connection before the reply, then
 * reconnects and sends the same yes again (a retry): the tool runs once and
 * the retry gets a clear answer, never silence.
 */
import { describe, expect, it } from "vitest";
import { connect, serve } from "../../adapters/websocket/index.js";
import { readConversation } from "../../src/index.js";
import { keeper, proxy, until, waitingDesk } from "./fixtures.js";
import { twoStepDesk } from "./fixtures/hunt25-kit.js";

const keep = keeper();

/** Approves through a proxy and cuts the network once the server said the yes was kept (the `approved` event): the reply never comes. */
async function approveThenCut(
  app: Awaited<ReturnType<typeof connect>>,
  net: { cut(): void },
  ref: { conversation: string; turn: string; id?: string },
) {
  const s = app.approve({ ...ref, by: "maria" });
  const seen: string[] = [];
  const iterated = (async () => {
    for await (const e of s) {
      seen.push(e.type);
      if (e.type === "approved") net.cut();
    }
  })().then(
    () => null,
    (e: unknown) => e,
  );
  expect(await iterated).toMatchObject({ code: "remote-closed" });
  expect(seen).toContain("approved");
}

describe("a yes sent again after the connection dropped before its reply", () => {
  it("while the turn runs and after it is done: the retry is refused with approval-answered, the refund ran once", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const d = await waitingDesk(["sam"], { gate });
    const server = keep(await serve({ store: d.store, programs: [d.served], keys: ["k1"], port: 0 }));
    const net = keep(await proxy(server.port));
    const app = keep(await connect(net.url, { key: "k1", maxDelayMs: 50 }));
    let reconnects = 0;
    app.on("reconnect", () => reconnects++);
    const [w] = await app.waiting();
    const ref = { conversation: "sam", turn: w!.turn };
    await approveThenCut(app, net, ref);
    await until(() => reconnects === 1);
    // the refund is held at its gate: the turn runs in the server
    await expect(Promise.resolve(app.approve(ref))).rejects.toMatchObject({ code: "approval-answered" });
    release();
    await until(async () => (await app.status(ref)).state === "done");
    await expect(Promise.resolve(app.approve(ref))).rejects.toMatchObject({ code: "approval-answered" });
    await expect(Promise.resolve(app.deny({ ...ref, reason: "changed my mind" }))).rejects.toMatchObject({ code: "approval-answered" });
    expect(d.REFUNDS).toEqual([["A-1042", 39]]);
    expect(d.lm.requests).toHaveLength(3);
    const turn = readConversation(await d.store.read("sam"), { now: Date.now() }).turns.get(w!.turn)!;
    expect(turn.answers).toHaveLength(1);
  });

  it("by the approval's id: a retry after the turn went on to wait for another tool is refused, and that tool is not approved", async () => {
    const d = await twoStepDesk(["sam"], { gate: true });
    const server = keep(await serve({ store: d.store, programs: [d.fn], port: 0 }));
    const net = keep(await proxy(server.port));
    const app = keep(await connect(net.url, { maxDelayMs: 50 }));
    const [w] = await app.waiting();
    const ref = { conversation: "sam", turn: w!.turn, id: w!.approvals[0]!.id };
    await approveThenCut(app, net, ref);
    d.release();
    // (asked until the companion is back and the turn waits for the email)
    await until(async () => (await app.waiting().catch(() => [])).some((x) => x.approvals.some((a) => a.name === "email")));
    await expect(Promise.resolve(app.approve(ref))).rejects.toMatchObject({ code: "approval-answered" });
    expect(d.RAN).toEqual(["refund A-1042"]);
    expect((await app.waiting())[0]!.approvals.map((a) => a.name)).toEqual(["email"]);
  });

  // A retried yes without an approval id once answered an approval the person never saw: they approved the refund (no
  // `id`, as the README's example did until 2026-12-03); the connection dropped before the reply; meanwhile the turn
  // went on and waited for the email, and the retry was taken as "yes to all that waits now", so the email was sent
  // unseen. Now an id-less answer carries the approvals its companion showed (`shown`), and a retry of one whose reply
  // was lost is held to what the first was held to (client/connect.ts): the server answers only those (runner.ts).
  it("without an id: a retry after the turn went on to wait for another tool does not approve that tool", async () => {
    const d = await twoStepDesk(["sam"], { gate: true });
    const server = keep(await serve({ store: d.store, programs: [d.fn], port: 0 }));
    const net = keep(await proxy(server.port));
    const app = keep(await connect(net.url, { maxDelayMs: 50 }));
    const [w] = await app.waiting();
    const ref = { conversation: "sam", turn: w!.turn };
    await approveThenCut(app, net, ref);
    d.release();
    // (asked until the companion is back and the turn waits for the email)
    await until(async () => (await app.waiting().catch(() => [])).some((x) => x.approvals.some((a) => a.name === "email")));
    const retry = await Promise.resolve(app.approve(ref)).then(
      (v) => ({ v }),
      (e: unknown) => ({ e }),
    );
    expect(d.RAN).toEqual(["refund A-1042"]);
    expect(retry).toMatchObject({ e: { code: "approval-answered" } });
  });
});
