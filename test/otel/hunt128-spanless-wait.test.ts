/**
 * Hunt 128: a turn whose own span the tracer refused (a sampler with a bug) still has its run, which sees it end
 * (hunt 121), but `Run.stoppedFor` kept no waits for a run without a turn span, as if it were a spare run (which never
 * sees its end). So a turn started from a tool's body (billing asked in a conversation of its own) that stopped because
 * its own delegate waits for a person told its caller nothing: the calling tool's span ended as a failed call
 * (`error.type` turn-waiting, status ERROR), where with the span it ends as a wait. What a trace says of the caller
 * depended on whether the tracer kept a span elsewhere.
 */
import { SpanStatusCode, type Tracer } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { otel } from "../../adapters/otel/index.js";
import { ai, delegate, memoryStore, tool } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { named, one, tracing } from "./tracing.js";

/** The SDK's tracer, refusing the span named `refused`. */
function refusing(inner: Tracer, refused: string): Tracer {
  return {
    startSpan: (name, options, ctx) => {
      if (name === refused) throw new Error("sampler refused");
      return inner.startSpan(name, options, ctx);
    },
    startActiveSpan: inner.startActiveSpan.bind(inner) as Tracer["startActiveSpan"],
  };
}

describe("otel(): a turn without a span of its own stops for a person", () => {
  it("the tool that started it ends as a wait, not a failed call", async () => {
    const t = tracing();
    const plugin = otel({ tracer: refusing(t.tracer, "invoke_agent billing") });
    const store = memoryStore();
    const lm = scripted([
      { toolCalls: [{ name: "ask_billing", input: { q: "Refund A-1042" } }] },
      { toolCalls: [{ name: "payments", input: { question: "Refund A-1042" } }] },
      { toolCalls: [{ name: "refund", input: { order_id: "A-1042" } }] },
      "Billing waits for a person.",
    ]);
    const refund = tool(
      "refund",
      { description: "Refund.", input: { order_id: z.string() }, effects: "changes" },
      ({ order_id }) => `refunded ${order_id}`,
    );
    const payments = ai("payments", { description: "Payments.", input: { question: z.string() }, tools: [refund] });
    const billing = ai("billing", { description: "Billing.", input: { question: z.string() }, tools: [delegate(payments)] });
    // billing answers in a conversation of its own, sent from the tool's body: its turn is the tool call's child
    const askBilling = tool("ask_billing", { description: "Ask billing.", input: { q: z.string() }, effects: "reads" }, ({ q }) =>
      billing.conversation("billing-sam", { store, lm, approve: ["refund"], plugins: [plugin] }).send({ question: q }),
    );
    const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [askBilling] });
    expect(await desk.conversation("sam", { store, lm, plugins: [plugin] }).send("Refund please")).toBe("Billing waits for a person.");
    expect(named(t.spans(), "invoke_agent billing")).toEqual([]);
    const asked = one(t.spans(), "execute_tool ask_billing");
    expect([asked.attributes["functai.turn.state"], asked.attributes["error.type"], asked.status.code]).toEqual([
      "waiting",
      undefined,
      SpanStatusCode.UNSET,
    ]);
  });
});
