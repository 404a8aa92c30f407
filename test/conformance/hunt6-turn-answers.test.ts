/**
 * Conversation turns as the spec pages and README describe them, in cases
 * the other tests do not take: the model's call ids repeating across
 * replies, a rule given to one send, several approvals answered one by one,
 * and maxSteps counted across a wait.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, memoryStore, StepLimit, Waiting, type LMRequest } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { deskTools, echoLast, toolResults } from "../engine/fixtures.js";

const deskOf = (t: ReturnType<typeof deskTools>, extra: { maxSteps?: number } = {}) =>
  ai("desk", { description: "Help.", input: { message: z.string() }, tools: [t.findOrder, t.refund], ...extra });

describe("invocations number a call's tool calls across its steps (Julia spec: 'the model's ids repeat across replies')", () => {
  it("two replies both using id c1: two approvals (#1, #2), each refund runs once, each call answered under its id", async () => {
    const t = deskTools();
    const fn = deskOf(t);
    const lm = scripted([
      { toolCalls: [{ name: "refund", input: { order_id: "A", amount: 1 }, id: "c1" }] },
      { toolCalls: [{ name: "refund", input: { order_id: "B", amount: 2 }, id: "c1" }] },
      echoLast,
    ]);
    const store = memoryStore();
    const first = await fn.conversation("sam", { store, approve: "changes", lm }).send("Refund both.").catch((e: unknown) => e);
    expect(first).toBeInstanceOf(Waiting);
    expect((first as Waiting).approvals.map((a) => [a.id, a.invocation, a.input])).toEqual([["desk#1:1", 1, { order_id: "A", amount: 1 }]]);

    const [turn] = await fn.conversation("sam", { store, lm }).turns();
    const second = await turn!.approve({ by: "ana" }).catch((e: unknown) => e);
    expect(second).toBeInstanceOf(Waiting);
    expect((second as Waiting).approvals.map((a) => [a.id, a.invocation, a.input])).toEqual([["desk#1:2", 2, { order_id: "B", amount: 2 }]]);
    expect(t.REFUNDS).toEqual([["A", 1]]);

    const [again] = await fn.conversation("sam", { store, lm }).turns();
    expect(await again!.approve({ by: "ana" })).toBe("saw: refunded 2 for B");
    expect(t.REFUNDS).toEqual([["A", 1], ["B", 2]]);
    expect(lm.requests).toHaveLength(3);
    const last = lm.requests[2]!.messages.filter((m) => m.role === "tool" || m.role === "assistant");
    expect(last.map((m) => (m.role === "tool" ? ["tool", m.toolCallId, m.content] : ["assistant", m.toolCalls?.map((c) => c.id)]))).toEqual([
      ["assistant", ["c1"]],
      ["tool", "c1", "refunded 1 for A"],
      ["assistant", ["c1"]],
      ["tool", "c1", "refunded 2 for B"],
    ]);
  });
});

describe("approve given to one send (Julia spec: approve works in 'a conversation, one turn')", () => {
  it("the turn waits, and a handle opened later without a rule still asks about the turn's next call", async () => {
    const t = deskTools();
    const fn = deskOf(t);
    const lm = scripted([
      { toolCalls: [{ name: "refund", input: { order_id: "A", amount: 1 } }] },
      { toolCalls: [{ name: "refund", input: { order_id: "B", amount: 1 } }] },
      echoLast,
    ]);
    const store = memoryStore();
    await expect(fn.conversation("sam", { store, lm }).send("Refund.", { approve: "changes" })).rejects.toBeInstanceOf(Waiting);
    expect(t.REFUNDS).toEqual([]);
    const [turn] = await fn.conversation("sam", { store, lm }).turns();
    const next = await turn!.approve().catch((e: unknown) => e);
    expect(next).toBeInstanceOf(Waiting);
    expect((next as Waiting).approvals.map((a) => a.input)).toEqual([{ order_id: "B", amount: 1 }]);
    expect(t.REFUNDS).toEqual([["A", 1]]);
  });
});

describe("several approvals of one reply, answered one at a time by id (DESIGN: approve({ id }) says yes to one)", () => {
  it("a yes to the first leaves the second waiting on the same handle; a no to it ends the turn; each call gets its result, in order", async () => {
    const t = deskTools();
    const fn = deskOf(t);
    const lm = scripted([
      { toolCalls: [
        { name: "find_order", input: { order_id: "A" } },
        { name: "refund", input: { order_id: "A", amount: 1 } },
        { name: "refund", input: { order_id: "B", amount: 2 } },
      ] },
      (r: LMRequest) => JSON.stringify(toolResults(r).map(([, content]) => content)),
    ]);
    const chat = fn.conversation("sam", { store: memoryStore(), approve: "changes", lm });
    const w = (await chat.send("Refund both.").catch((e: unknown) => e)) as Waiting;
    expect(w.approvals.map((a) => [a.id, a.name])).toEqual([["desk#1:2", "refund"], ["desk#1:3", "refund"]]);
    const turn = w.turn;

    const afterYes = await turn.approve({ id: "desk#1:2", by: "ana" }).catch((e: unknown) => e);
    expect(afterYes).toBeInstanceOf(Waiting);
    expect([turn.state, turn.waiting.map((a) => a.id)]).toEqual(["waiting", ["desk#1:3"]]);
    expect(t.REFUNDS).toEqual([]); // nothing of the reply runs before every approval is answered

    const answer = await turn.deny({ id: "desk#1:3", reason: "not B" });
    expect(JSON.parse(answer as string)).toEqual(['{"order_id":"A","item":"kettle","paid":39}', "refunded 1 for A", "The person did not allow this call. Reason: not B"]);
    expect([turn.state, turn.waiting, turn.value]).toEqual(["done", [], answer]);
    expect(t.REFUNDS).toEqual([["A", 1]]);
    expect(t.LOOKUPS).toEqual(["A"]);
    expect(lm.requests).toHaveLength(2);
  });
});

describe("maxSteps is at most that many model calls in all, across a wait (spec: 'At most max_steps model calls')", () => {
  it("maxSteps 2: one step before the wait, one after it, then StepLimit; two requests paid in all", async () => {
    const t = deskTools();
    const fn = deskOf(t, { maxSteps: 2 });
    const lm = scripted([
      { toolCalls: [{ name: "refund", input: { order_id: "A", amount: 1 } }] },
      { toolCalls: [{ name: "find_order", input: { order_id: "A" } }] },
      "never asked",
    ]);
    const store = memoryStore();
    await expect(fn.conversation("sam", { store, approve: "changes", lm }).send("Go.")).rejects.toBeInstanceOf(Waiting);
    const [turn] = await fn.conversation("sam", { store, lm }).turns();
    const e = await turn!.approve().catch((x: unknown) => x);
    expect(e).toBeInstanceOf(StepLimit);
    expect((e as StepLimit).code).toBe("step-limit");
    expect(lm.requests).toHaveLength(2);
    expect(t.REFUNDS).toEqual([["A", 1]]);
    expect(turn!.state).toBe("failed");
  });
});
