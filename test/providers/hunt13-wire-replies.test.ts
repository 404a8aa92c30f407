/**
 * Hunt 13: replies in the real wire forms, through the official SDKs and a
 * local server, that the adapters misread. Each case is a recorded reply
 * (fixtures/hunt4-wire, copied from /work/shared/fixtures) or a documented
 * one, with the one part a real server sends otherwise: usage split across
 * a stream's events, a stream labelled line-by-line JSON, a refusal that
 * cuts an answer short, a reasoning model that spent its whole token limit
 * before answering, a thinking model's reasoning that must go back with its
 * tool calls, an event stream sent to a request that asked for a whole reply.
 */
import Anthropic from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { OutputError } from "../../src/errors.js";
import { ai, tool } from "../../src/index.js";
import type { LMRequest } from "../../src/lm/types.js";
import { anthropic } from "../../src/providers/anthropic.js";
import { openai } from "../../src/providers/openai.js";
import { claudeSse } from "./anthropic-sse.js";
import { modelsOver } from "./fixtures/models.js";
import { type MockServer, type Reply, eachTestServer, fixture, fixtureJson, sseData } from "./server.js";

let server: MockServer;
eachTestServer((s) => (server = s));
const { gpt, claude } = modelsOver(() => server, { apiKey: "test-key", maxRetries: 0 });
const ask: LMRequest = { messages: [{ role: "user", content: "<question>\nWhat is the weather in Paris?\n</question>" }], tools: [] };

type Event = Record<string, unknown> & { type: string };
/** The recorded claude-sonnet-4 stream (text, then a get_weather tool_use), its two usage parts replaced. */
function recordedClaudeStream(start: Record<string, number>, delta: Record<string, number>): string {
  const events = sseData(fixture("hunt4-wire/anthropic-stream-tool-use.sse")) as Event[];
  return claudeSse(
    events.map((e) => {
      if (e.type === "message_start") return { ...e, message: { ...(e.message as object), usage: start } };
      if (e.type === "message_delta") return { ...e, usage: delta };
      return e;
    }),
  );
}

/** gpt-4.1-mini's recorded tool call (no reasoning, no extra content), then the request that sends it back with its result. */
async function recordedCallSentBack() {
  server.reply(
    { json: fixtureJson("hunt4-wire/openai-chat-02-response-tool-calls.json") },
    { json: fixtureJson("hunt4-wire/openai-chat-04-response-final.json") },
  );
  const res = await gpt().generate(ask);
  const call = res.toolCalls[0]!;
  await gpt().generate({
    ...ask,
    messages: [
      ...ask.messages,
      { role: "assistant", content: res.text, toolCalls: res.toolCalls },
      { role: "tool", toolCallId: call.id, name: call.name, content: "20" },
    ],
  });
  return res;
}

describe("anthropic: a stream's usage comes in two parts, each counter a total where it applies", () => {
  // message_start holds the prompt's counts; message_delta the final ones, each counter left out where it does not
  // apply (the SDK's own MessageStream merges them field by field: "omitted when they don't apply, so overwrite when
  // present"). Gateways send message_delta with input_tokens and no cache counts (hebo-gateway#187) or with only one
  // of them (envoyproxy/ai-gateway#2290).
  const cases = [
    {
      name: "input_tokens again, the cache counts left out",
      start: { input_tokens: 12, cache_creation_input_tokens: 0, cache_read_input_tokens: 4096, output_tokens: 1 },
      delta: { input_tokens: 12, output_tokens: 65 },
      inputTokens: 12 + 4096,
    },
    {
      name: "input_tokens and the cache write, the cache read left out",
      start: { input_tokens: 4522, cache_creation_input_tokens: 0, cache_read_input_tokens: 300, output_tokens: 1 },
      delta: { input_tokens: 4522, cache_creation_input_tokens: 4511, output_tokens: 5 },
      inputTokens: 4522 + 4511 + 300,
    },
  ];

  it.each(cases)("$name: the cached prompt tokens message_start gave are still counted", async ({ start, delta, inputTokens }) => {
    const sse = recordedClaudeStream(start, delta);
    server.reply({ sse }, { sse });
    const res = await claude().generate(ask, { onText: () => {} });
    // the SDK's own reading of the same stream says the same
    const sdk = new Anthropic({ apiKey: "test-key", baseURL: server.url, maxRetries: 0 });
    const { usage } = await sdk.messages
      .stream({ model: "claude-sonnet-4-20250514", max_tokens: 1024, messages: [{ role: "user", content: "Paris?" }] })
      .finalMessage();
    expect((usage.input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0)).toBe(inputTokens);
    expect(res.usage).toEqual({ inputTokens, outputTokens: delta.output_tokens });
    expect(res.toolCalls).toEqual([{ id: "toolu_01NRLabsLyVHZPKxbKvkfSMn", name: "get_weather", input: { location: "Paris" } }]);
  });

  it("a message_delta with every counter (api.anthropic.com's newer streams) is counted as before", async () => {
    const start = { input_tokens: 12, cache_creation_input_tokens: 0, cache_read_input_tokens: 4096, output_tokens: 1 };
    server.reply({ sse: recordedClaudeStream(start, { ...start, output_tokens: 65 }) });
    expect((await claude().generate(ask, { onText: () => {} })).usage).toEqual({ inputTokens: 4108, outputTokens: 65 });
  });
});

describe("openai-compatible: an event stream labelled line-by-line JSON", () => {
  // LitServe's OpenAISpec answered stream: true with SSE under content-type application/x-ndjson
  // (Lightning-AI/LitServe#359); the official SDKs read a streamed request's body as SSE whatever its type.
  for (const type of ["application/x-ndjson", "application/jsonl; charset=utf-8"]) {
    it(`${type}: the stream is read, its text shown as it is`, async () => {
      const sse = fixture("hunt4-wire/openai-chat-stream-04-response-final.sse");
      const chunks = sseData(sse) as {
        choices: { delta: { content?: string } }[];
        usage: { prompt_tokens: number; completion_tokens: number } | null;
      }[];
      const text = chunks.map((c) => c.choices[0]?.delta.content ?? "").join("");
      const usage = chunks.at(-1)!.usage!;
      server.reply({ raw: sse, headers: { "content-type": type } });
      const shown: string[] = [];
      const res = await gpt().generate(ask, { onText: (d) => shown.push(d) });
      expect(res).toMatchObject({ text, finishReason: "stop", usage: { inputTokens: usage.prompt_tokens, outputTokens: usage.completion_tokens } });
      expect(shown.join("")).toBe(text);
    });
  }

  it("a whole completion labelled application/json is still read as the reply", async () => {
    const whole = fixtureJson("hunt4-wire/openai-chat-04-response-final.json") as { choices: { message: { content: string } }[] };
    server.reply({ json: whole });
    expect((await gpt().generate(ask, { onText: () => {} })).text).toBe(whole.choices[0]!.message.content);
  });
});

describe("a refusal that cuts the answer short", () => {
  // Claude 4's streaming classifiers stop a reply mid-text with stop_reason "refusal" (and stop_details in
  // message_delta): "the response may contain partial content" (platform.claude.com, Handle streaming refusals).
  const textStream = (texts: string[], delta: Record<string, unknown>): string =>
    claudeSse([
      {
        type: "message_start",
        message: {
          id: "msg_refused",
          type: "message",
          role: "assistant",
          model: "claude-sonnet-4-20250514",
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 40, output_tokens: 1 },
        },
      },
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
      ...texts.map((text) => ({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text } })),
      { type: "content_block_stop", index: 0 },
      { type: "message_delta", delta, usage: { output_tokens: 14 } },
      { type: "message_stop" },
    ]);
  const refusedMidAnswer = textStream(["<result>\nFirst, run the scanner against ", "the host and"], {
    stop_reason: "refusal",
    stop_sequence: null,
    stop_details: { type: "refusal", category: "cyber", explanation: "This request was declined." },
  });
  const final = (fixtureJson("hunt4-wire/anthropic-04-response-final.json") as { content: { text: string }[] }).content[0]!.text;
  const answered = textStream([`<result>\n${final}\n</result>`], { stop_reason: "end_turn", stop_sequence: null });

  // Failed before: the unclosed <result> block of a reply that finished by content_filter was read to its end
  // (readOutput treated only "length" as cut off), so "First, run the scanner against the host and" was the answer,
  // where cut-short.ts already counts a refusal as cutting the reply short. src/lm/prompt.ts now refuses such a block.
  it("anthropic, streamed: the partial answer is not taken; the reply is asked for again", async () => {
    server.reply({ sse: refusedMidAnswer }, { sse: answered });
    const answer = ai("answer", { description: "Answer the question.", input: { question: z.string() } });
    const turn = answer.stream("How do I get into that server?", { lm: claude() });
    for await (const _ of turn); // (streamed, as the classifiers' refusals are)
    expect(await turn).toBe(final);
    expect(server.requests).toHaveLength(2);
  });

  it("the refusal is read as such by the adapter (content_filter), its partial text kept", async () => {
    server.reply({ sse: refusedMidAnswer });
    const res = await claude().generate(ask, { onText: () => {} });
    expect(res).toMatchObject({ text: "<result>\nFirst, run the scanner against the host and", finishReason: "content_filter" });
  });
});

describe("openai: a reasoning model that spent its whole limit before answering", () => {
  // gpt-5-mini / o-series with a small max_completion_tokens: content "", finish_reason "length", every completion
  // token a reasoning token.
  const spent = {
    id: "chatcmpl-spent",
    object: "chat.completion",
    created: 1764400000,
    model: "gpt-5-mini-2025-08-07",
    choices: [{ index: 0, message: { role: "assistant", content: "", refusal: null, annotations: [] }, finish_reason: "length" }],
    usage: { prompt_tokens: 60, completion_tokens: 64, total_tokens: 124, completion_tokens_details: { reasoning_tokens: 64 } },
  };

  it("the adapter reads it as an empty reply cut off by its length limit", async () => {
    server.reply({ json: spent });
    expect(await gpt().generate({ ...ask, maxTokens: 64 })).toMatchObject({ text: "", toolCalls: [], finishReason: "length" });
    expect(server.requests[0]!.body.max_completion_tokens).toBe(64);
  });

  // Failed before: README (Models) says a plain answer cut off by its token limit is refused (output-invalid)
  // "saying to raise maxTokens"; an empty reply cut off so was refused as "the reply is empty", not saying it.
  // src/engine/ai-call.ts now gives an empty reply whose finishReason is "length" to readOutput, which says it.
  it("an AI function refuses it saying to raise maxTokens", async () => {
    server.reply({ json: spent }, { json: spent });
    const answer = ai("answer", { description: "Answer the question.", input: { question: z.string() }, maxTokens: 64 });
    const e = await answer("Why is the sky blue?", { lm: gpt() }).then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(OutputError);
    expect((e as OutputError).message).toMatch(/raise maxTokens/);
  });
});

describe("openai-compatible thinking models: the reasoning beside a tool call", () => {
  // deepseek-reasoner (and DeepSeek V4's thinking mode) sends `reasoning_content` beside `tool_calls` and refuses the
  // next request whose assistant message leaves it out: 400 "Missing `reasoning_content` field in the assistant
  // message at message index 2" (api-docs.deepseek.com/guides/thinking_mode#tool-calls; reported in
  // abhigyanpatwari/GitNexus#43, JohnnyZ93/oai-compatible-copilot#215).
  const call = { id: "call_00_Wq1n0bV2", type: "function", function: { name: "lookup_order", arguments: '{"order_id":"A-1042"}' } };
  const thinking = {
    id: "9f1c2a",
    object: "chat.completion",
    created: 1764400000,
    model: "deepseek-reasoner",
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: "",
          reasoning_content: "The user asks about A-1042; look it up first.",
          tool_calls: [{ index: 0, ...call }],
        },
        logprobs: null,
        finish_reason: "tool_calls",
      },
    ],
    usage: { prompt_tokens: 120, completion_tokens: 40, total_tokens: 160 },
  };
  const answer = {
    ...thinking,
    choices: [
      {
        index: 0,
        message: { role: "assistant", content: "<result>\nIt is stuck at the carrier.\n</result>", reasoning_content: "The tool says stuck." },
        logprobs: null,
        finish_reason: "stop",
      },
    ],
  };
  /** DeepSeek's check: a request whose tool-calling assistant message has no reasoning_content is refused, as its API does. */
  const deepseek = (ok: Reply): Reply => ({
    by: ({ body }) => {
      const messages = body.messages as { role: string; tool_calls?: unknown[]; reasoning_content?: unknown }[];
      const at = messages.findIndex((m) => m.role === "assistant" && m.tool_calls !== undefined && typeof m.reasoning_content !== "string");
      if (at < 0) return ok;
      const message = `Missing \`reasoning_content\` field in the assistant message at message index ${at}. For more information, please refer to https://api-docs.deepseek.com/guides/thinking_mode#tool-calls`;
      return { status: 400, json: { error: { message, type: "invalid_request_error", param: null, code: "invalid_request_error" } } };
    },
  });

  const lookup = tool("lookup_order", { description: "An order's status.", input: { order_id: z.string() }, effects: "reads" }, () => ({
    status: "stuck at the carrier",
  }));
  const desk = ai("desk", { description: "Answer the customer.", input: { question: z.string() }, tools: [lookup] });
  const reasoner = () => openai({ model: "deepseek-reasoner", apiKey: "test-key", baseURL: `${server.url}/v1`, maxRetries: 0 });
  const REASONING = thinking.choices[0]!.message.reasoning_content;
  /** What the second request's tool-calling assistant message was. */
  const sentBack = () =>
    (server.requests[1]!.body.messages as Record<string, unknown>[]).find((m) => m.role === "assistant" && m.tool_calls !== undefined);

  it("whole: the second request gives its reasoning back beside the calls, and the turn answers", async () => {
    server.reply({ json: thinking }, deepseek({ json: answer }));
    expect(await desk("Where is A-1042?", { lm: reasoner() })).toBe("It is stuck at the carrier.");
    expect(sentBack()).toEqual({ role: "assistant", content: null, reasoning_content: REASONING, tool_calls: [call] });
  });

  it("streamed: the reasoning deltas are joined, never shown as text, and given back", async () => {
    const chunk = (delta: unknown, finish_reason: string | null = null, usage: unknown = null) =>
      `data: ${JSON.stringify({ id: "9f1c2b", object: "chat.completion.chunk", created: 1764400000, model: "deepseek-reasoner", choices: finish_reason === "none" ? [] : [{ index: 0, delta, logprobs: null, finish_reason }], usage })}\n\n`;
    const [head, tail] = [REASONING.slice(0, 9), REASONING.slice(9)];
    const streamed =
      chunk({ role: "assistant", content: null, reasoning_content: "" }) +
      chunk({ reasoning_content: head }) +
      chunk({ reasoning_content: tail }) +
      chunk({ content: null, tool_calls: [{ index: 0, ...call, function: { ...call.function, arguments: "" } }] }) +
      chunk({ tool_calls: [{ index: 0, function: { arguments: call.function.arguments } }] }) +
      chunk({}, "tool_calls") +
      chunk({}, "none", thinking.usage) +
      "data: [DONE]\n\n";
    const final = `${chunk({ role: "assistant", content: "<result>\nIt is stuck at the carrier.\n</result>" })}${chunk({}, "stop")}data: [DONE]\n\n`;
    server.reply({ sse: streamed }, deepseek({ sse: final }));
    const turn = desk.stream("Where is A-1042?", { lm: reasoner() });
    const shown: string[] = [];
    for await (const e of turn) if (e.type === "text") shown.push(e.delta);
    expect(await turn).toBe("It is stuck at the carrier.");
    expect(shown.join("")).toBe("It is stuck at the carrier.");
    expect(sentBack()).toMatchObject({ reasoning_content: REASONING, tool_calls: [call] });
  });

  it("a reply without reasoning (gpt-4.1-mini's) is sent back as before: no reasoning_content key", async () => {
    const res = await recordedCallSentBack();
    expect(res.toolCalls[0]).not.toHaveProperty("reasoning");
    expect(sentBack()).not.toHaveProperty("reasoning_content");
  });
});

describe("gemini through its OpenAI-compatible API: a call's thought signature", () => {
  // Gemini 3 sends `extra_content: { google: { thought_signature } }` on a tool call and refuses a next request whose
  // call lacks it: 400 "Function call is missing a thought_signature in functionCall parts"
  // (ai.google.dev/gemini-api/docs/thought-signatures; discuss.ai.google.dev/t/109823). Its error bodies are lists.
  const SIGNATURE = { google: { thought_signature: "CrICAdHtim827fQ5pL0wZq8=" } };
  const call = { id: "function-call-17346", type: "function", function: { name: "lookup_order", arguments: '{"order_id":"A-1042"}' } };
  const completion = (message: Record<string, unknown>, finish_reason: string) => ({
    id: "gemini-1",
    object: "chat.completion",
    created: 1764400000,
    model: "gemini-3-pro-preview",
    choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason }],
    usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
  });
  const answered = completion({ content: "<result>\nIt is stuck at the carrier.\n</result>" }, "stop");
  /** Gemini's check: every call it gave a signature must come back with it. */
  const gemini = (ok: Reply): Reply => ({
    by: ({ body }) => {
      const calls = (body.messages as { tool_calls?: { extra_content?: unknown }[] }[]).flatMap((m) => m.tool_calls ?? []);
      if (calls.every((c) => JSON.stringify(c.extra_content) === JSON.stringify(SIGNATURE))) return ok;
      const message = "Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly.";
      return { status: 400, json: [{ error: { code: 400, message, status: "INVALID_ARGUMENT" } }] };
    },
  });
  const lookup = tool("lookup_order", { description: "An order's status.", input: { order_id: z.string() }, effects: "reads" }, () => ({
    status: "stuck",
  }));
  const desk = ai("desk", { description: "Answer the customer.", input: { question: z.string() }, tools: [lookup] });
  const gemini3 = () => openai({ model: "gemini-3-pro-preview", apiKey: "test-key", baseURL: `${server.url}/v1`, maxRetries: 0 });
  const sentCall = () => (server.requests[1]!.body.messages as { tool_calls?: unknown[] }[]).find((m) => m.tool_calls)!.tool_calls![0];

  it("whole: the signature goes back with the call, and the turn answers", async () => {
    server.reply({ json: completion({ tool_calls: [{ extra_content: SIGNATURE, ...call }] }, "tool_calls") }, gemini({ json: answered }));
    expect(await desk("Where is A-1042?", { lm: gemini3() })).toBe("It is stuck at the carrier.");
    expect(sentCall()).toEqual({ ...call, extra_content: SIGNATURE });
  });

  for (const [name, deltas] of [
    ["on the call (no index, as Gemini streams it)", [{ role: "assistant", tool_calls: [{ ...call, extra_content: SIGNATURE }] }]],
    [
      "in a delta of its own after the call",
      [{ role: "assistant", tool_calls: [{ index: 0, ...call }] }, { tool_calls: [{ extra_content: SIGNATURE }] }],
    ],
  ] as const) {
    it(`streamed, ${name}: the signature goes back with the call, and no other call is made of it`, async () => {
      const chunk = (choices: unknown[], usage: unknown = null) =>
        `data: ${JSON.stringify({ id: "gemini-2", object: "chat.completion.chunk", created: 1764400000, model: "gemini-3-pro-preview", choices, usage })}\n\n`;
      const sse = `${deltas.map((delta) => chunk([{ index: 0, delta, finish_reason: null }])).join("")}${chunk([{ index: 0, delta: {}, finish_reason: "stop" }])}data: [DONE]\n\n`;
      const final = `${chunk([{ index: 0, delta: { role: "assistant", content: "<result>\nIt is stuck at the carrier.\n</result>" }, finish_reason: "stop" }])}data: [DONE]\n\n`;
      server.reply({ sse }, gemini({ sse: final }));
      const turn = desk.stream("Where is A-1042?", { lm: gemini3() });
      const calls: unknown[] = [];
      for await (const e of turn) if (e.type === "tool_call") calls.push(e.input);
      expect(await turn).toBe("It is stuck at the carrier.");
      expect(calls).toEqual([{ order_id: "A-1042" }]);
      expect(sentCall()).toEqual({ ...call, extra_content: SIGNATURE });
    });
  }

  it("its errors, a list holding the error, are told in Gemini's words, with their code", async () => {
    const words = "Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly.";
    const exhausted = "Resource has been exhausted (e.g. check quota).";
    server.reply(
      { status: 400, json: [{ error: { code: 400, message: words, status: "INVALID_ARGUMENT" } }] },
      { status: 429, json: [{ error: { code: 429, message: exhausted, status: "RESOURCE_EXHAUSTED" } }], headers: { "retry-after": "0.01" } },
      { json: answered },
    );
    const bad = await gemini3()
      .generate(ask)
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(bad).toMatchObject({ code: "provider-bad-request", status: 400, message: expect.stringContaining(words) });
    expect(server.requests).toHaveLength(1); // (not retried)
    const lm = openai({ model: "gemini-3-pro-preview", apiKey: "test-key", baseURL: `${server.url}/v1`, maxRetries: 1 });
    expect((await lm.generate(ask)).text).toContain("stuck at the carrier");
  });

  it("a call without one (gpt-4.1-mini's) goes back without extra_content, as before", async () => {
    const res = await recordedCallSentBack();
    expect(res.toolCalls[0]).not.toHaveProperty("extraContent");
    expect(sentCall()).not.toHaveProperty("extra_content");
  });
});

describe("a server that streams though the request asked for a whole reply", () => {
  // mini-sglang answers every /v1/chat/completions with SSE, stream: false or not (sgl-project/mini-sglang#51), as
  // unsloth's server did (unslothai/unsloth#6570). The SDKs hand such a body back as its text.
  it("openai: the recorded stream, sent to a request without stream, is the reply (text, finish, usage)", async () => {
    const sse = fixture("hunt4-wire/openai-chat-stream-04-response-final.sse");
    const chunks = sseData(sse) as {
      choices: { delta: { content?: string } }[];
      usage: { prompt_tokens: number; completion_tokens: number } | null;
    }[];
    server.reply({ sse });
    const res = await gpt().generate(ask);
    expect(server.requests[0]!.body.stream).not.toBe(true);
    expect(res).toMatchObject({
      text: chunks.map((c) => c.choices[0]?.delta.content ?? "").join(""),
      finishReason: "stop",
      usage: { inputTokens: chunks.at(-1)!.usage!.prompt_tokens, outputTokens: chunks.at(-1)!.usage!.completion_tokens },
    });
  });

  it("openai: the recorded streamed tool call is read whole, its arguments joined", async () => {
    server.reply({ sse: fixture("hunt4-wire/openai-chat-stream-02-response-tool-calls.sse") });
    const res = await gpt().generate(ask);
    expect(res.finishReason).toBe("tool_calls");
    expect(res.toolCalls).toHaveLength(1);
    expect(res.toolCalls[0]).not.toHaveProperty("inputError");
  });

  it("anthropic: the recorded stream is the reply: its text and its tool_use", async () => {
    server.reply({ sse: fixture("hunt4-wire/anthropic-stream-tool-use.sse") });
    const res = await claude().generate(ask);
    expect(server.requests[0]!.body.stream).not.toBe(true);
    expect(res).toMatchObject({
      text: "I'll check the current weather in Paris for you.",
      toolCalls: [{ id: "toolu_01NRLabsLyVHZPKxbKvkfSMn", name: "get_weather", input: { location: "Paris" } }],
      finishReason: "tool_calls",
      usage: { inputTokens: 377, outputTokens: 65 },
    });
  });

  it("an error event in it is that error (overloaded: retried, then the reply); one cut short is provider-network", async () => {
    const events = fixture("hunt4-wire/anthropic-stream-tool-use.sse").split(/(?<=\n\n)/);
    const overloaded = `${events.slice(0, 3).join("")}event: error\ndata: {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}\n\n`;
    server.reply({ sse: overloaded }, { sse: events.join("") }, { sse: events.slice(0, 6).join("") });
    const lm = anthropic({ model: "claude-sonnet-4-20250514", apiKey: "test-key", baseURL: server.url, maxRetries: 1 });
    expect((await lm.generate(ask)).toolCalls).toHaveLength(1);
    expect(server.requests).toHaveLength(2);
    const cut = await claude()
      .generate(ask)
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(cut).toMatchObject({ code: "provider-network" });
  });

  it("a page that is no event stream is still provider-response, showing it", async () => {
    server.reply({ raw: "<html><body>Service Unavailable</body></html>" });
    await expect(gpt().generate(ask)).rejects.toMatchObject({ code: "provider-response", message: expect.stringContaining("Service Unavailable") });
  });
});
