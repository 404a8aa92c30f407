/**
 * A send retried with its key, whose turn the store's failure left
 * interrupted, goes on with that turn (README) — as the call it is: with the
 * call's options. Before, the turn went on with the conversation's settings
 * alone: a model given in the send's options (`send(input, { key, lm })`,
 * as lm-missing itself advises: "or give lm in the call's options") was
 * dropped, so the retry that the README promises would go on failed
 * `lm-missing` every time; the call's `signal` was dropped too (the retry
 * could not be stopped); and a delegated call's check of its calling turn
 * (`upstream`: its caller's lease) was dropped, so a delegated turn resumed
 * by its retried call ran its tools after its caller had lost its turn.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, memoryStore, tool } from "../../src/index.js";
import { SEND_ONCE, type ConversationInternals } from "../../src/conversation/conversation.js";
import { LeaseLost } from "../../src/engine/runtime.js";
import { scripted } from "../../src/testing/index.js";
import { firstStartedFault } from "../fixtures/first-started-fault.js";

/** A desk whose store refuses (before writing) the first `started` record of pay: the turn reads interrupted, pay never ran. */
function blip(block = false) {
  const paid: number[] = [];
  const signals: AbortSignal[] = [];
  const pay = tool("pay", { description: "Pay.", input: { amount: z.number() }, effects: "changes" }, async ({ amount }, ctx) => {
    signals.push(ctx.signal);
    if (block)
      await new Promise<void>((r) => {
        ctx.signal.addEventListener("abort", () => r(), { once: true });
      });
    if (ctx.signal.aborted) throw ctx.signal.reason;
    paid.push(amount);
    return `paid ${amount}`;
  });
  const desk = ai("desk", { description: "Pay.", input: { ask: z.string() }, tools: [pay] });
  const inner = memoryStore();
  const store = firstStartedFault(inner, "before-write");
  return { desk, store, inner, paid, signals };
}
/** The model asks for pay until it has its result (the reply whose `started` record the store refused is replayed: written with the let-go). */
const step = (request: { messages: { role: string }[] }) =>
  request.messages.some((m) => m.role === "tool") ? "paid" : { toolCalls: [{ name: "pay", input: { amount: 5 } }] };
const replies = () => [step, step, step];

describe("a keyed send retried after a store error goes on as the call it is", () => {
  it("with the model given in its options (none in the conversation's): it goes on, pays once", async () => {
    const { desk, store, paid } = blip();
    const lm = scripted(replies());
    const chat = desk.conversation("c", { store });
    await expect(chat.send("pay 5", { key: "req-1", lm })).rejects.toMatchObject({ code: "store-io" });
    expect((await chat.turns())[0]!.state).toBe("interrupted");
    expect(await chat.send("pay 5", { key: "req-1", lm })).toBe("paid");
    expect(paid).toEqual([5]);
    expect(lm.requests).toHaveLength(2); // (the first reply went with the refused batch: written with the let-go, replayed, not paid again)
  });

  it("with its signal: aborted while the resumed turn runs, it stops it (turn-aborted, the tool's signal aborted)", async () => {
    const { desk, store, paid, signals } = blip(true);
    const lm = scripted(replies());
    const chat = desk.conversation("c", { store, lm });
    await expect(chat.send("pay 5", { key: "req-1" })).rejects.toMatchObject({ code: "store-io" });
    const controller = new AbortController();
    const retried = chat.send("pay 5", { key: "req-1", signal: controller.signal });
    void retried.catch(() => undefined);
    await expect.poll(() => signals.length).toBe(1);
    controller.abort();
    await expect(retried).rejects.toMatchObject({ code: "turn-aborted" });
    expect(signals[0]!.aborted).toBe(true);
    expect(paid).toEqual([]);
    expect((await chat.turns())[0]!.state).toBe("stopped");
  }, 10_000);

  it("a delegated call's check of its caller: a caller that lost its turn stops the resumed turn before its tool runs", async () => {
    const { desk, store, inner, paid } = blip();
    const lm = scripted(replies());
    const chat = desk.conversation("d", { store, lm }) as unknown as ConversationInternals<{ ask: string }, string>;
    const once = { requestId: "caller-turn/desk#1:1:abc", parent: null, parsed: true };
    await expect(chat[SEND_ONCE]({ ask: "pay 5" }, once)).rejects.toMatchObject({ code: "store-io" });
    const asked: string[] = [];
    const upstream = () => {
      asked.push("caller");
      throw new LeaseLost("the caller's turn was taken by another process");
    };
    const again = desk.conversation("d", { store: inner, lm }) as unknown as ConversationInternals<{ ask: string }, string>;
    await expect(again[SEND_ONCE]({ ask: "pay 5" }, { ...once, upstream })).rejects.toMatchObject({ code: "lease-lost" });
    expect(asked.length).toBeGreaterThan(0);
    expect(paid).toEqual([]);
  });
});
