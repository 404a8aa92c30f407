/**
 * An owner call (a turn the server runs in a conversation of its store) whose
 * connection dropped before its reply, sent again: it started a SECOND turn
 * (a second refund, the model paid twice), as the `call` frame carried no
 * key. A call may now say `key` (a request id, as `send(input, { key })`
 * takes): one with a key the conversation already holds starts nothing and
 * answers as that turn does (its answer, or the approvals it waits for).
 */
import { describe, expect, it } from "vitest";
import { connect, serve } from "../../adapters/websocket/index.js";
import { keeper, proxy, until, waitingDesk } from "./fixtures.js";
import { rawClient } from "./fixtures/hunt25-kit.js";
import { readConversation } from "../../src/index.js";
import type { Store } from "../../src/store/types.js";

const keep = keeper();
const MESSAGE = { message: "Order A-1042 never arrived. Refund it, please." };

const turnsOf = async (store: Store, conversation: string) => [
  ...readConversation(await store.read(conversation), { now: Date.now() }).turns.values(),
];

/** The desk with its refund held at a gate until `release`, served with no approvals asked (`keys`: its keys). */
async function heldDesk(keys?: string[]) {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const d = await waitingDesk([], { gate });
  const server = keep(await serve({ store: d.store, programs: [d.served], ...(keys ? { keys } : {}), port: 0, settings: { approve: null } }));
  return { d, server, release };
}

describe("an owner call with a key, sent again after its connection dropped", () => {
  it("once its turn is done: answered with that turn's answer, nothing run again", async () => {
    const { d, server, release } = await heldDesk();
    const first = await rawClient(server.url, "");
    first.send({ type: "call", id: "c1", program: "desk", input: MESSAGE, conversation: "sam", key: "refund-A-1042" });
    await until(async () => (await turnsOf(d.store, "sam")).length === 1);
    await first.close(); // the connection drops before the reply
    release();
    await until(async () => (await turnsOf(d.store, "sam"))[0]?.state === "done");
    const again = keep(await rawClient(server.url, ""));
    const reply = await again.ask({ type: "call", id: "c1", program: "desk", input: MESSAGE, conversation: "sam", key: "refund-A-1042" });
    const [turn] = await turnsOf(d.store, "sam");
    expect(reply).toMatchObject({ type: "reply", id: "c1", result: { conversation: "sam", turn: turn!.id, state: "done" } });
    expect(await turnsOf(d.store, "sam")).toHaveLength(1);
    expect(d.REFUNDS).toEqual([["A-1042", 39]]);
    expect(d.lm.requests).toHaveLength(3);
  }, 20_000);

  it("while its turn still runs: the retry waits for it and answers as it does, one refund", async () => {
    const { d, server, release } = await heldDesk();
    const first = await rawClient(server.url, "");
    first.send({ type: "call", id: "c1", program: "desk", input: MESSAGE, conversation: "sam", key: "refund-A-1042" });
    await until(() => d.lm.requests.length === 2); // the refund was asked for: it is held at its gate
    await first.close();
    const again = keep(await rawClient(server.url, ""));
    again.send({ type: "call", id: "c1", program: "desk", input: MESSAGE, conversation: "sam", key: "refund-A-1042" });
    release();
    const reply = await again.answerTo("c1", 10_000);
    const turns = await turnsOf(d.store, "sam");
    expect(turns).toHaveLength(1);
    expect(reply).toMatchObject({ type: "reply", id: "c1", result: { conversation: "sam", turn: turns[0]!.id, state: "done" } });
    expect(d.REFUNDS).toEqual([["A-1042", 39]]);
  }, 20_000);

  it("while its turn waits for a person: told the same turn's approvals (not conversation-busy)", async () => {
    const d = await waitingDesk([]);
    const server = keep(await serve({ store: d.store, programs: [d.served], port: 0 }));
    const c = keep(await rawClient(server.url, ""));
    const once = await c.ask({ type: "call", id: "c1", program: "desk", input: MESSAGE, conversation: "sam", key: "k-7" });
    expect(once).toMatchObject({ type: "reply", result: { state: "waiting" } });
    const twice = await c.ask({ type: "call", id: "c2", program: "desk", input: MESSAGE, conversation: "sam", key: "k-7" });
    const { turn, approvals } = once.result as { turn: string; approvals: { id: string }[] };
    expect(twice).toMatchObject({ type: "reply", id: "c2", result: { conversation: "sam", turn, state: "waiting", approvals } });
    expect(await turnsOf(d.store, "sam")).toHaveLength(1);
  }, 20_000);

  it("with other input: refused (input-invalid), nothing run", async () => {
    const d = await waitingDesk([]);
    const server = keep(await serve({ store: d.store, programs: [d.served], port: 0, settings: { approve: null } }));
    const c = keep(await rawClient(server.url, ""));
    expect(await c.ask({ type: "call", id: "c1", program: "desk", input: MESSAGE, conversation: "sam", key: "k-8" })).toMatchObject({
      type: "reply",
      result: { state: "done" },
    });
    const other = await c.ask({ type: "call", id: "c2", program: "desk", input: { message: "Something else." }, conversation: "sam", key: "k-8" });
    expect(other).toMatchObject({ type: "error", id: "c2", code: "input-invalid" });
    expect(await turnsOf(d.store, "sam")).toHaveLength(1);
    expect(d.lm.requests).toHaveLength(3);
  }, 20_000);

  it("through a companion: app.call(…, { key }) retried after remote-closed gives the same turn", async () => {
    const { d, server, release } = await heldDesk(["k1"]);
    const net = keep(await proxy(server.port));
    const app = keep(await connect(net.url, { key: "k1", maxDelayMs: 50 }));
    let reconnects = 0;
    app.on("reconnect", () => reconnects++);
    const s = app.call("desk", MESSAGE, { conversation: "sam", key: "refund-A-1042" });
    await until(() => d.lm.requests.length === 2);
    net.cut();
    await expect(s.outcome).rejects.toMatchObject({ code: "remote-closed" });
    await until(() => reconnects === 1);
    const retry = app.call("desk", MESSAGE, { conversation: "sam", key: "refund-A-1042" });
    release();
    const outcome = await retry.outcome;
    const turns = await turnsOf(d.store, "sam");
    expect(turns).toHaveLength(1);
    expect(outcome).toMatchObject({ conversation: "sam", turn: turns[0]!.id, state: "done" });
    expect(d.REFUNDS).toEqual([["A-1042", 39]]);
  }, 20_000);
});

describe("an owner call with a key, stopped by its caller", () => {
  it("ends stopped, and sent again with the key it is told so: nothing run again", async () => {
    const { d, server, release } = await heldDesk();
    const c = keep(await rawClient(server.url, ""));
    c.send({ type: "call", id: "c1", program: "desk", input: MESSAGE, conversation: "sam", key: "k-9" });
    await until(() => d.lm.requests.length === 2); // the refund runs, held at its gate
    expect(await c.ask({ type: "cancel", id: "x1", call: "c1", owner: true })).toMatchObject({ type: "reply", result: null });
    release();
    const [turn] = await turnsOf(d.store, "sam");
    expect(await c.answerTo("c1")).toMatchObject({ type: "reply", result: { turn: turn!.id, state: "stopped", error: { code: "turn-aborted" } } });
    const again = await c.ask({ type: "call", id: "c2", program: "desk", input: MESSAGE, conversation: "sam", key: "k-9" });
    expect(again).toMatchObject({ type: "reply", id: "c2", result: { turn: turn!.id, state: "stopped" } });
    expect(await turnsOf(d.store, "sam")).toHaveLength(1);
    expect(d.lm.requests).toHaveLength(2);
  }, 20_000);
});

describe("a call's key the server cannot take", () => {
  it("refused by a companion before it is sent (input-invalid), nothing run", async () => {
    const d = await waitingDesk([]);
    const server = keep(await serve({ store: d.store, programs: [d.served], port: 0, settings: { approve: null } }));
    const app = keep(await connect(server.url, { reconnect: false }));
    await expect(app.call("desk", MESSAGE, { conversation: "sam", key: "" }).outcome).rejects.toMatchObject({ code: "input-invalid" });
    // on a call that keeps no turn for it to name
    await expect(app.call("desk", MESSAGE, { key: "k-1" }).outcome).rejects.toMatchObject({ code: "settings-invalid" });
    await expect(app.call("desk", MESSAGE, { approvals: "caller", key: "k-1" }).outcome).rejects.toMatchObject({ code: "settings-invalid" });
    expect(d.lm.requests).toHaveLength(0);
  }, 20_000);

  it("malformed (empty, too long, not a string): an error reply by its id, the connection goes on", async () => {
    const d = await waitingDesk([]);
    const server = keep(await serve({ store: d.store, programs: [d.served], port: 0, settings: { approve: null } }));
    const c = keep(await rawClient(server.url, ""));
    for (const [id, key] of [
      ["c1", ""],
      ["c2", "k".repeat(201)],
      ["c3", 42],
      ["c4", null],
    ] as const)
      expect(await c.ask({ type: "call", id, program: "desk", input: MESSAGE, conversation: "sam", key })).toMatchObject({
        type: "error",
        id,
        code: "remote-protocol",
      });
    expect(await c.ask({ type: "waiting", id: "w1" })).toMatchObject({ type: "reply", id: "w1" });
    expect(await d.store.read("sam")).toEqual([]);
  }, 20_000);

  it("on a call that keeps no turn to name (approvals caller, or no conversation): refused, nothing run", async () => {
    const d = await waitingDesk([]);
    const server = keep(await serve({ store: d.store, programs: [d.served], port: 0, settings: { approve: null } }));
    const c = keep(await rawClient(server.url, ""));
    const caller = await c.ask({ type: "call", id: "c1", program: "desk", input: MESSAGE, approvals: "caller", key: "k-1" });
    expect(caller).toMatchObject({ type: "error", id: "c1", code: "settings-invalid" });
    const nowhere = await c.ask({ type: "call", id: "c2", program: "desk", input: MESSAGE, key: "k-1" });
    expect(nowhere).toMatchObject({ type: "error", id: "c2", code: "settings-invalid" });
    expect(d.lm.requests).toHaveLength(0);
  }, 20_000);
});
