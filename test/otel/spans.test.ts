/**
 * functai/otel with the OpenTelemetry SDK's in-memory exporter: the spans of
 * a tool loop and their GenAI attributes, nested AI functions and delegated
 * turns, approvals, no message text unless asked, and a tracer that throws.
 */
import { diag, DiagLogLevel } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type SpanProcessor } from "@opentelemetry/sdk-trace-base";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { otel } from "../../adapters/otel/index.js";
import { ai, delegate, memoryStore, tool } from "../../src/index.js";
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

  it("a delegated turn's spans are children of the delegate's execute_tool span, in the caller's trace", async () => {
    const t = tracing();
    const billing = ai("billing", { description: "Billing questions.", input: { question: z.string() }, tools: [lookupOrder] });
    const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [delegate(billing)] });
    const lm = scripted([
      { toolCalls: [{ name: "billing", input: { question: "Was A-1042 charged?" } }] },
      { toolCalls: [{ name: "lookup_order", input: { order_id: "A-1042" } }] },
      "Charged once.",
      "Billing says it was charged once.",
    ]);
    const chat = desk.conversation("sam", { store: memoryStore(), lm, plugins: [otel({ tracer: t.tracer })] });
    expect(await chat.send("Was I charged twice?")).toBe("Billing says it was charged once.");
    const spans = t.spans();
    expect(new Set(spans.map((s) => s.spanContext().traceId)).size).toBe(1);
    const asTool = one(spans, "execute_tool billing");
    expect(parentOf(asTool)).toBe(idOf(one(spans, "invoke_agent desk")));
    const delegated = one(spans, "invoke_agent billing");
    expect(delegated.attributes).toMatchObject({ "gen_ai.conversation.id": "sam.billing", "functai.turn.state": "done" });
    expect(parentOf(delegated)).toBe(idOf(asTool));
    expect(parentOf(one(spans, "execute_tool lookup_order"))).toBe(idOf(delegated));
    expect(named(spans, "chat scripted").filter((s) => parentOf(s) === idOf(delegated))).toHaveLength(2);
  });
});

describe("otel() with a tracer that throws", () => {
  afterEach(() => diag.disable());

  it("a span processor that throws is reported to OpenTelemetry's diagnostics; the turn and its tools go on as without tracing", async () => {
    const reported: string[] = [];
    diag.setLogger({ error: (m) => void reported.push(m), warn: () => {}, info: () => {}, debug: () => {}, verbose: () => {} }, DiagLogLevel.ERROR);
    // a user's processor with bugs: it throws as chat spans start and as tool spans end
    const broken: SpanProcessor = {
      onStart: (span) => {
        if (span.name.startsWith("chat")) throw new Error("processor bug on start");
      },
      onEnd: (span) => {
        if (span.name.startsWith("execute_tool")) throw new Error("processor bug on end");
      },
      forceFlush: async () => {},
      shutdown: async () => {},
    };
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [broken, new SimpleSpanProcessor(exporter)] });
    const refunds: string[] = [];
    const refundOnce = tool("refund", { description: "Refund.", input: { order_id: z.string() }, effects: "changes" }, ({ order_id }) => {
      refunds.push(order_id);
      return `refunded ${order_id}`;
    });
    const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [lookupOrder, refundOnce] });
    const lm = scripted([
      { toolCalls: [{ name: "lookup_order", input: { order_id: "A-1042" } }] },
      { toolCalls: [{ name: "refund", input: { order_id: "A-1042" } }] },
      "Refunded.",
    ]);
    const reply = await desk("Refund A-1042.", { lm, approve: () => true, plugins: [otel({ tracer: provider.getTracer("broken") })] });
    expect(reply).toBe("Refunded.");
    expect(refunds).toEqual(["A-1042"]);
    expect(reported.some((m) => m.includes("processor bug on start"))).toBe(true);
    expect(reported.some((m) => m.includes("processor bug on end"))).toBe(true);
    // what the processor did not break still reaches the exporter
    expect(exporter.getFinishedSpans().map((s) => s.name)).toEqual(["invoke_agent desk"]);
  });
});
