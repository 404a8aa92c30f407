import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, ApprovalError, ConversationError, tool, Waiting, type Approval } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

function desk() {
  const REFUNDS: [string, number][] = [];
  const LOOKUPS: string[] = [];
  const findOrder = tool("find_order", { description: "The order's item, price paid and shipping status.", input: { order_id: z.string() }, effects: "reads" },
    ({ order_id }) => {
      LOOKUPS.push(order_id);
      return ({ "A-1042": { item: "kettle", paid: 39.0, status: "lost by the carrier" } } as Record<string, object>)[order_id] ?? {};
    });
  const refund = tool("refund", { description: "Refund an amount to the customer's card.", input: { order_id: z.string(), amount: z.number() }, effects: "changes" },
    ({ order_id, amount }) => {
      REFUNDS.push([order_id, amount]);
      return `refunded ${amount.toFixed(2)} for ${order_id}`;
    });
  const fn = ai("desk", { description: "Help the customer. Refund lost orders in full.", input: { message: z.string() }, tools: [findOrder, refund] });
  return { fn, REFUNDS, LOOKUPS };
}

const script = () => [
  { toolCalls: [{ name: "find_order", input: { order_id: "A-1042" } }] },
  { toolCalls: [{ name: "refund", input: { order_id: "A-1042", amount: 39 } }] },
  (req: { messages: { role: string; content: string }[] }) => `The last tool said: ${req.messages.at(-1)!.content}`,
];

describe("Tools that change things (spec)", () => {
  it("a function is asked at once; its refusal is what the model sees", async () => {
    const { fn, REFUNDS } = desk();
    const asked: Approval[] = [];
    const manager = (call: Approval) => {
      asked.push(call);
      return "Refunds over 20.00 need a manager. Offer a replacement instead.";
    };
    const lm = scripted(script());
    const reply = await fn.using({ approve: manager })("Order A-1042 never arrived. Refund it, please.", { lm });
    expect(asked.map((a) => [a.name, a.input, a.path, a.invocation, a.effects])).toEqual([["refund", { order_id: "A-1042", amount: 39 }, "desk/refund", 2, "changes"]]);
    expect(reply).toBe("The last tool said: The person did not allow this call. Reason: Refunds over 20.00 need a manager. Offer a replacement instead.");
    expect(REFUNDS).toEqual([]);
  });

  it("a plain call under a rule refuses before the tool runs", async () => {
    const { fn, REFUNDS } = desk();
    const err = await fn.using({ approve: "changes" })("Order A-1042 never arrived. Refund it, please.", { lm: scripted(script()) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApprovalError);
    expect((err as ApprovalError).code).toBe("approval-required");
    expect(String((err as Error).message)).toBe(
      "desk/refund: this tool call needs a person's answer (approval), and a plain call has nobody to ask. Give approve a function, stream the call and answer with s.approve(...), or use a conversation, where the turn waits.",
    );
    expect(REFUNDS).toEqual([]);
  });

  it("in a conversation the turn waits, saved; another opener approves; nothing is paid or run twice", async () => {
    const store = mkdtempSync(join(tmpdir(), "functai-desk-"));
    const { fn, REFUNDS, LOOKUPS } = desk();
    const lm = scripted(script());
    const chat = fn.conversation("sam", { store, approve: "changes", lm });
    const waiting = await chat.send("Order A-1042 never arrived. Refund it, please.").catch((e: unknown) => e);
    expect(waiting).toBeInstanceOf(Waiting);
    const w = waiting as Waiting;
    expect(w.code).toBe("turn-waiting");
    expect(w.turn.state).toBe("waiting");
    expect(w.approvals.map((a) => [a.name, a.input])).toEqual([["refund", { order_id: "A-1042", amount: 39 }]]);
    expect(lm.requests).toHaveLength(2);

    // while it waits, the next send is refused
    const busy = await chat.send("hello?").catch((e: unknown) => e);
    expect(busy).toBeInstanceOf(ConversationError);
    expect((busy as ConversationError).code).toBe("conversation-busy");

    // later, somewhere else: a new handle on the same folder
    const turn = (await fn.conversation("sam", { store, lm }).turns()).at(-1)!;
    expect(turn.state).toBe("waiting");
    const answer = await turn.approve({ by: "maria" });
    expect(answer).toBe("The last tool said: refunded 39.00 for A-1042");
    expect(REFUNDS).toEqual([["A-1042", 39]]);
    expect(LOOKUPS).toEqual(["A-1042"]);
    expect(lm.requests).toHaveLength(3); // the two replies it had were reused, not asked for again
    const again = (await fn.conversation("sam", { store, lm }).turns()).at(-1)!;
    expect(again.state).toBe("done");
    expect(again.value).toBe(answer);
  });

  it("deny in a conversation tells the model why", async () => {
    const store = mkdtempSync(join(tmpdir(), "functai-desk-"));
    const { fn, REFUNDS } = desk();
    const lm = scripted(script());
    const chat = fn.conversation("sam", { store, approve: "changes", lm });
    await expect(chat.send("Refund A-1042.")).rejects.toBeInstanceOf(Waiting);
    const [turn] = await chat.turns();
    expect(await turn!.deny({ reason: "not today", by: "maria" })).toBe("The last tool said: The person did not allow this call. Reason: not today");
    expect(REFUNDS).toEqual([]);
  });

  it("on a stream the call waits in this process for s.approve()", async () => {
    const { fn, REFUNDS, LOOKUPS } = desk();
    const lm = scripted(script());
    const s = fn.using({ approve: "changes" }).stream("Refund A-1042, please.", { lm });
    const types: string[] = [];
    for await (const e of s) {
      types.push(e.type);
      if (e.type === "approval") void s.approve({ by: "me" });
    }
    expect(await s).toBe("The last tool said: refunded 39.00 for A-1042");
    expect(REFUNDS).toEqual([["A-1042", 39]]);
    expect(LOOKUPS).toEqual(["A-1042"]);
    expect(lm.requests).toHaveLength(3);
    expect(types.filter((t) => t === "tool_call")).toHaveLength(2);
    expect(types).toContain("approved");
    expect(types.at(-2)).toBe("done");
  });

  it("a no given from a handle opened without a rule stands, and the turn's rule still asks about later calls", async () => {
    const store = mkdtempSync(join(tmpdir(), "functai-desk-"));
    const { fn, REFUNDS } = desk();
    const twice = [
      { toolCalls: [{ name: "refund", input: { order_id: "A-1042", amount: 39 } }] },
      { toolCalls: [{ name: "refund", input: { order_id: "A-1042", amount: 10 } }] },
      (req: { messages: { role: string; content: string }[] }) => `last: ${req.messages.at(-1)!.content}`,
    ];
    const lm = scripted(twice);
    await expect(fn.conversation("sam", { store, approve: "changes", lm }).send("Refund.")).rejects.toBeInstanceOf(Waiting);
    // "later, somewhere else": no approve given here
    const [turn] = await fn.conversation("sam", { store, lm }).turns();
    const second = await turn!.deny({ reason: "not that much", by: "maria" }).catch((e: unknown) => e);
    expect(REFUNDS).toEqual([]);
    // the second refund is asked about too: the rule went with the turn
    expect(second).toBeInstanceOf(Waiting);
    expect((second as Waiting).approvals.map((a) => a.input)).toEqual([{ order_id: "A-1042", amount: 10 }]);
    const [again] = await fn.conversation("sam", { store, lm }).turns();
    expect(await again!.approve({ by: "maria" })).toBe("last: refunded 10.00 for A-1042");
    expect(REFUNDS).toEqual([["A-1042", 10]]);
  });
});
