/**
 * A delegated turn that waits for a person stops its caller's turn without
 * ending it (resumable: answer the delegated turn, then resume the caller).
 * Nothing failed: the delegated turn's span ends as a wait (no error), and so
 * must the delegate's execute_tool span and the calling turn's span. They
 * were marked ERROR (`tool_error`, `interrupted`), as if a tool had broken,
 * and a trace backend counted a person's pending approval as a failure.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { otel } from "../../adapters/otel/index.js";
import { ai, delegate, memoryStore, tool } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { idOf, named, one, parentOf, tracing } from "./tracing.js";

/** The changing tool each desk's innermost delegate asks a person about. */
const refundTool = () =>
  tool("refund", { description: "Refund.", input: { order_id: z.string() }, effects: "changes" }, ({ order_id }) => `refunded ${order_id}`);

describe("otel(): a delegated turn waits for a person", () => {
  it("the delegate's execute_tool span and the calling turn's span are not errors; the calling turn's span says what it waits for", async () => {
    const t = tracing();
    const refund = refundTool();
    const billing = ai("billing", { description: "Billing.", input: { question: z.string() }, tools: [refund] });
    const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [delegate(billing)] });
    const lm = scripted([
      { toolCalls: [{ name: "billing", input: { question: "Refund A-1042" } }] },
      { toolCalls: [{ name: "refund", input: { order_id: "A-1042" } }] },
      "Refunded.",
      "Done.",
    ]);
    const chat = desk.conversation("sam", { store: memoryStore(), lm, approve: ["refund"], plugins: [otel({ tracer: t.tracer })] });
    await expect(chat.send("Refund please")).rejects.toThrow(/needs a person first/);
    const spans = t.spans();
    const delegated = one(spans, "invoke_agent billing");
    const asTool = one(spans, "execute_tool billing");
    const caller = one(spans, "invoke_agent desk");
    expect(parentOf(delegated)).toBe(idOf(asTool));
    expect(delegated.attributes["functai.turn.state"]).toBe("waiting");
    expect(delegated.status.code).toBe(0);

    expect(asTool.status.code).toBe(0);
    expect(asTool.attributes["error.type"]).toBeUndefined();
    expect(asTool.attributes["functai.turn.state"]).toBe("waiting");

    expect(caller.status.code).toBe(0);
    expect(caller.attributes["error.type"]).toBeUndefined();
    const wait = caller.events.find((e) => e.name === "functai.wait");
    expect(wait?.attributes?.["functai.wait.approvals"]).toEqual(["billing/refund"]);
  });

  it("two levels down (desk delegates to billing, billing to payments, whose refund waits): no span between them is an error", async () => {
    const t = tracing();
    const refund = refundTool();
    const payments = ai("payments", { description: "Payments.", input: { question: z.string() }, tools: [refund] });
    const billing = ai("billing", { description: "Billing.", input: { question: z.string() }, tools: [delegate(payments)] });
    const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [delegate(billing)] });
    const lm = scripted([
      { toolCalls: [{ name: "billing", input: { question: "Refund A-1042" } }] },
      { toolCalls: [{ name: "payments", input: { question: "Refund A-1042" } }] },
      { toolCalls: [{ name: "refund", input: { order_id: "A-1042" } }] },
      "Refunded.",
      "Done.",
      "Done.",
    ]);
    const chat = desk.conversation("sam", { store: memoryStore(), lm, approve: ["refund"], plugins: [otel({ tracer: t.tracer })] });
    await expect(chat.send("Refund please")).rejects.toThrow(/needs a person first/);
    const spans = t.spans();
    expect(spans.map((s) => s.name).sort()).toEqual([
      "chat scripted",
      "chat scripted",
      "chat scripted",
      "execute_tool billing",
      "execute_tool payments",
      "invoke_agent billing",
      "invoke_agent desk",
      "invoke_agent payments",
    ]);
    for (const s of spans) expect([s.name, s.status.code, s.attributes["error.type"]]).toEqual([s.name, 0, undefined]);
    const wait = one(spans, "invoke_agent desk").events.find((e) => e.name === "functai.wait");
    expect(wait?.attributes?.["functai.wait.approvals"]).toEqual(["payments/refund"]);
  });

  // The sibling call refused with conversation-busy started no delegated turn, so otel() had nothing to tell its stop
  // from a tool's failure but the error's text. Fixed by hunt 31: PluginToolResult.needsPerson (src/plugins/types.ts,
  // given by src/engine/tool-calls.ts `inDoubt`) says the call stopped for a person, and for which approvals.
  it("two calls of one delegate in a step: the one refused because its conversation waits (conversation-busy) is no error either", async () => {
    const t = tracing();
    const refund = refundTool();
    const billing = ai("billing", { description: "Billing.", input: { question: z.string() }, tools: [refund] });
    const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [delegate(billing)] });
    const lm = scripted([
      {
        toolCalls: [
          { name: "billing", input: { question: "Refund A-1042" } },
          { name: "billing", input: { question: "Refund B-2210" } },
        ],
      },
      { toolCalls: [{ name: "refund", input: { order_id: "A-1042" } }] },
      "Refunded.",
      "Done.",
    ]);
    const chat = desk.conversation("sam", { store: memoryStore(), lm, approve: ["refund"], plugins: [otel({ tracer: t.tracer })] });
    await expect(chat.send("Refund both")).rejects.toThrow(/needs a person first/);
    const tools = named(t.spans(), "execute_tool billing");
    expect(tools).toHaveLength(2);
    for (const s of tools) expect([s.status.code, s.attributes["error.type"]]).toEqual([0, undefined]);
  });
});
