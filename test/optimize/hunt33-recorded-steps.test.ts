/**
 * Hunt 33: a passing run whose model called a tool the function does not have (a misspelt name, answered with an
 * error, then called right) was recorded whole, unknown call included; `withState` then refused that example (it
 * "calls a tool that is not a tool of this function"), so bootstrapFewShot rejected after every run was paid for.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { ai, bootstrapFewShot, tool, type LMRequest } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

const lookupOrder = tool(
  "lookup_order",
  { description: "The order's status.", input: { order_id: z.string() }, effects: "reads" },
  ({ order_id }) => ({ status: order_id === "A-1" ? "delivered" : "unknown" }),
);
const answer = ai("answer", { description: "Say the order's status.", input: { question: z.string() }, tools: [lookupOrder] });

describe("bootstrapFewShot: a run that called an unknown tool on its way", () => {
  it("passes, and its example keeps the good call and its result (not refused by withState)", async () => {
    const replies = [
      { toolCalls: [{ name: "lookup_ordr", input: { order_id: "A-1" } }] },
      { toolCalls: [{ name: "lookup_order", input: { order_id: "A-1" } }] },
      (req: LMRequest) => `<result>\n${JSON.parse(req.messages.at(-1)!.content).status}\n</result>`,
    ];
    const teacher = scripted(replies);
    const better = await bootstrapFewShot(answer, [{ question: "Where is A-1?", result: "delivered" }], { teacher, maxLabeled: 0 });
    expect(teacher.requests).toHaveLength(3);
    expect(better.demos).toHaveLength(1);
    const steps = better.demos[0]!.steps ?? [];
    expect(steps.flatMap((s) => s.toolCalls.map((c) => c.name))).toEqual(["lookup_order"]);
    expect(steps.flatMap((s) => s.results.map((r) => r.content))).toEqual([JSON.stringify({ status: "delivered" })]);
  });
});
