/**
 * functai/otel with the OpenTelemetry SDK's in-memory exporter: the spans of
 * a tool loop and their GenAI attributes, nested AI functions, approvals,
 * and no message text unless asked.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { otel } from "../../adapters/otel/index.js";
import { ai, tool } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { everything, idOf, named, one, parentOf, tracing } from "./tracing.js";

const ORDERS: Record<string, object> = { "A-1042": { item: "kettle", status: "stuck at carrier" } };
const lookupOrder = tool("lookup_order", { description: "The order's status.", input: { order_id: z.string() }, effects: "reads" }, ({ order_id }) => ORDERS[order_id] ?? { error: `no order ${order_id}` });
const refund = tool("refund", { description: "Refund.", input: { order_id: z.string(), amount: z.number() }, effects: "changes" }, ({ order_id, amount }) => `refunded ${amount} for ${order_id}`);
const answer = ai("answer", { description: "Answer the customer. Look the order up first.", input: { question: z.string() }, tools: [lookupOrder] });
const twoSteps = () => scripted([
  { toolCalls: [{ name: "lookup_order", input: { order_id: "A-1042" } }], usage: { inputTokens: 120, outputTokens: 12 } },
  { text: "Your kettle is stuck at the carrier.", usage: { inputTokens: 160, outputTokens: 9 } },
]);

describe("otel()", () => {
  it("a two-step tool loop: invoke_agent, two chat spans and one execute_tool, with the GenAI attributes", async () => {
    const t = tracing();
    const reply = await answer("Where is my order A-1042?", { lm: twoSteps(), plugins: [otel({ tracer: t.tracer })] });
    expect(reply).toBe("Your kettle is stuck at the carrier.");
    const spans = t.spans();
    expect(spans.map((s) => s.name).sort()).toEqual(["chat scripted", "chat scripted", "execute_tool lookup_order", "invoke_agent answer"]);
    const turn = one(spans, "invoke_agent answer");
    expect(parentOf(turn)).toBeUndefined();
    expect(turn.attributes).toMatchObject({ "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "answer", "functai.turn.state": "done", "gen_ai.usage.input_tokens": 280, "gen_ai.usage.output_tokens": 21 });
    expect(new Set(spans.map((s) => s.spanContext().traceId)).size).toBe(1);

    const [first, second] = named(spans, "chat scripted").sort((a, b) => Number(a.attributes["functai.step"]) - Number(b.attributes["functai.step"]));
    for (const chat of [first!, second!]) {
      expect(parentOf(chat)).toBe(idOf(turn));
      expect(chat.kind).toBe(2); // SpanKind.CLIENT
      expect(chat.attributes).toMatchObject({ "gen_ai.operation.name": "chat", "gen_ai.request.model": "scripted", "gen_ai.provider.name": "scripted" });
    }
    expect(first!.attributes).toMatchObject({ "gen_ai.usage.input_tokens": 120, "gen_ai.usage.output_tokens": 12, "gen_ai.response.finish_reasons": ["tool_calls"] });
    expect(second!.attributes).toMatchObject({ "gen_ai.usage.input_tokens": 160, "gen_ai.usage.output_tokens": 9, "gen_ai.response.finish_reasons": ["stop"] });

    const run = one(spans, "execute_tool lookup_order");
    expect(parentOf(run)).toBe(idOf(turn));
    expect(run.attributes).toMatchObject({
      "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "lookup_order", "gen_ai.tool.call.id": "call_1_1",
      "functai.effects": "reads", "functai.invocation": 1, "functai.approval": "not-asked",
    });
  });

  it("records no message text by default; with content: true it does", async () => {
    const quiet = tracing();
    await answer("Where is my order A-1042?", { lm: twoSteps(), plugins: [otel({ tracer: quiet.tracer })] });
    const text = everything(quiet.spans());
    for (const secret of ["Where is my order", "A-1042", "kettle", "Look the order up"]) expect(text).not.toContain(secret);

    const loud = tracing();
    await answer("Where is my order A-1042?", { lm: twoSteps(), plugins: [otel({ tracer: loud.tracer, content: true })] });
    const spans = loud.spans();
    expect(String(named(spans, "chat scripted").find((s) => s.attributes["functai.step"] === 1)!.attributes["gen_ai.input.messages"])).toContain("Where is my order A-1042?");
    expect(one(spans, "execute_tool lookup_order").attributes).toMatchObject({ "gen_ai.tool.call.arguments": '{"order_id":"A-1042"}', "gen_ai.tool.call.result": '{"item":"kettle","status":"stuck at carrier"}' });
  });

  it("an AI function used as a tool: its model calls are children of its execute_tool span; an approved call says so", async () => {
    const t = tracing();
    const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [answer, refund] });
    const lm = scripted([
      { toolCalls: [{ name: "answer", input: { question: "Where is A-1042?" } }] },
      { toolCalls: [{ name: "lookup_order", input: { order_id: "A-1042" } }] },
      "stuck at carrier",
      { toolCalls: [{ name: "refund", input: { order_id: "A-1042", amount: 39 } }] },
      "Refunded.",
    ]);
    await desk("Refund A-1042 if it is stuck.", { lm, plugins: [otel({ tracer: t.tracer })], approve: () => true });
    const spans = t.spans();
    const turn = one(spans, "invoke_agent desk");
    const asTool = one(spans, "execute_tool answer");
    expect(parentOf(asTool)).toBe(idOf(turn));
    const inner = named(spans, "chat scripted").filter((s) => parentOf(s) === idOf(asTool));
    expect(inner.map((s) => s.attributes["functai.site"])).toEqual(["desk#1/answer#1", "desk#1/answer#1"]);
    expect(parentOf(one(spans, "execute_tool lookup_order"))).toBe(idOf(asTool));
    expect(named(spans, "chat scripted").filter((s) => parentOf(s) === idOf(turn))).toHaveLength(3);
    expect(one(spans, "execute_tool refund").attributes).toMatchObject({ "functai.effects": "changes", "functai.approval": "approved" });
    expect(one(spans, "execute_tool lookup_order").attributes).toMatchObject({ "functai.approval": "not-asked" });
  });

  it("a failing tool and a failing model call end their spans as errors", async () => {
    const t = tracing();
    const broken = tool("broken", { description: "Fails.", input: {}, effects: "reads" }, () => {
      throw new Error("database down at kettle row");
    });
    const fn = ai("fn", { description: "x", input: { q: z.string() }, tools: [broken] });
    const lm = scripted([{ toolCalls: [{ name: "broken", input: {} }] }]);
    await expect(fn("go", { lm, plugins: [otel({ tracer: t.tracer })] })).rejects.toMatchObject({ code: "lm-script-ended" });
    const spans = t.spans();
    expect(one(spans, "execute_tool broken").status).toEqual({ code: 2 });
    expect(one(spans, "execute_tool broken").attributes["error.type"]).toBe("tool_error");
    expect(everything(spans)).not.toContain("database down");
    const failedChat = named(spans, "chat scripted").find((s) => s.attributes["functai.step"] === 2)!;
    expect(failedChat.status.code).toBe(2);
    expect(one(spans, "invoke_agent fn").attributes).toMatchObject({ "functai.turn.state": "failed", "error.type": "lm-script-ended" });
  });
});
