import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { ProviderError } from "../../src/errors.js";
import { ai } from "../../src/index.js";
import type { LMRequest, Message, ToolSpec } from "../../src/lm/types.js";
import { anthropic } from "../../src/providers/anthropic.js";
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
const SYSTEM = "Function: answer\n\nAnswer the customer's question.";
const ask = (question: string, tools: ToolSpec[] = []): LMRequest => ({
  messages: [
    { role: "system", content: SYSTEM },
    { role: "user", content: `<question>\n${question}\n</question>` },
  ],
  tools,
});

interface MessageFixture {
  model: string;
  content: ({ type: "text"; text: string } | { type: "tool_use"; id: string; name: string; input: unknown })[];
  usage: { input_tokens: number; output_tokens: number };
}
const message = (name: string): MessageFixture => fixtureJson(`anthropic/${name}`) as MessageFixture;
const textOf = (m: MessageFixture): string => m.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");

let server: MockServer;
eachTestServer((s) => (server = s));
const lm = (options: { maxRetries?: number; maxTokens?: number } = {}) =>
  anthropic({ model: "claude-haiku-4-5", apiKey: "test-key", baseURL: server.url, ...options });

/** SDK v1 may send the key either way. */
const sentKey = (headers: Record<string, string | string[] | undefined>): string | undefined =>
  (headers["x-api-key"] as string | undefined) ?? (headers.authorization as string | undefined)?.replace(/^Bearer /, "");

describe("anthropic: JSON replies", () => {
  it("reads a text reply; system goes to the system parameter", async () => {
    const reply = message("text.json");
    server.reply({ json: reply });
    const request = { ...ask("Where is A-1042?"), temperature: 0.2 };
    const res = await lm().generate(request);

    expect(res.text).toBe(textOf(reply));
    expect(res.finishReason).toBe("stop");
    expect(res.usage).toEqual({ inputTokens: reply.usage.input_tokens, outputTokens: reply.usage.output_tokens });
    expect(res.model).toBe(reply.model);

    const [sent] = server.requests;
    expect(sent!.path).toBe("/v1/messages");
    expect(sentKey(sent!.headers)).toBe("test-key");
    expect(sent!.headers["anthropic-version"]).toBeTruthy();
    expect(sent!.body).toEqual({
      model: "claude-haiku-4-5",
      max_tokens: 4096,
      system: SYSTEM,
      temperature: 0.2,
      messages: [{ role: "user", content: request.messages[1]!.content }],
      stream: false,
    });
  });

  it("offers tools with input_schema and reads a tool_use block", async () => {
    const reply = message("tool-use.json");
    server.reply({ json: reply });
    const res = await lm({ maxTokens: 1000 }).generate(ask("Where is A-1042?", [lookupOrder, refund]));

    const use = reply.content.find((b) => b.type === "tool_use")!;
    expect(res.toolCalls).toEqual([{ id: use.id, name: use.name, input: use.input }]);
    expect(res.text).toBe(textOf(reply));
    expect(res.finishReason).toBe("tool_calls");
    expect(server.requests[0]!.body.max_tokens).toBe(1000);
    expect(server.requests[0]!.body.tools).toEqual(
      [lookupOrder, refund].map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters })),
    );
  });

  it("answers parallel tool calls with one user message holding both tool_results, paired by id", async () => {
    server.reply({ json: message("parallel.json") }, { json: message("text.json") });
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
    await model.generate({ messages: followUp, tools: [lookupOrder] });

    const sent = server.requests[1]!.body;
    expect(sent.system).toBe(SYSTEM);
    expect(sent.messages).toEqual([
      { role: "user", content: first.messages[1]!.content },
      {
        role: "assistant",
        content: [
          { type: "text", text: r1.text },
          { type: "tool_use", id: a!.id, name: a!.name, input: a!.input },
          { type: "tool_use", id: b!.id, name: b!.name, input: b!.input },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: a!.id, content: '{"status":"shipped"}' },
          { type: "tool_result", tool_use_id: b!.id, content: "no order B-2210", is_error: true },
        ],
      },
    ]);
  });

  it("joins system messages and merges consecutive messages of one role", async () => {
    server.reply({ json: message("text.json") });
    await lm().generate({
      messages: [
        { role: "system", content: "One." },
        { role: "user", content: "First." },
        { role: "system", content: "Two." },
        { role: "user", content: "Second." },
        { role: "assistant", content: "" },
        { role: "assistant", content: "Reply." },
        { role: "user", content: "Third." },
      ],
      tools: [],
    });
    expect(server.requests[0]!.body.system).toBe("One.\n\nTwo.");
    expect(server.requests[0]!.body.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "First." }, { type: "text", text: "Second." }] },
      { role: "assistant", content: "Reply." },
      { role: "user", content: "Third." },
    ]);
  });
});

/** Text the Messages API refuses: a message or text block with nothing but whitespace (400 "text content blocks must contain non-whitespace text"). */
const blankTexts = (messages: unknown): unknown[] =>
  (messages as { content: string | { type: string; text?: string }[] }[]).flatMap((m): unknown[] =>
    typeof m.content === "string"
      ? m.content.trim() === "" ? [m] : []
      : m.content.filter((b) => b.type === "text" && (b.text ?? "").trim() === ""),
  );

describe("anthropic: whitespace-only text in the history", () => {
  it("a reply of only whitespace is asked again without sending that whitespace back", async () => {
    const blank = { ...message("text.json"), content: [{ type: "text", text: "\n\n" }] };
    const answered = { ...message("text.json"), content: [{ type: "text", text: "<result>\nShipped on Monday.\n</result>" }] };
    server.reply({ json: blank }, { json: answered });
    const answer = ai("answer", { description: "Answer the customer's question.", input: { question: z.string() } });
    expect(await answer("Where is A-1042?", { lm: lm() })).toBe("Shipped on Monday.");
    expect(server.requests).toHaveLength(2);
    expect(blankTexts(server.requests[1]!.body.messages)).toEqual([]);
  });

  it("whitespace beside tool calls is left out; the tool_use blocks stay", async () => {
    server.reply({ json: message("text.json") });
    const call = { id: "toolu_01BlankText0000000001", name: "lookup_order", input: { order_id: "A-1042" } };
    await lm().generate({
      messages: [
        ...ask("Where is A-1042?", [lookupOrder]).messages,
        { role: "assistant", content: "\n\n", toolCalls: [call] },
        { role: "tool", toolCallId: call.id, name: call.name, content: '{"status":"shipped"}' },
      ],
      tools: [lookupOrder],
    });
    const sent = server.requests[0]!.body.messages as { role: string; content: unknown }[];
    expect(blankTexts(sent)).toEqual([]);
    expect(sent[1]).toEqual({ role: "assistant", content: [{ type: "tool_use", ...call }] });
  });
});

describe("anthropic: a function with no inputs", () => {
  it("sends a user message the API takes (it refuses none, or an empty one), in a conversation's history too", async () => {
    const answered = { ...message("text.json"), content: [{ type: "text", text: "<result>\nHello.\n</result>" }] };
    server.reply({ json: answered }, { json: answered });
    const greet = ai("greet", { description: "Greet the customer.", input: {} });
    expect(await greet(undefined as never, { lm: lm() })).toBe("Hello.");
    const sent = server.requests[0]!.body.messages as { role: string; content: unknown }[];
    expect(sent[0]?.role).toBe("user");
    expect(blankTexts(sent)).toEqual([]);
    expect(sent.every((m) => (typeof m.content === "string" ? m.content.trim() !== "" : (m.content as unknown[]).length > 0))).toBe(true);
    // an earlier turn with no inputs: the history still alternates, starting with the user
    await lm().generate({
      messages: [
        { role: "system", content: SYSTEM },
        { role: "user", content: "" },
        { role: "assistant", content: "<result>\nHello.\n</result>" },
        { role: "user", content: "" },
      ],
      tools: [],
    });
    const again = server.requests[1]!.body.messages as { role: string; content: unknown }[];
    expect(again.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(blankTexts(again)).toEqual([]);
  });
});

describe("anthropic: streaming", () => {
  it("streams text deltas in order; usage counts cached prompt tokens and the final output count", async () => {
    const sse = fixture("anthropic/stream-text.sse");
    server.reply({ sse });
    const deltas: string[] = [];
    const res = await lm().generate(ask("Where is A-1042?"), { onText: (d) => deltas.push(d) });

    const events = sseData(sse) as { type: string; delta?: { text?: string }; usage?: { output_tokens: number }; message?: { usage: Record<string, number> } }[];
    const expected = events.flatMap((e) => (e.type === "content_block_delta" && e.delta?.text ? [e.delta.text] : []));
    const start = events.find((e) => e.type === "message_start")!.message!.usage;
    const final = events.find((e) => e.type === "message_delta")!.usage!;
    expect(expected.length).toBeGreaterThan(2);
    expect(deltas).toEqual(expected);
    expect(res.text).toBe(expected.join(""));
    expect(res.finishReason).toBe("stop");
    expect(res.usage).toEqual({
      inputTokens: start.input_tokens! + start.cache_creation_input_tokens! + start.cache_read_input_tokens!,
      outputTokens: final.output_tokens,
    });
    expect(server.requests[0]!.body.stream).toBe(true);
    expect(server.requests[0]!.body.system).toBe(SYSTEM);
  });

  it("assembles tool_use input from input_json_delta fragments", async () => {
    server.reply({ sse: fixture("anthropic/stream-tools.sse") });
    const deltas: string[] = [];
    const res = await lm().generate(ask("Refund B-2210, check A-1042", [lookupOrder, refund]), { onText: (d) => deltas.push(d) });

    expect(deltas).toEqual(["Checking ", "both."]);
    expect(res.toolCalls).toEqual([
      { id: "toolu_01FxStreamA1042dddddd", name: "lookup_order", input: { order_id: "A-1042" } },
      { id: "toolu_01FxStreamB2210eeeeee", name: "refund", input: { order_id: "B-2210", reason: "late" } },
    ]);
    expect(res.finishReason).toBe("tool_calls");
    expect(res.usage).toEqual({ inputTokens: 377, outputTokens: 89 });
  });

  it("malformed streamed tool input → inputError and the raw text, no throw", async () => {
    server.reply({ sse: fixture("anthropic/stream-bad-args.sse") });
    const res = await lm().generate(ask("x", [lookupOrder]), { onText: () => {} });
    expect(res.toolCalls).toHaveLength(1);
    expect(res.toolCalls[0]!.input).toBe('{"order_id": "A-10');
    expect(res.toolCalls[0]!.inputError).toMatch(/not valid JSON/);
  });

  it("streams even without onText when maxTokens is too large for a non-streamed request", async () => {
    server.reply({ sse: fixture("anthropic/stream-text.sse") });
    const res = await lm({ maxTokens: 32_000 }).generate(ask("x"));
    expect(server.requests[0]!.body).toMatchObject({ stream: true, max_tokens: 32_000 });
    expect(res.text).toBe("Order A-1042 shipped on Monday.");
  });
});

describe("anthropic: errors and retries", () => {
  it("400 → provider-bad-request with Anthropic's message", async () => {
    server.reply({ status: 400, json: fixtureJson("anthropic/error-400.json") });
    const e = await failure(lm().generate(ask("x")));
    expect(e.code).toBe("provider-bad-request");
    expect(e.status).toBe(400);
    expect(e.message).toContain("each tool_use block must have a corresponding tool_result block");
    expect(server.requests).toHaveLength(1);
  });

  it("401 → provider-auth", async () => {
    server.reply({ status: 401, json: fixtureJson("anthropic/error-401.json") });
    const e = await failure(lm().generate(ask("x")));
    expect(e.code).toBe("provider-auth");
    expect(e.message).toContain("invalid x-api-key");
  });

  it("429 with retry-after is retried, then succeeds; when retries run out → provider-rate-limit", async () => {
    const limited = { status: 429, headers: { "retry-after": "0.001" }, json: fixtureJson("anthropic/error-429.json") };
    server.reply(limited, { json: message("text.json") });
    expect((await lm().generate(ask("x"))).text).toBe(textOf(message("text.json")));
    expect(server.requests).toHaveLength(2);

    server.reply(limited, limited);
    const e = await failure(lm({ maxRetries: 1 }).generate(ask("x")));
    expect(e.code).toBe("provider-rate-limit");
    expect(e.status).toBe(429);
    expect(server.requests).toHaveLength(4);
  });

  it("529 overloaded is retried (with backoff when there is no retry-after), then succeeds", async () => {
    server.reply({ status: 529, json: fixtureJson("anthropic/error-529.json") }, { json: message("text.json") });
    const res = await lm().generate(ask("x"));
    expect(res.text).toBe(textOf(message("text.json")));
    expect(server.requests).toHaveLength(2);
  });

  it("529 until retries run out → provider-overloaded with status 529", async () => {
    server.reply({ status: 529, json: fixtureJson("anthropic/error-529.json") });
    const e = await failure(lm({ maxRetries: 0 }).generate(ask("x")));
    expect(e.code).toBe("provider-overloaded");
    expect(e.status).toBe(529);
    expect(e.message).toContain("Overloaded");
  });

  it("an error event mid-stream → provider-overloaded; not retried once text was shown", async () => {
    server.reply({ sse: fixture("anthropic/stream-overloaded.sse") }, { json: message("text.json") });
    const deltas: string[] = [];
    const e = await failure(lm().generate(ask("x"), { onText: (d) => deltas.push(d) }));
    expect(e.code).toBe("provider-overloaded");
    expect(e.message).toContain("Overloaded");
    expect(deltas).toEqual(["I"]);
    expect(server.requests).toHaveLength(1);
  });

  it("an error event before any text is retried", async () => {
    const events = fixture("anthropic/stream-overloaded.sse").split(/(?<=\n\n)/);
    const noText = events.filter((e) => !e.includes("text_delta")).join("");
    server.reply({ sse: noText }, { sse: fixture("anthropic/stream-text.sse") });
    const deltas: string[] = [];
    const res = await lm().generate(ask("x"), { onText: (d) => deltas.push(d) });
    expect(res.text).toBe(deltas.join(""));
    expect(res.text).toBe("Order A-1042 shipped on Monday.");
    expect(server.requests).toHaveLength(2);
  });

  it("a connection dropped mid-stream or mid-body → provider-network, retried while no text was shown", async () => {
    const events = fixture("anthropic/stream-text.sse").split(/(?<=\n\n)/);
    server.reply({ sse: events.slice(0, 2).join(""), reset: true }, { sse: fixture("anthropic/stream-text.sse") });
    const deltas: string[] = [];
    const res = await lm().generate(ask("x"), { onText: (d) => deltas.push(d) });
    expect(res.text).toBe("Order A-1042 shipped on Monday.");
    expect(deltas.join("")).toBe(res.text);
    expect(server.requests).toHaveLength(2);

    server.reply({ partial: JSON.stringify(message("text.json")).slice(0, 40) });
    const e = await failure(lm({ maxRetries: 0 }).generate(ask("x")));
    expect(e.code).toBe("provider-network");
  });

  it("a stream that ends after its stop reason without message_stop keeps the whole reply: not asked for again", async () => {
    const events = fixture("anthropic/stream-tools.sse").split(/(?<=\n\n)/);
    const head = events.filter((e) => !e.includes("message_stop")).join("");
    server.reply({ sse: head, reset: true }, { sse: head }, { sse: fixture("anthropic/stream-tools.sse") });
    for (let i = 0; i < 2; i++) {
      const res = await lm().generate(ask("Refund B-2210, check A-1042", [lookupOrder, refund]), { onText: () => {} });
      expect(res.toolCalls.map((c) => c.name)).toEqual(["lookup_order", "refund"]);
      expect(res.usage).toEqual({ inputTokens: 377, outputTokens: 89 });
    }
    expect(server.requests).toHaveLength(2);
  });

  it("no credentials anywhere → provider-auth naming what to set, before any request", async () => {
    vi.stubEnv("ANTHROPIC_API_KEY", "");
    vi.stubEnv("ANTHROPIC_AUTH_TOKEN", "");
    try {
      const e = await failure(anthropic({ model: "claude-haiku-4-5", baseURL: server.url, maxRetries: 0 }).generate(ask("x")));
      expect(e.code).toBe("provider-auth");
      expect(e.message).toContain("ANTHROPIC_API_KEY");
      expect(server.requests).toHaveLength(0);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it("connection refused → provider-network", async () => {
    const port = await closedPort();
    const model = anthropic({ model: "claude-haiku-4-5", apiKey: "test-key", baseURL: `http://127.0.0.1:${port}`, maxRetries: 0 });
    const e = await failure(model.generate(ask("x")));
    expect(e.code).toBe("provider-network");
  });

  it("an abort rejects promptly with the abort, during the request and mid-stream", async () => {
    server.reply({ hang: true });
    const c1 = new AbortController();
    setTimeout(() => c1.abort(), 50);
    // (the server never answers: a rejection at all is the abort's; no clock is read)
    const e1: unknown = await lm().generate(ask("x"), { signal: c1.signal }).catch((x: unknown) => x);
    expect(e1).not.toBeInstanceOf(ProviderError);
    expect((e1 as Error).name).toBe("AbortError");

    const head = fixture("anthropic/stream-text.sse").split(/(?<=\n\n)/).slice(0, 4).join("");
    server.reply({ sse: head, hang: true });
    const c2 = new AbortController();
    const e2: unknown = await lm()
      .generate(ask("x"), { signal: c2.signal, onText: () => c2.abort() })
      .catch((x: unknown) => x);
    expect((e2 as Error).name).toBe("AbortError");
  });
});
