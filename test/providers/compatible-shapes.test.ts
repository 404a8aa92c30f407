/**
 * Replies in shapes real servers send that the official APIs' own do not:
 * a tool call without `type` (vLLM, Ollama), content as a list of parts
 * (Mistral's reasoning models), an Anthropic-shaped reply without `usage`
 * (proxies), a streamed request answered with a body that is no stream
 * (a proxy's page, an error), an error page as the error's body.
 * Each is read for what it says, or refused as a ProviderError naming it:
 * never a call lost, an array passed off as text, or a bare TypeError.
 */
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import type { LMRequest } from "../../src/lm/types.js";
import { anthropic } from "../../src/providers/anthropic.js";
import { openai } from "../../src/providers/openai.js";
import { failure, fixture, fixtureJson, type MockServer, eachTestServer } from "./server.js";

const ask: LMRequest = { messages: [{ role: "user", content: "<question>\nHi\n</question>" }], tools: [] };

let server: MockServer;
eachTestServer((s) => (server = s));
const claude = (maxRetries = 0) => anthropic({ model: "claude-haiku-4-5", apiKey: "test-key", baseURL: server.url, maxRetries });
const gpt = (maxRetries = 0) => openai({ model: "gpt-4.1-mini", apiKey: "test-key", baseURL: `${server.url}/v1`, maxRetries });
// biome-ignore lint/suspicious/noExplicitAny: fixtures are edited as plain JSON
const copy = (name: string): any => structuredClone(fixtureJson(name));
const chunk = (delta: Record<string, unknown>, finish: string | null = null): string =>
  `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

describe("openai-compatible replies", () => {
  it("a tool call without type (null or left out, as vLLM and Ollama send it) is read, not dropped", async () => {
    const reply = copy("openai/tool-call.json");
    const call = reply.choices[0].message.tool_calls[0];
    const second = { ...call, id: "call_2", type: null };
    delete call.type;
    reply.choices[0].message.tool_calls.push(second);
    server.reply({ json: reply });
    const res = await gpt().generate(ask);
    expect(res.toolCalls.map((c) => c.id)).toEqual([call.id, "call_2"]);
    expect(res.toolCalls[0]).toEqual({ id: call.id, name: call.function.name, input: JSON.parse(call.function.arguments) });
  });

  it("arguments sent as a JSON object rather than its text (as some compatible servers send them) are that input, whole and streamed", async () => {
    const reply = copy("openai/tool-call.json");
    reply.choices[0].message.tool_calls[0].function.arguments = { order_id: "A-1042" };
    server.reply({ json: reply });
    const whole = await gpt().generate(ask);
    expect(whole.toolCalls).toEqual([{ id: reply.choices[0].message.tool_calls[0].id, name: "lookup_order", input: { order_id: "A-1042" } }]);

    const sse =
      chunk({ role: "assistant", tool_calls: [{ index: 0, id: "call_9", type: "function", function: { name: "lookup_order", arguments: { order_id: "A-1042" } } }] }) +
      chunk({}, "tool_calls") +
      "data: [DONE]\n\n";
    server.reply({ sse });
    const streamed = await gpt().generate(ask, { onText: () => {} });
    expect(streamed.toolCalls).toEqual([{ id: "call_9", name: "lookup_order", input: { order_id: "A-1042" } }]);
  });

  it("content as a list of parts (as Mistral's reasoning models send it): its text parts are the text, whole and streamed", async () => {
    const reply = copy("openai/text.json");
    reply.choices[0].message.content = [
      { type: "thinking", thinking: [{ type: "text", text: "They want the status." }] },
      { type: "text", text: "It shipped" },
      { type: "text", text: " on Monday." },
    ];
    server.reply({ json: reply });
    expect((await gpt().generate(ask)).text).toBe("It shipped on Monday.");

    const sse =
      chunk({ role: "assistant", content: [{ type: "thinking", thinking: [{ type: "text", text: "Hmm." }] }] }) +
      chunk({ content: [{ type: "text", text: "It shipped" }] }) +
      chunk({ content: " on Monday." }) +
      chunk({}, "stop") +
      "data: [DONE]\n\n";
    server.reply({ sse });
    const shown: string[] = [];
    const res = await gpt().generate(ask, { onText: (d) => shown.push(d) });
    expect(res.text).toBe("It shipped on Monday.");
    expect(shown.join("")).toBe("It shipped on Monday.");
  });
});

describe("anthropic-compatible replies without usage", () => {
  it("a whole message without usage is read, its usage counted as 0", async () => {
    const reply = copy("anthropic/text.json");
    delete reply.usage;
    server.reply({ json: reply });
    const res = await claude().generate(ask);
    expect(res.text).toBe(reply.content[0].text);
    expect(res.usage).toEqual({ inputTokens: 0, outputTokens: 0 });
  });

  it("a stream whose message_start and message_delta carry no usage is read", async () => {
    const sse = fixture("anthropic/stream-text.sse")
      .replace(/,"usage":\{"input_tokens":12[^}]*\}/, "")
      .replace(/,"usage":\{"output_tokens":14\}/, "");
    expect(sse).not.toContain("usage");
    server.reply({ sse });
    const res = await claude().generate(ask, { onText: () => {} });
    expect(res.text).toBe("Order A-1042 shipped on Monday.");
    expect(res.usage).toEqual({ inputTokens: 0, outputTokens: 0 });
  });
});

describe("a streamed request answered with a body that is not an event stream", () => {
  const page = `<html><head><title>Sign in to the Wi-Fi</title></head><body>${"x".repeat(4000)}</body></html>`;

  it("openai and anthropic: an HTML page → provider-response naming it, not a stream cut short, not retried", async () => {
    server.reply({ raw: page }, { raw: page });
    const e = await failure(gpt(2).generate(ask, { onText: () => {} }));
    expect(e.code).toBe("provider-response");
    expect(e.message).toContain("Sign in to the Wi-Fi");
    expect(e.message.length).toBeLessThan(600);
    expect(server.requests).toHaveLength(1);

    const e2 = await failure(claude(2).generate(ask, { onText: () => {} }));
    expect(e2.code).toBe("provider-response");
    expect(e2.message).toContain("Sign in to the Wi-Fi");
    expect(server.requests).toHaveLength(2);
  });

  it("openai: a JSON body that is no whole completion (no choice) → provider-response saying so", async () => {
    // (a whole completion is read as the reply: whole-reply-to-stream.test.ts)
    server.reply({ json: { ...copy("openai/text.json"), choices: [] } });
    const e = await failure(gpt().generate(ask, { onText: () => {} }));
    expect(e.code).toBe("provider-response");
    expect(e.message).toContain("not an event stream");
    expect(e.message).toContain("chat.completion");
  });

  it("anthropic: a JSON error body (overloaded) is that error, retried, then the streamed reply", async () => {
    server.reply({ json: fixtureJson("anthropic/error-529.json") });
    const e = await failure(claude(0).generate(ask, { onText: () => {} }));
    expect(e.code).toBe("provider-overloaded");
    expect(e.message).toContain("Overloaded");

    server.requests.length = 0;
    server.reply({ json: fixtureJson("anthropic/error-529.json") }, { sse: fixture("anthropic/stream-text.sse") });
    const res = await claude(1).generate(ask, { onText: () => {} });
    expect(res.text).toBe("Order A-1042 shipped on Monday.");
    expect(server.requests).toHaveLength(2);
  });
  it("such a body that stalls is not waited for past the client's timeout", async () => {
    server.reply({ partial: '{"id":"chatcmpl-1","object":"chat.completion",', stall: true });
    const lm = openai({ model: "gpt-4.1-mini", maxRetries: 0, client: new OpenAI({ apiKey: "test-key", baseURL: `${server.url}/v1`, timeout: 300 }) });
    const started = Date.now();
    const e = await failure(lm.generate(ask, { onText: () => {} }));
    expect(e.code).toBe("provider-response");
    expect(e.message).toContain("could not be read");
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe("an HTTP error whose body is a page, not JSON", () => {
  it("the message holds the status and the page's start, not the whole page", async () => {
    const page = `<html><body><h1>502 Bad Gateway</h1>${"<p>nginx</p>".repeat(2000)}</body></html>`;
    server.reply({ raw: page, status: 502 });
    const e = await failure(gpt().generate(ask));
    expect(e.code).toBe("provider-server");
    expect(e.status).toBe(502);
    expect(e.message).toContain("502 Bad Gateway");
    expect(e.message.length).toBeLessThan(600);

    server.reply({ raw: page, status: 502 });
    const e2 = await failure(claude().generate(ask));
    expect(e2.message).toContain("502 Bad Gateway");
    expect(e2.message.length).toBeLessThan(600);
  });
});
