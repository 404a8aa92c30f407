import { beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, clearHistory, configure, phistory, resetConfiguration, StepLimit, tool } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

const ORDERS: Record<string, object> = {
  "A-1042": { item: "kettle", status: "stuck at carrier", shipped: "2026-09-02" },
  "B-2210": { item: "toaster", status: "delivered" },
};

const lookupOrder = tool(
  "lookup_order",
  { description: "The order's item and shipping status.", input: { order_id: z.string() }, effects: "reads" },
  ({ order_id }) => ORDERS[order_id] ?? { error: `no order ${order_id}` },
);

const answer = ai("answer", {
  description: "Answer the customer's question. Look the order up first.",
  input: { question: z.string() },
  tools: [lookupOrder],
});

beforeEach(() => {
  resetConfiguration();
  clearHistory();
});

describe("A first tool (spec)", () => {
  it("loops: the model asks for the tool, gets its result, answers", async () => {
    const lm = scripted([
      { toolCalls: [{ name: "lookup_order", input: { order_id: "A-1042" }, id: "call_4TTubMWC0TVAIsJM7rFWMikd" }], usage: { inputTokens: 70, outputTokens: 15 } },
      { text: "<result>\nYour order A-1042, which is a kettle, is currently stuck at the carrier. It was shipped on September 2, 2026.\n</result>", usage: { inputTokens: 69, outputTokens: 24 } },
    ]);
    configure({ lm, temperature: 0 });
    const reply = await answer("Where is my order A-1042?");
    expect(reply).toBe("Your order A-1042, which is a kettle, is currently stuck at the carrier. It was shipped on September 2, 2026.");
    // the second request carries the tool result paired with its call
    const second = lm.requests[1]!;
    expect(second.messages.at(-2)).toMatchObject({ role: "assistant", toolCalls: [{ id: "call_4TTubMWC0TVAIsJM7rFWMikd", name: "lookup_order" }] });
    expect(second.messages.at(-1)).toEqual({ role: "tool", toolCallId: "call_4TTubMWC0TVAIsJM7rFWMikd", name: "lookup_order", content: JSON.stringify(ORDERS["A-1042"]) });
    expect(lm.requests[0]!.tools).toEqual([
      { name: "lookup_order", description: "The order's item and shipping status.", parameters: expect.objectContaining({ type: "object", required: ["order_id"] }) },
    ]);
    expect(lm.requests[0]!.temperature).toBe(0);
  });

  it("phistory shows the whole loop as the spec prints it", async () => {
    configure({
      lm: scripted([
        { toolCalls: [{ name: "lookup_order", input: { order_id: "A-1042" }, id: "call_4TTubMWC0TVAIsJM7rFWMikd" }], usage: { inputTokens: 70, outputTokens: 15 } },
        { text: "<result>\nIt is stuck at the carrier.\n</result>", usage: { inputTokens: 69, outputTokens: 24 } },
      ], { model: "gpt-4.1-mini" }),
    });
    await answer({ question: "Where is my order A-1042?" });
    const printed = phistory();
    expect(printed).toMatch(/^\[\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\] answer → gpt-4\.1-mini\n/);
    expect(printed).toContain(
      "System message:\n\nFunction: answer\n\nAnswer the customer's question. Look the order up first.\n\nReply in exactly this form:\n<result>\n...\n</result>\n",
    );
    expect(printed).toContain("User message:\n\n<question>\nWhere is my order A-1042?\n</question>\n");
    expect(printed).toContain('Assistant message:\n\n[tool call lookup_order({"order_id":"A-1042"})]\n');
    expect(printed).toContain(`Tool message:\n\n[tool result call_4TTubMWC0TVAIsJM7rFWMikd] ${JSON.stringify(ORDERS["A-1042"])}\n`);
    expect(printed).toContain("Tools: lookup_order\n");
    expect(printed).toContain("Response:\n\n<result>\nIt is stuck at the carrier.\n</result>\n");
    expect(printed).toContain("(finish: stop; tokens in 139, out 39)");
  });

  it("predict gives the result, every step and the tokens added up", async () => {
    const lm = scripted([
      { toolCalls: [{ name: "lookup_order", input: { order_id: "B-2210" } }], usage: { inputTokens: 110, outputTokens: 20 } },
      { text: "Yes, your toaster from order B-2210 has been delivered.", usage: { inputTokens: 110, outputTokens: 14 } },
    ]);
    const p = await answer.predict("Has my toaster, order B-2210, been delivered?", { lm });
    expect(p.result).toBe("Yes, your toaster from order B-2210 has been delivered.");
    expect(p.usage).toEqual({ inputTokens: 220, outputTokens: 34 });
    expect(p.steps).toHaveLength(2);
    expect(p.steps[0]!.response.toolCalls[0]!.name).toBe("lookup_order");
  });
});

describe("Several tools (spec)", () => {
  it("calls lookup_order, today and calculate, then answers", async () => {
    const calculate = tool("calculate", { description: "Evaluate an arithmetic expression, like '(15 * 23) + 10'.", input: { expression: z.string() }, effects: "reads" },
      ({ expression }) => {
        if (!/^[\d\s+\-*/().]+$/.test(expression)) throw new Error("only arithmetic");
        return Function(`"use strict"; return (${expression});`)() as number;
      });
    const today = tool("today", { description: "Today's date, as YYYY-MM-DD.", input: {}, effects: "reads" }, () => "2026-09-26");
    const assistant = ai("assistant", { description: "Answer the question, using the tools for facts and arithmetic.", input: { question: z.string() }, tools: [lookupOrder, calculate, today] });
    const lm = scripted([
      { toolCalls: [{ name: "lookup_order", input: { order_id: "A-1042" } }, { name: "today", input: {} }] },
      { toolCalls: [{ name: "calculate", input: { expression: "26 - 2" } }] },
      "Order A-1042 was shipped 24 days ago.",
    ]);
    expect(await assistant("How many days ago was order A-1042 shipped?", { lm })).toBe("Order A-1042 was shipped 24 days ago.");
    const results = lm.requests[2]!.messages.filter((m) => m.role === "tool").map((m) => m.content);
    expect(results).toEqual([JSON.stringify(ORDERS["A-1042"]), "2026-09-26", "24"]);
  });
});

describe("How the loop behaves (spec)", () => {
  it("stops at maxSteps with StepLimit (step-limit)", async () => {
    const loop = { toolCalls: [{ name: "lookup_order", input: { order_id: "A-1042" } }] };
    const lm = scripted([loop, loop, loop]);
    const err = await answer("Where?", { lm, maxSteps: 3 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StepLimit);
    expect((err as StepLimit).code).toBe("step-limit");
    expect(lm.requests).toHaveLength(3);
  });

  it("allows more steps with maxSteps on the function", async () => {
    const loop = { toolCalls: [{ name: "lookup_order", input: { order_id: "A-1042" } }] };
    const patient = ai("answer", { description: "d", input: { question: z.string() }, tools: [lookupOrder], maxSteps: 10 });
    const lm = scripted([...Array(9).fill(loop), "done"]);
    expect(await patient("q", { lm })).toBe("done");
  });
});
