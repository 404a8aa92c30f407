/**
 * Replies a server ended before their end, in the wire forms real servers
 * send: vLLM's `finish_reason` "abort", "error" and "repetition" (its
 * FINISH_REASON_STRINGS), Anthropic's `stop_reason: "pause_turn"`. None is a
 * whole answer: each is refused with a stable code instead of being read as
 * one ("abort" and "error" are the server's failure, tried again), and no
 * tool call of such a reply runs. And a `tool_use` whose input came whole in
 * its `content_block_start` (no `input_json_delta` after it, as the
 * `@anthropic-ai/sdk`'s own stream reader takes it) runs with that input, not
 * with `{}`.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, tool } from "../../src/index.js";
import type { LMRequest, ToolSpec } from "../../src/lm/types.js";
import { anthropic } from "../../src/providers/anthropic.js";
import { openai } from "../../src/providers/openai.js";
import { claudeMessageStart, claudeSse } from "./anthropic-sse.js";
import { type MockServer, eachTestServer, failure } from "./server.js";

const refund: ToolSpec = {
  name: "refund",
  description: "Refund an order.",
  parameters: { type: "object", properties: { order_id: { type: "string" }, reason: { type: "string" } }, required: ["order_id"] },
};
const ask: LMRequest = { messages: [{ role: "user", content: "<question>\nRefund A-1042\n</question>" }], tools: [refund] };

let server: MockServer;
eachTestServer((s) => (server = s));
const claude = (maxRetries = 0) => anthropic({ model: "claude-haiku-4-5", apiKey: "test-key", baseURL: server.url, maxRetries });
const local = (maxRetries = 0) => openai({ model: "Qwen/Qwen3-8B", apiKey: "none", baseURL: `${server.url}/v1`, maxRetries });

const messageStart = claudeMessageStart({
  usage: { input_tokens: 40, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 },
});
const ending = (stop_reason: string) => [
  { type: "message_delta", delta: { stop_reason, stop_sequence: null }, usage: { output_tokens: 30 } },
  { type: "message_stop" },
];
const claudeMessage = (content: unknown[], stop_reason: string) => ({ ...messageStart.message, content, stop_reason });

/** vLLM's chunks, as its OpenAI server streams them (id, created, model; `[DONE]` last). */
const vllmChunk = ([delta, finish_reason]: [unknown, string | null]): string =>
  `data: ${JSON.stringify({ id: "chatcmpl-9f1", object: "chat.completion.chunk", created: 1764400000, model: "Qwen/Qwen3-8B", choices: [{ index: 0, delta, logprobs: null, finish_reason }] })}\n\n`;
const vllmSse = (deltas: [unknown, string | null][]): string => `${deltas.map(vllmChunk).join("")}data: [DONE]\n\n`;
const vllmWhole = (content: string | null, finish_reason: string, tool_calls: unknown[] = []) => ({
  id: "chatcmpl-9f2",
  object: "chat.completion",
  created: 1764400000,
  model: "Qwen/Qwen3-8B",
  choices: [
    { index: 0, message: { role: "assistant", content, tool_calls, reasoning_content: null }, logprobs: null, finish_reason, stop_reason: null },
  ],
  usage: { prompt_tokens: 40, completion_tokens: 12, total_tokens: 52 },
});

describe("anthropic: a tool_use whose input came whole in content_block_start", () => {
  const started = (input: unknown, json: string[] = []) =>
    claudeSse([
      messageStart,
      { type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "toolu_01A", name: "refund", input } },
      ...json.map((partial_json) => ({ type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json } })),
      { type: "content_block_stop", index: 0 },
      ...ending("tool_use"),
    ]);

  it("is that input, not {}", async () => {
    server.reply({ sse: started({ order_id: "A-1042", reason: "late" }) });
    const res = await claude().generate(ask, { onText: () => {} });
    expect(res.toolCalls).toEqual([{ id: "toolu_01A", name: "refund", input: { order_id: "A-1042", reason: "late" } }]);
  });

  it("input_json_delta fragments after it are the input (as api.anthropic.com sends them, after input: {})", async () => {
    server.reply({ sse: started({}, ["", '{"order_id": "A-', '1042"}']) });
    expect((await claude().generate(ask, { onText: () => {} })).toolCalls[0]!.input).toEqual({ order_id: "A-1042" });
  });

  it("cut by max_tokens, it is still not run as whole", async () => {
    server.reply({
      sse: claudeSse([
        messageStart,
        {
          type: "content_block_start",
          index: 0,
          content_block: { type: "tool_use", id: "toolu_01A", name: "refund", input: { order_id: "A-1042" } },
        },
        { type: "content_block_stop", index: 0 },
        ...ending("max_tokens"),
      ]),
    });
    expect((await claude().generate(ask, { onText: () => {} })).toolCalls[0]!.inputError).toMatch(/cut off/);
  });

  it("end to end: the tool runs once with that input", async () => {
    const refunded: unknown[] = [];
    const refundTool = tool(
      "refund",
      { description: "Refund an order.", input: { order_id: z.string(), reason: z.string().optional() } },
      (input) => {
        refunded.push(input);
        return "refunded";
      },
    );
    const desk = ai("desk", { description: "Handle refunds.", input: { question: z.string() }, tools: [refundTool] });
    server.reply(
      { sse: started({ order_id: "A-1042", reason: "late" }) },
      { json: claudeMessage([{ type: "text", text: "<result>\nA-1042 refunded.\n</result>" }], "end_turn") },
    );
    const turn = desk.stream("Refund A-1042", { lm: claude() });
    for await (const _ of turn); // (streamed: the first reply's tool_use comes as events)
    expect(await turn).toBe("A-1042 refunded.");
    expect(refunded).toEqual([{ order_id: "A-1042", reason: "late" }]);
  });
});

describe("openai-compatible (vLLM): a reply the server ended unfinished", () => {
  it.each(["abort", "error"])("finish_reason %s, streamed: provider-server, not the reply; retried, the next reply is", async (reason) => {
    const unfinished = {
      sse: vllmSse([
        [{ role: "assistant", content: "" }, null],
        [{ content: "<result>\n12" }, null],
        [{ content: "" }, reason],
      ]),
    };
    const whole = {
      sse: vllmSse([
        [{ role: "assistant", content: "" }, null],
        [{ content: "<result>\n12345\n</result>" }, null],
        [{}, "stop"],
      ]),
    };
    server.reply(unfinished, unfinished, whole);
    const e = await failure(local().generate(ask, { onText: () => {} }));
    expect(e.code).toBe("provider-server");
    expect(e.message).toContain(`"${reason}"`);
    // held back, nothing shown: asked again
    const res = await local(1).generate(ask, { onText: () => {}, heldText: { shown: () => false, restart: () => {} } });
    expect(res.text).toBe("<result>\n12345\n</result>");
    expect(server.requests).toHaveLength(3);
  });

  it("finish_reason abort, whole, with a tool call: refused; the call is not given", async () => {
    const call = { id: "chatcmpl-tool-1", type: "function", function: { name: "refund", arguments: '{"order_id": "A-1042"}' } };
    server.reply({ json: vllmWhole(null, "abort", [call]) });
    expect((await failure(local().generate(ask))).code).toBe("provider-server");
  });

  it("finish_reason repetition (the server stopped a reply repeating itself): provider-response, not retried", async () => {
    server.reply({ json: vllmWhole("<result>\nyes yes yes yes", "repetition") }, { json: vllmWhole("<result>\nyes\n</result>", "stop") });
    const e = await failure(local(2).generate(ask));
    expect(e.code).toBe("provider-response");
    expect(server.requests).toHaveLength(1);
  });

  it("end to end: an aborted answer is not taken; the turn fails with provider-server", async () => {
    const count = ai("count", { description: "Count.", input: { question: z.string() }, output: z.number() });
    server.reply({
      sse: vllmSse([
        [{ role: "assistant", content: "<result>\n12" }, null],
        [{}, "abort"],
      ]),
    });
    const turn = count.stream("How many?", { lm: local() });
    for await (const _ of turn);
    const e = await Promise.resolve(turn).then(
      () => "answered",
      (x: unknown) => (x as { code?: string }).code,
    );
    expect(e).toBe("provider-server");
  });
});

describe("anthropic: stop_reason pause_turn", () => {
  const paused = [{ type: "text", text: "<result>\nLet me look that up" }];
  it("whole: refused (provider-response), not read as the answer", async () => {
    server.reply({ json: claudeMessage(paused, "pause_turn") });
    const e = await failure(claude().generate(ask));
    expect(e.code).toBe("provider-response");
    expect(e.message).toContain("pause_turn");
  });

  it("streamed: refused the same", async () => {
    server.reply({
      sse: claudeSse([
        messageStart,
        { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
        { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Let me look that up" } },
        { type: "content_block_stop", index: 0 },
        ...ending("pause_turn"),
      ]),
    });
    expect((await failure(claude().generate(ask, { onText: () => {} }))).code).toBe("provider-response");
  });

  it("a paused reply holding a tool_use: refused, the call not given", async () => {
    const use = { type: "tool_use", id: "toolu_01A", name: "refund", input: { order_id: "A-1042" } };
    server.reply({ json: claudeMessage([use], "pause_turn") });
    expect((await failure(claude().generate(ask))).code).toBe("provider-response");
  });

  it("a paused reply holding only server tool blocks is the empty reply it is (hunt 4 asks again, then output-invalid)", async () => {
    server.reply({ json: claudeMessage([{ type: "server_tool_use", id: "srvtoolu_01", name: "web_search", input: { query: "x" } }], "pause_turn") });
    expect(await claude().generate(ask)).toMatchObject({ text: "", toolCalls: [], finishReason: "other" });
  });
});
