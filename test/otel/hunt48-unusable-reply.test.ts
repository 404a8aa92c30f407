/**
 * Hunt 48: a model whose reply the engine refuses (provider-response: no usage, not JSON) must fail the turn the
 * same way with otel() as without it, never with plugin-failed, and its chat span must say the reply was refused,
 * not count it as a good reply. A reply the engine takes but whose finish reason or model is missing or not text
 * (a custom LanguageModel's) gives only string attributes, never [null] or an object.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { otel } from "../../adapters/otel/index.js";
import { ai, LM_SPEC, tool, type LanguageModel, type LMResponse } from "../../src/index.js";
import { one, tracing } from "./tracing.js";

const look = tool("look", { description: "Look.", input: { q: z.string() }, effects: "reads" }, ({ q }) => ({ q, found: true }));
const answer = ai("answer", { description: "Answer.", input: { question: z.string() }, tools: [look] });

/** A custom model that gives back `reply` as it is. */
const giving = (reply: unknown): LanguageModel => ({
  specificationVersion: LM_SPEC,
  provider: "custom",
  model: "custom-1",
  nativeTools: true,
  generate: async () => reply as LMResponse,
});

const errorOf = (p: Promise<unknown>): Promise<{ code?: string; message?: string }> =>
  p.then(
    () => ({}),
    (e: { code?: string; message?: string }) => e,
  );

describe("otel() and a reply the engine refuses", () => {
  it("a reply without usage fails the turn provider-response, as without tracing; its chat span is an error and counts nothing", async () => {
    const reply = { text: "Hi.", toolCalls: [], finishReason: "stop" };
    const plain = await errorOf(answer("Where is it?", { lm: giving(reply) }));
    expect(plain.code).toBe("provider-response");
    const t = tracing();
    const traced = await errorOf(answer("Where is it?", { lm: giving(reply), plugins: [otel({ tracer: t.tracer })] }));
    expect(traced.code).toBe("provider-response");
    expect(traced.message).toBe(plain.message);
    const chat = one(t.spans(), "chat custom-1");
    expect(chat.status.code).toBe(2); // SpanStatusCode.ERROR
    expect(chat.attributes["error.type"]).toBe("provider-response");
    expect(chat.attributes["gen_ai.response.finish_reasons"]).toBeUndefined();
    const turn = one(t.spans(), "invoke_agent answer");
    expect(turn.attributes).toMatchObject({ "error.type": "provider-response", "gen_ai.usage.input_tokens": 0, "gen_ai.usage.output_tokens": 0 });
  });

  it("a reply that is not JSON (a BigInt in it): its chat span is an error, not a good reply with a finish reason", async () => {
    const reply = { text: "Hi.", toolCalls: [], finishReason: "stop", usage: { inputTokens: 7, outputTokens: 3 }, extra: 1n };
    const t = tracing();
    const traced = await errorOf(answer("Where is it?", { lm: giving(reply), plugins: [otel({ tracer: t.tracer })] }));
    expect(traced.code).toBe("provider-response");
    const chat = one(t.spans(), "chat custom-1");
    expect(chat.status.code).toBe(2);
    expect(chat.attributes["error.type"]).toBe("provider-response");
    expect(chat.attributes["gen_ai.response.finish_reasons"]).toBeUndefined();
  });

  it("content: true records the refusal's text on the chat span, as for any failed model call", async () => {
    const t = tracing();
    await errorOf(answer("Where is it?", { lm: giving({ text: "Hi.", toolCalls: [] }), plugins: [otel({ tracer: t.tracer, content: true })] }));
    expect(one(t.spans(), "chat custom-1").status.message).toMatch(/usage has no inputTokens/);
  });

  it("a reply taken with a model that is not text: no [null], no object in the attributes", async () => {
    const t = tracing();
    const reply = { text: "Hi.", toolCalls: [], finishReason: "stop", usage: { inputTokens: 4, outputTokens: 2 }, model: { name: "custom-1" } };
    expect(await answer("Where is it?", { lm: giving(reply), plugins: [otel({ tracer: t.tracer })] })).toBe("Hi.");
    const chat = one(t.spans(), "chat custom-1");
    expect(chat.status.code).toBe(0);
    expect(chat.attributes).toMatchObject({ "gen_ai.usage.input_tokens": 4, "gen_ai.usage.output_tokens": 2 });
    for (const value of Object.values(chat.attributes)) {
      const items = Array.isArray(value) ? value : [value];
      for (const item of items) expect(["string", "number", "boolean"]).toContain(typeof item);
    }
    expect("gen_ai.response.model" in chat.attributes).toBe(false);
  });

  it("a finish reason functai does not have (a custom model's \"constructor\", an own key of objects) fails the turn provider-response, as without tracing; its chat span is an error", async () => {
    const reply = { text: "Hi.", toolCalls: [], finishReason: "constructor", usage: { inputTokens: 4, outputTokens: 2 } };
    const plain = await errorOf(answer("Where is it?", { lm: giving(reply) }));
    expect(plain.code).toBe("provider-response");
    expect(plain.message).toContain('finishReason is "constructor"');
    const t = tracing();
    const traced = await errorOf(answer("Where is it?", { lm: giving(reply), plugins: [otel({ tracer: t.tracer, content: true })] }));
    expect(traced.message).toBe(plain.message);
    const chat = one(t.spans(), "chat custom-1");
    expect(chat.status.code).toBe(2);
    expect(chat.attributes["error.type"]).toBe("provider-response");
    expect(chat.attributes["gen_ai.response.finish_reasons"]).toBeUndefined();
  });
});
