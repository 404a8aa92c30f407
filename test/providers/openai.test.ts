import OpenAI from "openai";
import { describe, expect, it, vi } from "vitest";
import { ProviderError } from "../../src/errors.js";
import type { LMRequest, Message, ToolSpec } from "../../src/lm/types.js";
import { openai } from "../../src/providers/openai.js";
import { closedPort, fixture, fixtureJson, sseData, type MockServer, failure, eachTestServer } from "./server.js";

const lookupOrder: ToolSpec = {
  name: "lookup_order",
  description: "The order's item and shipping status.",
  parameters: { type: "object", properties: { order_id: { type: "string" } }, required: ["order_id"], additionalProperties: false },
};
const refund: ToolSpec = {
  name: "refund",
  description: "Refund an order.",
  parameters: { type: "object", properties: { order_id: { type: "string" }, reason: { type: "string" } }, required: ["order_id"] },
};
const ask = (question: string, tools: ToolSpec[] = []): LMRequest => ({
  messages: [
    { role: "system", content: "Function: answer\n\nAnswer the customer's question." },
    { role: "user", content: `<question>\n${question}\n</question>` },
  ],
  tools,
});

interface ChatFixture {
  model: string;
  choices: { message: { content: string | null; tool_calls?: { id: string; function: { name: string; arguments: string } }[] } }[];
  usage: { prompt_tokens: number; completion_tokens: number };
}
const chat = (name: string): ChatFixture => fixtureJson(`openai/${name}`) as ChatFixture;

let server: MockServer;
eachTestServer((s) => (server = s));
const lm = (options: { maxRetries?: number; maxTokens?: number; nativeTools?: boolean } = {}) =>
  openai({ model: "gpt-4.1-mini", apiKey: "test-key", baseURL: `${server.url}/v1`, ...options });

describe("openai: JSON replies", () => {
  it("reads a text reply and sends the messages, temperature and token limit", async () => {
    const reply = chat("text.json");
    server.reply({ json: reply });
    const request = { ...ask("Where is my order A-1042?"), temperature: 0, maxTokens: 300 };
    const res = await lm().generate(request);

    expect(res.text).toBe(reply.choices[0]!.message.content);
    expect(res.finishReason).toBe("stop");
    expect(res.toolCalls).toEqual([]);
    expect(res.usage).toEqual({ inputTokens: reply.usage.prompt_tokens, outputTokens: reply.usage.completion_tokens });
    expect(res.model).toBe(reply.model);

    const [sent] = server.requests;
    expect(sent!.method).toBe("POST");
    expect(sent!.path).toBe("/v1/chat/completions");
    expect(sent!.headers.authorization).toBe("Bearer test-key");
    expect(sent!.body).toMatchObject({ model: "gpt-4.1-mini", temperature: 0, max_completion_tokens: 300 });
    expect(sent!.body.messages).toEqual(request.messages.map((m) => ({ role: m.role, content: m.content })));
    expect(sent!.body.stream).not.toBe(true);
    expect(sent!.body).not.toHaveProperty("stream_options");
    expect(sent!.body).not.toHaveProperty("tools");
  });

  it("offers tools as JSON Schema functions and reads one tool call", async () => {
    const reply = chat("tool-call.json");
    server.reply({ json: reply });
    const res = await lm().generate(ask("Where is A-1042?", [lookupOrder, refund]));

    const wire = reply.choices[0]!.message.tool_calls![0]!;
    expect(res.toolCalls).toEqual([{ id: wire.id, name: wire.function.name, input: JSON.parse(wire.function.arguments) }]);
    expect(res.finishReason).toBe("tool_calls");
    expect(res.text).toBe("");
    expect(server.requests[0]!.body.tools).toEqual(
      [lookupOrder, refund].map((t) => ({ type: "function", function: { name: t.name, description: t.description, parameters: t.parameters } })),
    );
  });

  it("sends no tools when nativeTools is false", async () => {
    server.reply({ json: chat("text.json") });
    const model = lm({ nativeTools: false });
    expect(model.nativeTools).toBe(false);
    await model.generate(ask("Where is A-1042?", [lookupOrder]));
    expect(server.requests[0]!.body).not.toHaveProperty("tools");
  });

  it("reads parallel tool calls and pairs both results with their call ids in the follow-up", async () => {
    server.reply({ json: chat("parallel.json") }, { json: chat("text.json") });
    const model = lm();
    const first = ask("Where are A-1042 and B-2210?", [lookupOrder]);
    const r1 = await model.generate(first);
    expect(r1.toolCalls.map((c) => c.input)).toEqual([{ order_id: "A-1042" }, { order_id: "B-2210" }]);

    const [a, b] = r1.toolCalls;
    const followUp: Message[] = [
      ...first.messages,
      { role: "assistant", content: r1.text, toolCalls: r1.toolCalls },
      { role: "tool", toolCallId: a!.id, name: a!.name, content: '{"status":"shipped"}' },
      { role: "tool", toolCallId: b!.id, name: b!.name, content: "no order B-2210", isError: true },
    ];
    const r2 = await model.generate({ messages: followUp, tools: [lookupOrder] });
    expect(r2.text).toBe(chat("text.json").choices[0]!.message.content);

    const sent = server.requests[1]!.body.messages as Record<string, unknown>[];
    expect(sent).toHaveLength(5);
    expect(sent[2]).toEqual({
      role: "assistant",
      content: null,
      tool_calls: r1.toolCalls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: JSON.stringify(c.input) } })),
    });
    expect(sent[3]).toEqual({ role: "tool", tool_call_id: a!.id, content: '{"status":"shipped"}' });
    expect(sent[4]).toEqual({ role: "tool", tool_call_id: b!.id, content: "no order B-2210" });
    expect(a!.id).not.toBe(b!.id);
  });

  it("keeps malformed tool arguments as raw text with inputError, and sends them back as they were", async () => {
    const raw = chat("bad-args.json").choices[0]!.message.tool_calls![0]!.function.arguments;
    server.reply({ json: chat("bad-args.json") }, { json: chat("text.json") });
    const model = lm();
    const r1 = await model.generate(ask("Where is A-1042?", [lookupOrder]));
    const [call] = r1.toolCalls;
    expect(call!.input).toBe(raw);
    expect(call!.inputError).toMatch(/not valid JSON/);

    await model.generate({
      messages: [...ask("x").messages, { role: "assistant", content: "", toolCalls: r1.toolCalls },
        { role: "tool", toolCallId: call!.id, name: call!.name, content: "invalid arguments", isError: true }],
      tools: [lookupOrder],
    });
    const sent = server.requests[1]!.body.messages as { tool_calls?: { function: { arguments: string } }[] }[];
    expect(sent[2]!.tool_calls![0]!.function.arguments).toBe(raw);
  });
});

describe("openai: streaming", () => {
  it("streams text deltas to onText in order and reads usage from the last chunk", async () => {
    const sse = fixture("openai/stream-text.sse");
    server.reply({ sse });
    const deltas: string[] = [];
    const res = await lm().generate(ask("Where is A-1042?"), { onText: (d) => deltas.push(d) });

    const chunks = sseData(sse) as { choices: { delta: { content?: string | null } }[]; usage: { prompt_tokens: number; completion_tokens: number } | null }[];
    const expected = chunks.flatMap((c) => (c.choices[0]?.delta.content ? [c.choices[0].delta.content] : []));
    const usage = chunks.at(-1)!.usage!;
    expect(expected.length).toBeGreaterThan(2);
    expect(deltas).toEqual(expected);
    expect(res.text).toBe(expected.join(""));
    expect(res.finishReason).toBe("stop");
    expect(res.usage).toEqual({ inputTokens: usage.prompt_tokens, outputTokens: usage.completion_tokens });
    expect(server.requests[0]!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it("assembles tool calls from index-keyed argument fragments", async () => {
    server.reply({ sse: fixture("openai/stream-tools.sse") });
    const deltas: string[] = [];
    const res = await lm().generate(ask("Refund B-2210 and check A-1042", [lookupOrder, refund]), { onText: (d) => deltas.push(d) });

    expect(deltas).toEqual([]);
    expect(res.toolCalls).toEqual([
      { id: "call_StreamA1042", name: "lookup_order", input: { order_id: "A-1042" } },
      { id: "call_StreamB2210", name: "refund", input: { order_id: "B-2210", reason: "late" } },
    ]);
    expect(res.finishReason).toBe("tool_calls");
    expect(res.usage).toEqual({ inputTokens: 95, outputTokens: 61 });
    expect(server.requests[0]!.body.tools).toHaveLength(2);
  });
});

/** A chat-completion stream of the given deltas, then `finish` and a usage chunk, as a compatible server sends it. */
function compatibleStream(deltas: Record<string, unknown>[], finish: string): string {
  const chunk = (choices: unknown[], usage: unknown = null) =>
    `data: ${JSON.stringify({ id: "chatcmpl-local", object: "chat.completion.chunk", created: 1764400020, model: "qwen3:8b", system_fingerprint: "fp_local", choices, usage })}\n\n`;
  const body = deltas.map((delta) => chunk([{ index: 0, delta, finish_reason: null }])).join("");
  const end = chunk([{ index: 0, delta: {}, finish_reason: finish }]) + chunk([], { prompt_tokens: 80, completion_tokens: 30, total_tokens: 110 });
  return `${body}${end}data: [DONE]\n\n`;
}

describe("openai: OpenAI-compatible servers' streamed tool calls", () => {
  const wanted = [
    { id: "call_lq1", name: "lookup_order", input: { order_id: "A-1042" } },
    { id: "call_rf2", name: "refund", input: { order_id: "B-2210" } },
  ];
  const whole = (index: number | undefined, c: (typeof wanted)[number]) => ({
    ...(index === undefined ? {} : { index }),
    id: c.id,
    type: "function",
    function: { name: c.name, arguments: JSON.stringify(c.input) },
  });

  it("two calls both labelled index 0 (as Ollama labels them) stay two calls, in one chunk or in two", async () => {
    server.reply(
      { sse: compatibleStream([{ role: "assistant", content: "", tool_calls: [whole(0, wanted[0]!)] }, { tool_calls: [whole(0, wanted[1]!)] }], "tool_calls") },
      { sse: compatibleStream([{ role: "assistant", content: "", tool_calls: wanted.map((c) => whole(0, c)) }], "tool_calls") },
    );
    for (let i = 0; i < 2; i++) {
      const res = await lm().generate(ask("Check A-1042, refund B-2210", [lookupOrder, refund]), { onText: () => {} });
      expect(res.toolCalls).toEqual(wanted);
      expect(res.finishReason).toBe("tool_calls");
    }
  });

  it("calls without an index (as some compatible servers send them): each id opens a call, argument pieces without one continue it", async () => {
    const [a, b] = wanted;
    const piece = (args: string) => ({ tool_calls: [{ function: { arguments: args } }] });
    server.reply({
      sse: compatibleStream(
        [
          { role: "assistant", content: null, tool_calls: [{ id: a!.id, type: "function", function: { name: a!.name, arguments: '{"order_' } }] },
          piece('id":"A-1042"}'),
          { tool_calls: [{ id: b!.id, type: "function", function: { name: b!.name, arguments: "" } }] },
          piece('{"order_id":'),
          piece('"B-2210"}'),
        ],
        "tool_calls",
      ),
    });
    const res = await lm().generate(ask("Check A-1042, refund B-2210", [lookupOrder, refund]), { onText: () => {} });
    expect(res.toolCalls).toEqual(wanted);
  });

  it("argument pieces of one call under a changing id (as some servers send them) stay one call", async () => {
    const [a] = wanted;
    server.reply({
      sse: compatibleStream(
        [
          { role: "assistant", tool_calls: [{ index: 0, id: a!.id, type: "function", function: { name: a!.name, arguments: "" } }] },
          { tool_calls: [{ index: 0, id: "call_piece2", function: { arguments: '{"order_id":' } }] },
          { tool_calls: [{ index: 0, id: "call_piece3", function: { arguments: '"A-1042"}' } }] },
        ],
        "tool_calls",
      ),
    });
    const res = await lm().generate(ask("Check A-1042", [lookupOrder]), { onText: () => {} });
    expect(res.toolCalls.map(({ name, input }) => ({ name, input }))).toEqual([{ name: a!.name, input: a!.input }]);
  });
});

describe("openai: errors and retries", () => {
  it("400 → provider-bad-request with the provider's message, not retried", async () => {
    server.reply({ status: 400, json: fixtureJson("openai/error-400.json") });
    const e = await failure(lm().generate(ask("x")));
    expect(e.code).toBe("provider-bad-request");
    expect(e.status).toBe(400);
    expect(e.message).toContain("must be a response to a preceeding message with 'tool_calls'");
    expect(server.requests).toHaveLength(1);
  });

  it("401 → provider-auth, and the key the server echoed is not in the message", async () => {
    server.reply({ status: 401, json: fixtureJson("openai/error-401.json") });
    const e = await failure(lm().generate(ask("x")));
    expect(e.code).toBe("provider-auth");
    expect(e.message).toContain("Incorrect API key provided");
    expect(e.message).not.toContain("test-key");
    expect(String((e.cause as Error).message)).not.toContain("test-key");
    expect(server.requests).toHaveLength(1);
  });

  it("429 with retry-after is retried, then succeeds", async () => {
    server.reply({ status: 429, headers: { "retry-after": "0.001" }, json: fixtureJson("openai/error-429.json") }, { json: chat("text.json") });
    const res = await lm().generate(ask("x"));
    expect(res.text).toBe(chat("text.json").choices[0]!.message.content);
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]!.body).toEqual(server.requests[0]!.body);
  });

  it("429 until retries run out → provider-rate-limit with status 429", async () => {
    const limited = { status: 429, headers: { "retry-after-ms": "1" }, json: fixtureJson("openai/error-429.json") };
    server.reply(limited, limited, limited, { json: chat("text.json") });
    const e = await failure(lm({ maxRetries: 2 }).generate(ask("x")));
    expect(e.code).toBe("provider-rate-limit");
    expect(e.status).toBe(429);
    expect(e.retryAfterMs).toBe(1);
    expect(e.message).toContain("Rate limit reached");
    expect(server.requests).toHaveLength(3);
  });

  it("a 503 is retried", async () => {
    server.reply({ status: 503, headers: { "retry-after": "0.001" }, json: { error: { message: "upstream unavailable", type: "server_error" } } }, { json: chat("text.json") });
    await lm().generate(ask("x"));
    expect(server.requests).toHaveLength(2);
  });

  it("a given client's own retries are turned off (we retry)", async () => {
    const client = new OpenAI({ apiKey: "test-key", baseURL: `${server.url}/v1`, maxRetries: 5 });
    server.reply({ status: 429, headers: { "retry-after": "0.001" }, json: fixtureJson("openai/error-429.json") });
    const e = await failure(openai({ model: "gpt-4.1-mini", client, maxRetries: 0 }).generate(ask("x")));
    expect(e.code).toBe("provider-rate-limit");
    expect(server.requests).toHaveLength(1);
  });

  it("no API key anywhere → provider-auth before any request; OPENAI_API_KEY is read when there is no apiKey", async () => {
    vi.stubEnv("OPENAI_API_KEY", "");
    try {
      const e = await failure(openai({ model: "gpt-4.1-mini", baseURL: `${server.url}/v1` }).generate(ask("x")));
      expect(e.code).toBe("provider-auth");
      expect(e.message).toContain("OPENAI_API_KEY");
      expect(server.requests).toHaveLength(0);

      vi.stubEnv("OPENAI_API_KEY", "env-key");
      server.reply({ json: chat("text.json") });
      await openai({ model: "gpt-4.1-mini", baseURL: `${server.url}/v1` }).generate(ask("x"));
      expect(server.requests[0]!.headers.authorization).toBe("Bearer env-key");
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it("a connection dropped mid-stream before any text → provider-network, retried; after text shown → provider-network, not retried", async () => {
    const events = fixture("openai/stream-text.sse").split(/(?<=\n\n)/);
    server.reply({ sse: events.slice(0, 1).join(""), reset: true }, { sse: fixture("openai/stream-text.sse") });
    const deltas: string[] = [];
    const res = await lm().generate(ask("x"), { onText: (d) => deltas.push(d) });
    expect(server.requests).toHaveLength(2);
    expect(deltas.join("")).toBe(res.text);

    server.reply({ sse: events.slice(0, 3).join(""), reset: true }, { sse: fixture("openai/stream-text.sse") });
    const shown: string[] = [];
    const e = await failure(lm().generate(ask("x"), { onText: (d) => shown.push(d) }));
    expect(e.code).toBe("provider-network");
    expect(shown.length).toBeGreaterThan(0);
    expect(server.requests).toHaveLength(3);
  });

  it("a connection dropped after the finish reason (only the usage chunk lost) keeps the whole reply: not asked for again", async () => {
    const events = fixture("openai/stream-tools.sse").split(/(?<=\n\n)/);
    const finished = events.findIndex((e) => e.includes('"finish_reason":"tool_calls"'));
    server.reply({ sse: events.slice(0, finished + 1).join(""), reset: true }, { sse: fixture("openai/stream-tools.sse") });
    const res = await lm().generate(ask("Refund B-2210 and check A-1042", [lookupOrder, refund]), { onText: () => {} });
    expect(res.toolCalls.map((c) => c.name)).toEqual(["lookup_order", "refund"]);
    expect(res.finishReason).toBe("tool_calls");
    expect(server.requests).toHaveLength(1);
  });

  it("a connection dropped while a JSON reply's body is read → provider-network, retried", async () => {
    const whole = JSON.stringify(chat("text.json"));
    server.reply({ partial: whole.slice(0, 40) }, { json: chat("text.json") });
    const res = await lm().generate(ask("x"));
    expect(res.text).toBe(chat("text.json").choices[0]!.message.content);
    expect(server.requests).toHaveLength(2);

    server.reply({ partial: whole.slice(0, 40) });
    const e = await failure(lm({ maxRetries: 0 }).generate(ask("x")));
    expect(e.code).toBe("provider-network");
  });

  it("connection refused → provider-network", async () => {
    const port = await closedPort();
    const model = openai({ model: "gpt-4.1-mini", apiKey: "test-key", baseURL: `http://127.0.0.1:${port}/v1`, maxRetries: 0 });
    const e = await failure(model.generate(ask("x")));
    expect(e.code).toBe("provider-network");
    expect(e.status).toBeUndefined();
  });

  it("an abort before the reply rejects promptly with the abort, not a provider error", async () => {
    server.reply({ hang: true });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    // (the server never answers: a rejection at all is the abort's; no clock is read)
    const e: unknown = await lm().generate(ask("x"), { signal: controller.signal }).catch((x: unknown) => x);
    expect(e).not.toBeInstanceOf(ProviderError);
    expect((e as Error).name).toBe("AbortError");
  });

  it("an abort mid-stream rejects promptly", async () => {
    const firstTwo = fixture("openai/stream-text.sse").split(/(?<=\n\n)/).slice(0, 2).join("");
    server.reply({ sse: firstTwo, hang: true });
    const controller = new AbortController();
    const deltas: string[] = [];
    const pending = lm().generate(ask("x"), { signal: controller.signal, onText: (d) => {
      deltas.push(d);
      controller.abort();
    } });
    const e: unknown = await pending.catch((x: unknown) => x);
    expect(deltas).toHaveLength(1);
    expect((e as Error).name).toBe("AbortError");
  });
});
