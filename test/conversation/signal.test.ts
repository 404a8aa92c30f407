/**
 * A conversation's `send` and `stream` take the call option `signal`, as a
 * plain call does: an aborted signal stops the turn (`turn-aborted`, the
 * signal's reason its cause) before anything is written or paid, or while
 * it runs (its tools' `ctx.signal` aborts, the turn reads `stopped`); a
 * turn stopped while it waits in line behind a running head is never
 * written. Before, a conversation ignored the signal: a turn given an
 * aborted signal paid its model call and ran its tool, and one aborted
 * mid-tool ran on.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, tool } from "../../src/index.js";
import type { ConversationRecord } from "../../src/records/types.js";
import { memoryStore, scripted } from "../../src/testing/index.js";

/** A desk whose `pay` tool (changes) waits until it is released or its signal aborts. */
function blockingDesk() {
  const began: number[] = [];
  const signals: AbortSignal[] = [];
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let entered!: () => void;
  const inside = new Promise<void>((r) => (entered = r));
  const pay = tool("pay", { description: "Pay.", input: { amount: z.number() }, effects: "changes" }, async ({ amount }, ctx) => {
    began.push(amount);
    signals.push(ctx.signal);
    entered();
    await Promise.race([released, new Promise((r) => ctx.signal.addEventListener("abort", r, { once: true }))]);
    if (ctx.signal.aborted) throw ctx.signal.reason;
    return "paid";
  });
  const desk = ai("desk", { description: "Pay.", input: { ask: z.string() }, output: z.string(), tools: [pay] });
  return { desk, began, signals, inside, release };
}

const payOnce = (amount: number) => [{ toolCalls: [{ name: "pay", input: { amount } }] }, `paid ${amount}`];
const turnsOf = (records: readonly ConversationRecord[]) => records.filter((r) => r.kind === "turn").map((r) => (r as unknown as { inputs: { ask: string } }).inputs.ask);

describe("a conversation turn's signal", () => {
  it("already aborted: refused with turn-aborted before anything is written, paid or run", async () => {
    const d = blockingDesk();
    const store = memoryStore();
    const lm = scripted(payOnce(5));
    const chat = d.desk.conversation("c", { store, lm });
    const reason = new Error("the user left");
    const controller = new AbortController();
    controller.abort(reason);
    await expect(chat.send("pay 5", { signal: controller.signal })).rejects.toMatchObject({ code: "turn-aborted", cause: reason });
    expect(() => chat.stream("pay 5", { signal: controller.signal })).not.toThrow();
    await expect(chat.stream("pay 5", { signal: controller.signal })).rejects.toMatchObject({ code: "turn-aborted" });
    expect(lm.requests).toHaveLength(0);
    expect(d.began).toEqual([]);
    expect(await store.read("c")).toEqual([]);
  });

  it("aborted while a tool runs: the tool's signal aborts, the send rejects with turn-aborted, the turn reads stopped, and the next send goes on", async () => {
    const d = blockingDesk();
    const store = memoryStore();
    const lm = scripted([...payOnce(5), "hello"]);
    const chat = d.desk.conversation("c", { store, lm });
    const controller = new AbortController();
    const sent = chat.send("pay 5", { signal: controller.signal });
    void sent.catch(() => undefined);
    await d.inside;
    const reason = new Error("cancelled by the user");
    controller.abort(reason);
    await expect(sent).rejects.toMatchObject({ code: "turn-aborted", cause: reason });
    expect(d.signals[0]!.aborted).toBe(true);
    const [turn] = await chat.turns();
    expect(turn!.state).toBe("stopped");
    expect(lm.requests).toHaveLength(1); // the reply that asked for the tool; nothing after the stop
    // a stopped turn is not the head a new one waits behind
    const next = d.desk.conversation("c", { store, lm: scripted(["hello"]) });
    await expect(next.send("hi")).resolves.toBe("hello");
  });

  it("a stream aborted while a tool runs rejects with turn-aborted and ends its events", async () => {
    const d = blockingDesk();
    const store = memoryStore();
    const chat = d.desk.conversation("c", { store, lm: scripted(payOnce(7)) });
    const controller = new AbortController();
    const s = chat.stream("pay 7", { signal: controller.signal });
    const seen: string[] = [];
    const loop = (async () => {
      for await (const e of s) seen.push(e.type);
    })();
    await d.inside;
    controller.abort();
    await expect(s).rejects.toMatchObject({ code: "turn-aborted" });
    await loop;
    expect(d.signals[0]!.aborted).toBe(true);
    expect((await chat.turns())[0]!.state).toBe("stopped");
  });

  it("aborted while it waits in line behind a running head: rejects at once and is never written; the head goes on", async () => {
    const d = blockingDesk();
    const store = memoryStore();
    const chat = d.desk.conversation("c", { store, lm: scripted(payOnce(1)) });
    const head = chat.send("pay 1");
    await d.inside;
    const controller = new AbortController();
    const queued = chat.send("pay 2", { signal: controller.signal });
    void queued.catch(() => undefined);
    const left = chat.stream("pay 3");
    void left.catch(() => undefined);
    const leftEvents = left[Symbol.asyncIterator]();
    await new Promise((r) => setTimeout(r, 50)); // both in line
    const asked = Date.now();
    controller.abort();
    await expect(queued).rejects.toMatchObject({ code: "turn-aborted" });
    expect(Date.now() - asked).toBeLessThan(500); // not after the store's wait in line ran out (1 s)
    await leftEvents.return!(); // the stream left before its turn began
    await expect(left).rejects.toMatchObject({ code: "turn-aborted" });
    d.release();
    await expect(head).resolves.toBe("paid 1");
    await new Promise((r) => setTimeout(r, 50));
    expect(turnsOf(await store.read("c"))).toEqual(["pay 1"]);
    expect(d.began).toEqual([1]);
  });

  it("aborted after the turn stopped for a person: the turn stays waiting, saved", async () => {
    const d = blockingDesk();
    const store = memoryStore();
    const chat = d.desk.conversation("c", { store, lm: scripted(payOnce(9)), approve: "changes" });
    const controller = new AbortController();
    await expect(chat.send("pay 9", { signal: controller.signal })).rejects.toMatchObject({ code: "turn-waiting" });
    controller.abort();
    await new Promise((r) => setTimeout(r, 20));
    const [turn] = await chat.turns();
    expect(turn!.state).toBe("waiting");
    expect(d.began).toEqual([]);
  });
});
