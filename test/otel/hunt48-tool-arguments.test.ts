/**
 * Hunt 48: with content: true, a tool span's gen_ai.tool.call.arguments are the arguments the tool ran with. A
 * plugin after otel() may change a call's input (`{ input }`, DESIGN: "change its input"), and the tool then runs
 * with the changed one: the span showed the input as the model first gave it, not what ran.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { otel } from "../../adapters/otel/index.js";
import { ai, tool, type Plugin } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { one, tracing } from "./tracing.js";

describe("otel({ content: true }) and a plugin that changes a tool's input", () => {
  it("the execute_tool span holds the input the tool ran with", async () => {
    const ran: unknown[] = [];
    const lookup = tool("lookup_order", { description: "An order.", input: { order_id: z.string() }, effects: "reads" }, (input) => {
      ran.push(input);
      return { found: input.order_id };
    });
    const answer = ai("answer", { description: "Answer.", input: { question: z.string() }, tools: [lookup] });
    // a later plugin normalizes order ids before they reach the tool
    const normalize: Plugin = {
      name: "normalize",
      version: "1",
      hooks: { toolCall: (call) => ({ input: { order_id: String((call.input as { order_id: string }).order_id).toUpperCase() } }) },
    };
    const t = tracing();
    const lm = scripted([{ toolCalls: [{ name: "lookup_order", input: { order_id: "a-1042" } }] }, "Found."]);
    await answer("Where is a-1042?", { lm, plugins: [otel({ tracer: t.tracer, content: true }), normalize] });
    expect(ran).toEqual([{ order_id: "A-1042" }]);
    const span = one(t.spans(), "execute_tool lookup_order");
    expect(span.attributes["gen_ai.tool.call.arguments"]).toBe('{"order_id":"A-1042"}');
    expect(span.attributes["gen_ai.tool.call.result"]).toBe('{"found":"A-1042"}');
  });
});
