/**
 * Hunt 48: a model without native tools (`nativeTools: false`: tools offered as text, its calls written in its
 * text) asks for a tool, and the engine reads the reply as a tool call (finish reason tool_calls: its journal, its
 * stream's `reply` event, phistory). The chat span says what the wire said instead: finish reason ["stop"], and
 * with content: true an output message of text holding `<tool_call>` markup and no tool_call part, while the next
 * chat span's input messages hold that same reply as a tool_call part. A backend reading the conventions sees a
 * model that answered, then a history where it asked for a tool.
 *
 * Needs a decision on the hook contract: `modelResponse` is shown the provider's reply before the engine reads
 * text tool calls out of it (src/engine/ai-call.ts `ask`: fromTextResponse runs after observeModelCall). Either
 * the hook is shown the reply as functai reads it (fromTextResponse inside the observed call), or it is told the
 * model has no native tools (a `nativeTools` field), so a plugin can read it so itself. Left as it.fails.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { otel } from "../../adapters/otel/index.js";
import { ai, tool } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { named, tracing } from "./tracing.js";

describe("otel() and a model that writes its tool calls as text", () => {
  it("the chat span of a reply asking for a tool says tool_calls, and its output message has the tool_call part", async () => {
    const look = tool("lookup_order", { description: "An order.", input: { order_id: z.string() }, effects: "reads" }, ({ order_id }) => ({
      order_id,
      status: "late",
    }));
    const answer = ai("answer", { description: "Answer.", input: { question: z.string() }, tools: [look] });
    const t = tracing();
    const lm = scripted([{ toolCalls: [{ name: "lookup_order", input: { order_id: "A-1042" } }] }, "It is late."], { nativeTools: false });
    const p = await answer.predict("Where is A-1042?", { lm, plugins: [otel({ tracer: t.tracer, content: true })] });
    // the engine read the first reply as a tool call, and ran it
    expect(p.steps[0]!.response.finishReason).toBe("tool_calls");
    const [first] = named(t.spans(), "chat scripted").sort((a, b) => Number(a.attributes["functai.step"]) - Number(b.attributes["functai.step"]));
    expect(first!.attributes["gen_ai.response.finish_reasons"]).toEqual(["tool_calls"]);
    const output = JSON.parse(String(first!.attributes["gen_ai.output.messages"])) as {
      parts: { type: string; name?: string }[];
      finish_reason: string;
    }[];
    expect(output[0]!.finish_reason).toBe("tool_call");
    expect(output[0]!.parts).toContainEqual(expect.objectContaining({ type: "tool_call", name: "lookup_order" }));
  });
});
