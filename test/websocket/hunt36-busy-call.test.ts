/**
 * An owner's call into a conversation whose turn waits for a person is
 * refused by the conversation (`conversation-busy`): nothing of it is
 * written. It was told as a `failed` outcome naming a fresh turn id (the
 * refused turn's, which no store holds: a `status` of it said
 * `turn-state`), with events of that turn sent to the caller and to every
 * subscriber of the conversation. It is a refused request: an error reply
 * coded `conversation-busy` whose message names the turn that waits, the
 * one to answer first; no event names a turn that was never written.
 */
import { describe, expect, it } from "vitest";
import { connect, serve } from "../../adapters/websocket/index.js";
import type { TurnEvent } from "../../src/index.js";
import { readConversation } from "../../src/index.js";
import { FunctaiError } from "../../src/errors.js";
import type { Store } from "../../src/store/types.js";
import { memoryStore } from "../../src/testing/index.js";
import { keeper, until, waitingDesk } from "./fixtures.js";

const keep = keeper();

describe("an owner call into a conversation whose turn waits", () => {
  it("is refused conversation-busy, naming the waiting turn; nothing is written and no event names a turn that does not exist", async () => {
    const d = await waitingDesk(["sam"]);
    const server = keep(await serve({ store: d.store, programs: [d.served], port: 0 }));
    const app = keep(await connect(server.url));
    const watcher = keep(await connect(server.url));
    const seen: TurnEvent[] = [];
    watcher.on("event", (e) => seen.push(e.event));
    const [w] = await app.waiting();
    const waitingTurn = w!.turn;
    const before = await d.store.read("sam");
    const s = app.call("desk", { message: "And my other order?" }, { conversation: "sam" });
    const events: TurnEvent[] = [];
    const iterated = (async () => {
      for await (const e of s) events.push(e);
    })().catch((e: unknown) => e);
    const refusal = await s.outcome.then(
      (o) => ({ outcome: o }),
      (e: unknown) => e,
    );
    expect(refusal).toMatchObject({ name: "RemoteError", code: "conversation-busy" });
    expect((refusal as Error).message).toContain(waitingTurn);
    await expect(Promise.resolve(s)).rejects.toMatchObject({ code: "conversation-busy" });
    expect(await iterated).toMatchObject({ code: "conversation-busy" });
    expect(events).toEqual([]);
    expect(s.turn).toBeNull();
    // nothing was written; the turn that waits is as it was
    expect(await d.store.read("sam")).toEqual(before);
    expect((await app.status({ conversation: "sam", turn: waitingTurn })).state).toBe("waiting");
    // once it is answered, the same call goes through, and its events name its own (written) turn
    await app.approve({ conversation: "sam", turn: waitingTurn, by: "maria" });
    const again = app.call("desk", { message: "And my other order?" }, { conversation: "sam" });
    const outcome = await again.outcome;
    const state = readConversation(await d.store.read("sam"), { now: Date.now() });
    expect(state.turns.has(outcome.turn)).toBe(true);
    expect(outcome.turn).not.toBe(waitingTurn);
    // the subscriber heard of no turn but those written
    await until(() => seen.some((e) => e.turn === outcome.turn));
    for (const e of seen) expect(state.turns.has(e.turn)).toBe(true);
  });

  it("into a conversation the store cannot read: an error reply with the store's code, and no event of a turn never written", async () => {
    const inner = memoryStore();
    // every read of "aaa" fails (its records damaged); the rest of the store works
    const store: Store = new Proxy(inner, {
      get(target, key) {
        if (key === "read")
          return (c: string, after?: number) =>
            c === "aaa" ? Promise.reject(new FunctaiError("store-corrupt", "conversation aaa: a damaged record")) : target.read(c, after);
        const value: unknown = Reflect.get(target, key, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const d = await waitingDesk([], { store });
    const server = keep(await serve({ store, programs: [d.served], port: 0, onError: () => undefined }));
    const app = keep(await connect(server.url));
    const s = app.call("desk", { message: "Hello" }, { conversation: "aaa" });
    const events: TurnEvent[] = [];
    const iterated = (async () => {
      for await (const e of s) events.push(e);
    })().catch((e: unknown) => e);
    await expect(s.outcome).rejects.toMatchObject({ name: "RemoteError", code: "store-corrupt" });
    expect(await iterated).toMatchObject({ code: "store-corrupt" });
    expect(events).toEqual([]);
    expect(s.turn).toBeNull();
    expect(await inner.read("aaa")).toEqual([]);
  });

  // The engine's own stream, in process, does the same: refused (conversation-busy) before its turn is written, it
  // said `state: running`, `failed` and `state: failed` under a fresh id no store holds. Its loop now throws the
  // refusal, as its promise rejects with it, and shows no event.
  it("in process: a stream refused conversation-busy emits no event of a turn that was never written", async () => {
    const d = await waitingDesk(["sam"]);
    const s = d.served.conversation("sam", { store: d.store, approve: "changes" }).stream({ message: "And my other order?" });
    const events: TurnEvent[] = [];
    const iterated = await (async () => {
      for await (const e of s) events.push(e);
    })().catch((e: unknown) => e);
    expect(iterated).toMatchObject({ code: "conversation-busy" });
    await expect(Promise.resolve(s)).rejects.toMatchObject({ code: "conversation-busy" });
    expect(events).toEqual([]);
    const state = readConversation(await d.store.read("sam"), { now: Date.now() });
    expect(events.filter((e) => !state.turns.has(e.turn))).toEqual([]);
  });
});
