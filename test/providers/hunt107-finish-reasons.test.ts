/**
 * Finish reasons OpenAI-compatible APIs send beside OpenAI's own, whole and
 * streamed, that say the reply did not end as a whole one:
 * - Mistral's `"model_length"` (cut off at the model's context length; its
 *   token limit is `"length"`) and Zhipu GLM's `"model_context_window_exceeded"`:
 *   a cut reply, which finishes by `"length"` (README: asked again, then
 *   refused), its last tool call cut short so it never runs;
 * - GLM's `"sensitive"` (stopped by its safety review): a reply a filter
 *   stopped, `"content_filter"`;
 * - DeepSeek's `"insufficient_system_resource"` ("the request is interrupted
 *   due to insufficient resource of the inference system") and GLM's
 *   `"network_error"` (its model failed mid-reply): the server's failure,
 *   `provider-server`, tried again as vLLM's `"error"` is, never the answer.
 * Each was read as a whole reply (`finishReason: "other"`): its cut text the
 * answer, a cut call whose half input read as valid JSON run.
 */
import { describe, expect, it } from "vitest";
import type { LMRequest, ToolSpec } from "../../src/lm/types.js";
import { openai } from "../../src/providers/openai.js";
import { type MockServer, eachTestServer, failure } from "./server.js";

const refund: ToolSpec = {
  name: "refund",
  description: "Refund an order.",
  parameters: { type: "object", properties: { order_id: { type: "string" }, amount: { type: "number" } }, required: ["order_id"] },
};
const ask: LMRequest = { messages: [{ role: "user", content: "Refund A-1042 in full" }], tools: [refund] };

let server: MockServer;
eachTestServer((s) => (server = s));
const compatible = (model: string, maxRetries = 0) => openai({ model, apiKey: "test-key", baseURL: `${server.url}/v1`, maxRetries });

/** A call as these APIs give one: its arguments the JSON's text. */
const call = (args: string) => ({ index: 0, id: "call_0_5c0a", type: "function", function: { name: "refund", arguments: args } });
const usage = { prompt_tokens: 31990, completion_tokens: 10, total_tokens: 32000 };

/** A whole completion, as the API serving `model` sends one. */
const whole = (model: string, content: string, finish_reason: string, tool_calls?: unknown[]) => ({
  id: "cmpl-e5cc70bb28c444948073e77776eb30ef",
  object: "chat.completion",
  created: 1764400000,
  model,
  choices: [{ index: 0, message: { role: "assistant", content, ...(tool_calls ? { tool_calls } : {}) }, finish_reason }],
  usage,
});

/** A stream: a role chunk, a chunk per delta (the finish and usage on the last), then `[DONE]`. */
function stream(model: string, deltas: unknown[], finish: string): string {
  const chunk = (delta: unknown, last: boolean): string =>
    `data: ${JSON.stringify({
      id: "c5ba1a3b1b7c4e7f",
      object: "chat.completion.chunk",
      created: 1764400000,
      model,
      choices: [{ index: 0, delta, finish_reason: last ? finish : null }],
      ...(last ? { usage } : {}),
    })}\n\n`;
  return `${chunk({ role: "assistant", content: "" }, false)}${deltas.map((d, i) => chunk(d, i === deltas.length - 1)).join("")}data: [DONE]\n\n`;
}

describe("openai: a reply cut off at the model's context length", () => {
  for (const [model, reason] of [
    ["mistral-small-latest", "model_length"],
    ["glm-4.6", "model_context_window_exceeded"],
  ] as const) {
    it(`${reason} (whole): finishes by length`, async () => {
      server.reply({ json: whole(model, "The refund of A-1042 comes to", reason) });
      expect(await compatible(model).generate(ask)).toMatchObject({ text: "The refund of A-1042 comes to", finishReason: "length" });
    });

    it(`${reason} (whole): its tool call, though its input reads as JSON, is cut short`, async () => {
      server.reply({ json: whole(model, "", reason, [call('{"order_id": "A-1042"}')]) });
      const [cut] = (await compatible(model).generate(ask)).toolCalls;
      expect(cut).toMatchObject({ id: "call_0_5c0a", name: "refund" });
      expect(cut!.inputError).toMatch(/cut off/);
    });

    it(`${reason} (streamed): finishes by length, its call cut short`, async () => {
      server.reply({ sse: stream(model, [{ content: "Refunding. " }, { tool_calls: [call('{"order_id": "A-1042"}')] }], reason) });
      const reply = await compatible(model).generate(ask, { onText: () => {} });
      expect(reply.finishReason).toBe("length");
      expect(reply.toolCalls[0]!.inputError).toMatch(/cut off/);
    });
  }
});

describe("openai: a reply GLM's safety review stopped (sensitive)", () => {
  it("whole: finishes by content_filter", async () => {
    server.reply({ json: whole("glm-4.6", "The account holder's", "sensitive") });
    expect((await compatible("glm-4.6").generate(ask)).finishReason).toBe("content_filter");
  });

  it("streamed: finishes by content_filter, its call cut short", async () => {
    server.reply({ sse: stream("glm-4.6", [{ tool_calls: [call('{"order_id": "A-1042"}')] }], "sensitive") });
    const reply = await compatible("glm-4.6").generate(ask, { onText: () => {} });
    expect(reply.finishReason).toBe("content_filter");
    expect(reply.toolCalls[0]!.inputError).toMatch(/cut off/);
  });
});

describe("openai: a reply the server failed to finish", () => {
  for (const [model, reason] of [
    ["deepseek-chat", "insufficient_system_resource"],
    ["glm-4.6", "network_error"],
  ] as const) {
    it(`${reason} (whole): is the server's failure, not the answer`, async () => {
      server.reply({ json: whole(model, "The refund of A-1042 is", reason) });
      const e = await failure(compatible(model).generate(ask));
      expect(e.code).toBe("provider-server");
      expect(e.message).toContain(reason);
    });

    it(`${reason} (whole): is asked again, and the whole reply that follows is the answer`, async () => {
      server.reply({ json: whole(model, "The refund of A-1042 is", reason) }, { json: whole(model, "Refunded.", "stop") });
      expect((await compatible(model, 1).generate(ask)).text).toBe("Refunded.");
      expect(server.requests).toHaveLength(2);
    });

    it(`${reason} (whole): its tool call is not run`, async () => {
      server.reply({ json: whole(model, "", reason, [call('{"order_id": "A-1042"}')]) });
      expect((await failure(compatible(model).generate(ask))).code).toBe("provider-server");
    });

    it(`${reason} (streamed), nothing shown yet: asked again`, async () => {
      server.reply(
        { sse: stream(model, [{ tool_calls: [call('{"order_id": "A-10')] }], reason) },
        { sse: stream(model, [{ content: "Refunded." }], "stop") },
      );
      const reply = await compatible(model, 1).generate(ask, { onText: () => {} });
      expect(reply).toMatchObject({ text: "Refunded.", toolCalls: [], finishReason: "stop" });
      expect(server.requests).toHaveLength(2);
    });

    it(`${reason} (streamed), its text shown: fails as the server's, not given back as the answer`, async () => {
      server.reply({ sse: stream(model, [{ content: "The refund of " }, { content: "A-1042 is" }], reason) });
      const shown: string[] = [];
      const e = await failure(compatible(model, 2).generate(ask, { onText: (d) => shown.push(d) }));
      expect(e.code).toBe("provider-server");
      expect(shown.join("")).toBe("The refund of A-1042 is");
      expect(server.requests).toHaveLength(1);
    });
  }
});
