/**
 * A new turn's liveness lock (a database session's advisory lock, a tab's
 * Web Lock) is asked for before the conversation is read, so its round trip
 * overlaps the read: the turn's id is new, so the lock stands in nobody's
 * way. A send that starts no turn (refused, failed) lets go of it.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ConversationError, ai, memoryStore, tool, Waiting, type Store } from "../../src/index.js";
import { EarlyLock } from "../../src/conversation/lease.js";
import { scripted } from "../../src/testing/index.js";
import { heldTurns } from "./fixtures/held-turns.js";

const chat = ai("chat", { description: "Answer.", input: { ask: z.string() }, output: z.string() });
const payer = ai("payer", {
  description: "Pay.",
  input: { ask: z.string() },
  tools: [tool("pay", { description: "Pay.", input: { amount: z.number() }, effects: "changes" }, ({ amount }) => `paid ${amount}`)],
});

/** `base` with `liveness`, its reads noted in `events` (each read takes a few ms, as a database's round trip does). */
function slowReads(base: Store, liveness: NonNullable<Store["liveness"]>, events: string[], fail?: Error): Store {
  return Object.assign(Object.create(base) as Store, {
    liveness,
    read: async (id: string, after?: number) => {
      events.push("read");
      await new Promise((r) => setTimeout(r, 5));
      if (fail) throw fail;
      const records = await base.read(id, after);
      events.push("read done");
      return records;
    },
  });
}

/** Lets the releases of dropped locks (after their hold resolved) run. */
const settled = () => new Promise((r) => setTimeout(r, 0));

describe("a new turn's liveness lock", () => {
  it("is asked for before the conversation's first read is back, held while the turn runs, let go when it ends", async () => {
    const { liveness, held, asked, events } = heldTurns();
    const store = slowReads(memoryStore(), liveness, events);
    let heldWhileRunning: string[] = [];
    const lm = scripted([() => ((heldWhileRunning = [...held]), "hello")]);
    expect(await chat.conversation("c", { store, lm }).send({ ask: "hi" })).toBe("hello");
    expect(events.indexOf("hold")).toBeGreaterThanOrEqual(0);
    expect(events.indexOf("hold")).toBeLessThan(events.indexOf("read done"));
    expect(asked).toHaveLength(1);
    expect(heldWhileRunning).toEqual(asked);
    expect(held).toEqual([]);
  });

  it("a send refused (conversation-busy) lets go of the lock it asked for, and writes nothing", async () => {
    const { liveness, held, asked, events } = heldTurns();
    const base = memoryStore();
    const store = slowReads(base, liveness, events);
    const conv = payer.conversation("c", { store, approve: "changes" });
    await expect(conv.send({ ask: "pay 5" }, { lm: scripted([{ toolCalls: [{ id: "p", name: "pay", input: { amount: 5 } }] }]) })).rejects.toBeInstanceOf(Waiting);
    const length = (await base.read("c")).length;
    await expect(conv.send({ ask: "pay 6" }, { lm: scripted([]) })).rejects.toMatchObject({ code: "conversation-busy" });
    await settled();
    expect(asked).toHaveLength(2);
    expect(held).toEqual([]);
    expect((await base.read("c")).length).toBe(length);
  });

  it("a first read that fails (store-io) fails the send and lets go of the lock", async () => {
    const { liveness, held, asked, events } = heldTurns();
    const base = memoryStore();
    const store = slowReads(base, liveness, events, new ConversationError("store-io", "the disk is gone"));
    await expect(chat.conversation("c", { store, lm: scripted(["never"]) }).send({ ask: "hi" })).rejects.toMatchObject({ code: "store-io" });
    await settled();
    expect(asked).toHaveLength(1);
    expect(held).toEqual([]);
    expect(await base.read("c")).toEqual([]);
  });

  it("a lock that cannot be had fails the send with its error, before anything is written or paid", async () => {
    const { liveness, held, events, refuse } = heldTurns();
    refuse.with = new ConversationError("store-io", "the lock session could not be opened");
    const base = memoryStore();
    const store = slowReads(base, liveness, events);
    const lm = scripted(["never"]);
    await expect(chat.conversation("c", { store, lm }).send({ ask: "hi" })).rejects.toMatchObject({ code: "store-io", message: /lock session/ });
    expect(held).toEqual([]);
    expect(await base.read("c")).toEqual([]);
    expect(lm.requests).toHaveLength(0);
  });

  it("a send that waits behind the running turn keeps its lock until its own turn runs, then lets go", async () => {
    const { liveness, held, asked, events } = heldTurns();
    const store = slowReads(memoryStore(), liveness, events);
    const conv = chat.conversation("c", { store, lm: scripted(["one", "two"]) });
    const answers = await Promise.all([conv.send({ ask: "1" }), conv.send({ ask: "2" })]);
    expect(answers.sort()).toEqual(["one", "two"]);
    expect(asked).toHaveLength(2);
    expect(new Set(asked).size).toBe(2);
    expect(held).toEqual([]);
  });
});

describe("EarlyLock", () => {
  it("is taken once: a second take asks anew (undefined), and a drop after a take lets nothing go", async () => {
    const { liveness, held } = heldTurns();
    const early = new EarlyLock(liveness, "c", "t1");
    const release = await early.take();
    expect(held).toEqual(["t1"]);
    expect(await early.take()).toBeUndefined();
    early.drop();
    await settled();
    expect(held).toEqual(["t1"]);
    release!();
    expect(held).toEqual([]);
  });

  it("dropped before anyone took it, it is let go once its hold is back; a failed hold is no unhandled rejection", async () => {
    const { liveness, held, refuse } = heldTurns();
    const dropped = new EarlyLock(liveness, "c", "t1");
    dropped.drop();
    await settled();
    expect(held).toEqual([]);
    expect(await dropped.take()).toBeUndefined();
    refuse.with = new Error("no session");
    const failed = new EarlyLock(liveness, "c", "t2");
    failed.drop();
    await settled();
    const taken = new EarlyLock(liveness, "c", "t3");
    await expect(taken.take()).rejects.toThrow("no session");
  });
});
