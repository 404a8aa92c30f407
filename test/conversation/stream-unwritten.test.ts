/**
 * A conversation's `stream()` names its turn at once, before the turn is
 * written (it may wait in line behind a running head, or be refused). Its
 * events are shown once the turn is in the store: each names a turn anyone
 * may read. A stream the conversation refused (busy, a store that cannot be
 * read, stopped while in line) wrote nothing: its loop throws the refusal,
 * as its promise rejects with it, and shows no event. Before, it showed
 * `state: running`, `failed` and `state: failed` of a turn no store holds
 * (a `turn(s.turn)` of it threw turn-state), and a stream in line said
 * `running` while it waited.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { FunctaiError } from "../../src/errors.js";
import { ai, tool, type TurnEvent } from "../../src/index.js";
import { readConversation } from "../../src/records/read-conversation.js";
import type { Store } from "../../src/store/types.js";
import { memoryStore, scripted } from "../../src/testing/index.js";

/** A desk whose `pay` tool (changes) waits until released. */
function blockingDesk() {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let entered!: () => void;
  const inside = new Promise<void>((r) => (entered = r));
  const pay = tool("pay", { description: "Pay.", input: { amount: z.number() }, effects: "changes" }, async () => {
    entered();
    await released;
    return "paid";
  });
  const desk = ai("desk", { description: "Pay.", input: { ask: z.string() }, output: z.string(), tools: [pay] });
  return { desk, inside, release };
}

const payOnce = (amount: number) => [{ toolCalls: [{ name: "pay", input: { amount } }] }, `paid ${amount}`];

/** Iterates `s`; each event is kept with whether its turn was in the store when it was shown. */
async function shown(s: AsyncIterable<TurnEvent>, store: Store, id: string) {
  const events: { event: TurnEvent; written: boolean }[] = [];
  const thrown = await (async () => {
    for await (const event of s) {
      const state = readConversation(await store.read(id), { now: Date.now() });
      events.push({ event, written: state.turns.has(event.turn) });
    }
    return null;
  })().catch((e: unknown) => e);
  return { events, thrown };
}

describe("a conversation stream's events", () => {
  it("refused conversation-busy: the loop throws the refusal and shows no event", async () => {
    const d = blockingDesk();
    const store = memoryStore();
    const chat = d.desk.conversation("c", { store, lm: scripted([...payOnce(1), ...payOnce(2)]), approve: "changes" });
    await expect(chat.send("pay 1")).rejects.toMatchObject({ code: "turn-waiting" });
    const before = await store.read("c");
    const s = chat.stream("pay 2");
    const { events, thrown } = await shown(s, store, "c");
    expect(thrown).toMatchObject({ code: "conversation-busy" });
    expect(events).toEqual([]);
    await expect(Promise.resolve(s)).rejects.toMatchObject({ code: "conversation-busy" });
    expect(await store.read("c")).toEqual(before);
  });

  it("of a stream in line behind a running head: shown once its turn is written, from its first (seq 1); one stopped in line shows none", async () => {
    const d = blockingDesk();
    const store = memoryStore();
    const chat = d.desk.conversation("c", { store, lm: scripted([...payOnce(1), ...payOnce(2)]) });
    const head = chat.send("pay 1");
    await d.inside;
    const next = chat.stream("pay 2");
    const controller = new AbortController();
    const stopped = chat.stream("pay 3", { signal: controller.signal });
    const nextShown = shown(next, store, "c");
    const stoppedShown = shown(stopped, store, "c");
    await new Promise((r) => setTimeout(r, 50)); // both in line
    controller.abort();
    const left = await stoppedShown;
    expect(left.thrown).toMatchObject({ code: "turn-aborted" });
    expect(left.events).toEqual([]);
    d.release();
    await expect(head).resolves.toBe("paid 1");
    const { events, thrown } = await nextShown;
    expect(thrown).toBeNull();
    await expect(Promise.resolve(next)).resolves.toBe("paid 2");
    expect(events.length).toBeGreaterThan(0);
    expect(events.every((e) => e.written && e.event.turn === next.turn)).toBe(true);
    expect(events[0]!.event).toMatchObject({ type: "state", seq: 1 });
    expect(events.some((e) => e.event.type === "done")).toBe(true);
    const state = readConversation(await store.read("c"), { now: Date.now() });
    expect([...state.turns.keys()]).not.toContain(stopped.turn);
  });

  it("into a conversation the store cannot read: the loop throws the store's error and shows no event", async () => {
    const inner = memoryStore();
    const store: Store = new Proxy(inner, {
      get(target, key) {
        if (key === "read") return () => Promise.reject(new FunctaiError("store-corrupt", "conversation c: a damaged record"));
        const value: unknown = Reflect.get(target, key, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const d = blockingDesk();
    const s = d.desk.conversation("c", { store, lm: scripted(payOnce(1)) }).stream("pay 1");
    const events: TurnEvent[] = [];
    const thrown = await (async () => {
      for await (const e of s) events.push(e);
    })().catch((e: unknown) => e);
    expect(thrown).toMatchObject({ code: "store-corrupt" });
    expect(events).toEqual([]);
    await expect(Promise.resolve(s)).rejects.toMatchObject({ code: "store-corrupt" });
    expect(await inner.read("c")).toEqual([]);
  });
});
