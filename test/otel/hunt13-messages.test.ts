/**
 * Hunt 13: message contents, when asked for (`otel({ content: true })`), in
 * the GenAI semantic conventions' shape. DESIGN ("Outside tools and traces"):
 * otel() "makes spans with the GenAI semantic conventions". The conventions'
 * `gen_ai.input.messages` and `gen_ai.output.messages` hold messages of a
 * `role` and `parts` (`{ type: "text", content }`, `{ type: "tool_call", id,
 * name, arguments }`, `{ type: "tool_call_response", id, response }`), an
 * output message with its `finish_reason` (`tool_call`, `stop`, …). otel()
 * wrote functai's own messages under those names (`{ role, content,
 * toolCalls }`, no parts), which a reader of the conventions cannot read.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { otel } from "../../adapters/otel/index.js";
import { ai, tool } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { named, tracing } from "./tracing.js";

const lookupOrder = tool(
  "lookup_order",
  { description: "The order's status.", input: { order_id: z.string() }, effects: "reads" },
  ({ order_id }) => ({ order_id, status: "stuck at carrier" }),
);
const answer = ai("answer", { description: "Answer the customer.", input: { question: z.string() }, tools: [lookupOrder] });

type Part = { type: string; [key: string]: unknown };
type ChatMessage = { role: string; parts: Part[]; finish_reason?: string };

const messagesOf = (value: unknown): ChatMessage[] => {
  const parsed = JSON.parse(String(value)) as ChatMessage[];
  expect(Array.isArray(parsed)).toBe(true);
  for (const m of parsed) {
    expect(typeof m.role, JSON.stringify(m)).toBe("string");
    expect(Array.isArray(m.parts), JSON.stringify(m)).toBe(true);
    for (const p of m.parts) expect(typeof p.type, JSON.stringify(p)).toBe("string");
  }
  return parsed;
};

describe("otel({ content: true }): messages as the GenAI conventions hold them", () => {
  it("input and output messages are role and parts; tool calls and their answers are parts; an output message has its finish_reason", async () => {
    const t = tracing();
    const lm = scripted([{ toolCalls: [{ name: "lookup_order", input: { order_id: "A-1042" } }] }, "It is stuck at the carrier."]);
    await answer("Where is A-1042?", { lm, plugins: [otel({ tracer: t.tracer, content: true })] });
    const [first, second] = named(t.spans(), "chat scripted").sort(
      (a, b) => Number(a.attributes["functai.step"]) - Number(b.attributes["functai.step"]),
    );

    const asked = messagesOf(first!.attributes["gen_ai.input.messages"]);
    expect(asked.find((m) => m.role === "user")!.parts).toEqual([{ type: "text", content: expect.stringContaining("Where is A-1042?") }]);
    expect(messagesOf(first!.attributes["gen_ai.output.messages"])).toEqual([
      {
        role: "assistant",
        parts: [{ type: "tool_call", id: "call_1_1", name: "lookup_order", arguments: { order_id: "A-1042" } }],
        finish_reason: "tool_call",
      },
    ]);

    const again = messagesOf(second!.attributes["gen_ai.input.messages"]);
    expect(again.at(-2)).toEqual({
      role: "assistant",
      parts: [{ type: "tool_call", id: "call_1_1", name: "lookup_order", arguments: { order_id: "A-1042" } }],
    });
    expect(again.at(-1)).toEqual({
      role: "tool",
      parts: [{ type: "tool_call_response", id: "call_1_1", response: '{"order_id":"A-1042","status":"stuck at carrier"}' }],
    });
    expect(messagesOf(second!.attributes["gen_ai.output.messages"])).toEqual([
      { role: "assistant", parts: [{ type: "text", content: "It is stuck at the carrier." }], finish_reason: "stop" },
    ]);
  });
});
