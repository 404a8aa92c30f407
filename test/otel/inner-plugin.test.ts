/**
 * otel() given to an AI function below a turn's outermost call (its
 * `using`), so it never sees the turns start: two turns at once through the
 * same functions keep their spans apart, each nested under its own tool call.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { otel } from "../../adapters/otel/index.js";
import { ai, tool, type LMRequest } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { idOf, named, parentOf, tracing } from "./tracing.js";

describe("otel() below the outermost call", () => {
  it("two turns at once: each look span is a child of its own turn's sub span, in its trace", async () => {
    const t = tracing();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    // turn a's look waits until turn b has called sub (same site, same invocation)
    const look = tool("look", { description: "Look.", input: { id: z.string() }, effects: "reads" }, async ({ id }) => {
      if (id === "a") await gate;
      return `found ${id}`;
    });
    const sub = ai("sub", { description: "Sub.", input: { q: z.string() }, tools: [look] });
    const mid = ai("mid", { description: "Mid.", input: { q: z.string() }, tools: [sub] }).using({ plugins: [otel({ tracer: t.tracer, content: true })] });
    const desk = ai("desk", { description: "Desk.", input: { q: z.string() }, tools: [mid] });
    const lmFor = (id: string) => scripted([
      { toolCalls: [{ name: "mid", input: { q: id } }] },
      { toolCalls: [{ name: "sub", input: { q: id } }] },
      (request: LMRequest) => (request.messages.some((m) => m.role === "tool") ? "sub done" : { toolCalls: [{ name: "look", input: { id } }] }),
      (request: LMRequest) => (request.messages.filter((m) => m.role === "tool").length > 0 ? "sub done" : { toolCalls: [{ name: "look", input: { id } }] }),
      "mid done",
      "desk done",
    ]);
    const a = desk("a", { lm: lmFor("a") });
    for (let i = 0; i < 50 && !named(t.spans(), "chat scripted").some((s) => s.attributes["functai.site"] === "desk#1/mid#1/sub#1"); i++) await new Promise((r) => setTimeout(r, 5));
    await desk("b", { lm: lmFor("b") });
    release();
    await a;
    const spans = t.spans();
    for (const id of ["a", "b"]) {
      const subSpan = named(spans, "execute_tool sub").find((s) => s.attributes["gen_ai.tool.call.arguments"] === JSON.stringify({ q: id }))!;
      const lookSpan = named(spans, "execute_tool look").find((s) => s.attributes["gen_ai.tool.call.arguments"] === JSON.stringify({ id }))!;
      expect(parentOf(lookSpan), id).toBe(idOf(subSpan));
      expect(lookSpan.spanContext().traceId).toBe(subSpan.spanContext().traceId);
    }
  });
});
