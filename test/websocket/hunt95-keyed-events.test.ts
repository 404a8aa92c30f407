/**
 * An owner call with a key (hunt 93) ran as `send(input, { key })`: its
 * caller and subscribers saw no event of it, only its outcome, and
 * `server.close()` could only stop it (`stopped`, for good) where it lets go
 * of every other owner call's turn (`interrupted`, resumed elsewhere: a
 * rolling deploy). It now runs as a keyed stream (`streamOnce`): its events
 * are sent as an unkeyed call's are, and a close lets go of it, so the same
 * keyed call on another server goes on with it.
 */
import { describe, expect, it } from "vitest";
import { connect, serve } from "../../adapters/websocket/index.js";
import { readConversation } from "../../src/index.js";
import { beforeGenerate } from "../fixtures/before-generate.js";
import type { Store } from "../../src/store/types.js";
import { faultyStore, memoryStore } from "../../src/testing/index.js";
import { deskModel, desk, keeper, until } from "./fixtures.js";
import { rawClient } from "./fixtures/hunt25-kit.js";

const keep = keeper();
const MESSAGE = { message: "Order A-1042 never arrived. Refund it, please." };

const turnsOf = async (store: Store, conversation: string) => [
  ...readConversation(await store.read(conversation), { now: Date.now() }).turns.values(),
];

/** The desk's model, its last reply (after the refund's result) held until its signal aborts: a turn a close finds running. */
function heldAtLastReply() {
  let held = false;
  const lm = beforeGenerate(deskModel(), async (request, options) => {
    if (request.messages.filter((m) => m.role === "tool").length < 2) return;
    held = true;
    await new Promise((_r, reject) => options?.signal?.addEventListener("abort", () => reject(options.signal?.reason), { once: true }));
  });
  return { lm, held: () => held };
}

describe("an owner call with a key shows its events", () => {
  it("its caller and the owner's subscribers see its tool calls and results (a companion's app.call with a key)", async () => {
    const d = desk();
    const server = keep(await serve({ store: memoryStore(), programs: [d.fn.using({ lm: deskModel() })], port: 0, settings: { approve: null } }));
    const watcher = keep(await connect(server.url, { reconnect: false }));
    const watched: string[] = [];
    watcher.on("event", ({ event }) => watched.push(event.type));
    await watcher.waiting(); // (the subscribe went first)
    const app = keep(await connect(server.url, { reconnect: false }));
    const s = app.call("desk", MESSAGE, { conversation: "sam", key: "refund-A-1042" });
    const seen: string[] = [];
    for await (const e of s) seen.push(e.type === "tool_call" || e.type === "tool_result" ? `${e.type} ${e.name}` : e.type);
    expect(seen).toEqual(expect.arrayContaining(["tool_call find_order", "tool_result find_order", "tool_call refund", "tool_result refund"]));
    expect(await s.outcome).toMatchObject({ conversation: "sam", state: "done" });
    await until(() => watched.includes("done"));
    expect(watched).toEqual(expect.arrayContaining(["tool_call", "tool_result"]));
    expect(d.REFUNDS).toEqual([["A-1042", 39]]);
  }, 20_000);
});

describe("an owner call with a key on a server that closes", () => {
  it("is let go of (interrupted, not stopped); the same keyed call on another server goes on with it, the refund run once", async () => {
    const store = memoryStore();
    const d = desk();
    const held = heldAtLastReply();
    const first = keep(await serve({ store, programs: [d.fn.using({ lm: held.lm })], port: 0, settings: { approve: null } }));
    const c = keep(await rawClient(first.url, ""));
    c.send({ type: "call", id: "c1", program: "desk", input: MESSAGE, conversation: "sam", key: "refund-A-1042" });
    await until(held.held, 5000); // the refund ran; the model's last reply is on its way
    await first.close();
    const [turn] = await turnsOf(store, "sam");
    expect(turn?.state).toBe("interrupted");
    expect(d.REFUNDS).toEqual([["A-1042", 39]]);

    // the next host of a rolling deploy: the companion sends its call again, with its key
    const second = keep(await serve({ store, programs: [d.fn.using({ lm: deskModel() })], port: 0, settings: { approve: null } }));
    const again = keep(await rawClient(second.url, ""));
    const reply = await again.ask({ type: "call", id: "c1", program: "desk", input: MESSAGE, conversation: "sam", key: "refund-A-1042" }, 10_000);
    expect(reply).toMatchObject({ type: "reply", id: "c1", result: { conversation: "sam", turn: turn!.id, state: "done" } });
    expect(again.messages.some((m) => m.type === "event" && m.id === "c1")).toBe(true); // the turn gone on with shows its events
    expect(await turnsOf(store, "sam")).toHaveLength(1);
    expect(d.REFUNDS).toEqual([["A-1042", 39]]);
  }, 30_000);
});

/**
 * `inner`, where the first claim of a turn (a lease with a new attempt) is held until a second one is asked for: two
 * retries both read the turn interrupted and both claim it (the conditional append decides).
 */
function racing(inner: Store): Store {
  let claims = 0;
  let bothAsked!: () => void;
  const both = new Promise<void>((r) => (bothAsked = r));
  const append: Store["append"] = async (conversation, records, opts) => {
    if (claims < 2 && records.some((r) => (r as { kind?: string }).kind === "lease")) {
      claims += 1;
      if (claims === 2) bothAsked();
      else await both;
    }
    return inner.append(conversation, records, opts);
  };
  return new Proxy(inner, {
    get: (target, name) => {
      if (name === "append") return append;
      const value = Reflect.get(target, name) as unknown;
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

describe("an owner call with a key whose turn was left interrupted, sent again twice at once", () => {
  it("both answer as the turn does (never turn-claimed): it goes on once, the refund run once", async () => {
    const d = desk();
    const inner = memoryStore();
    let refuse = true;
    // the turn's end is not written (a store error): the send that ran it is refused, the turn left interrupted
    const faulty = faultyStore(inner, {
      failOn: (call) => {
        if (!refuse || !call.records.some((r) => (r as { kind?: string }).kind === "ended")) return undefined;
        refuse = false;
        return "before-write";
      },
    });
    const lm = deskModel();
    const served = d.fn.using({ lm });
    await expect(served.conversation("sam", { store: faulty, approve: null }).send(MESSAGE, { key: "refund-A-1042" })).rejects.toMatchObject({
      code: "store-io",
    });
    const [turn] = await turnsOf(inner, "sam");
    expect(turn?.state).toBe("interrupted");
    const paid = lm.requests.length;
    const server = keep(await serve({ store: racing(inner), programs: [served], port: 0, settings: { approve: null } }));
    const [a, b] = [keep(await rawClient(server.url, "")), keep(await rawClient(server.url, ""))];
    const call = { type: "call", id: "c1", program: "desk", input: MESSAGE, conversation: "sam", key: "refund-A-1042" };
    const replies = await Promise.all([a.ask(call, 10_000), b.ask(call, 10_000)]);
    for (const reply of replies) expect(reply).toMatchObject({ type: "reply", result: { turn: turn!.id, state: "done" } });
    expect(await turnsOf(inner, "sam")).toHaveLength(1);
    expect(d.REFUNDS).toEqual([["A-1042", 39]]);
    expect(lm.requests.length - paid).toBeLessThanOrEqual(1); // its last reply, paid again at most once (it was paid before its end failed to be kept)
  }, 20_000);
});
