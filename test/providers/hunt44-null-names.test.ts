/**
 * A tool call a compatible server gave without a name (`name: null` or left
 * out, whole or streamed) is a call named "" (no tool's: the model is told),
 * never one whose name is not a string: read as `undefined` it was told to
 * the model as `no tool named undefined`, and went back in the next request
 * without a name, which OpenAI and Anthropic refuse (400), every later
 * request of the conversation with it. Sent back, it is named "unnamed".
 */
import { describe, expect, it } from "vitest";
import type { Message } from "../../src/lm/types.js";
import { anthropic } from "../../src/providers/anthropic.js";
import { openai } from "../../src/providers/openai.js";
import { type MockServer, eachTestServer } from "./server.js";
import { ask, lookup } from "./fixtures/lookup-order.js";

let server: MockServer;
eachTestServer((s) => (server = s));
const local = () => openai({ model: "local", apiKey: "none", baseURL: `${server.url}/v1`, maxRetries: 0 });

const completion = (fn: Record<string, unknown>, content: string | null = null) => ({
  id: "chatcmpl-1",
  object: "chat.completion",
  created: 1764400000,
  model: "local",
  choices: [
    {
      index: 0,
      message: { role: "assistant", content, tool_calls: [{ id: "call_1", type: "function", function: fn }] },
      finish_reason: "tool_calls",
    },
  ],
  usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 },
});

describe("a call without a name", () => {
  for (const [label, fn] of [
    ["name: null", { name: null, arguments: '{"order_id":"A-1042"}' }],
    ["no name", { arguments: '{"order_id":"A-1042"}' }],
  ] as const) {
    it(`whole, ${label}: named ""`, async () => {
      server.reply({ json: completion(fn) });
      const reply = await local().generate(ask);
      expect(reply.toolCalls).toEqual([{ id: "call_1", name: "", input: { order_id: "A-1042" } }]);
    });
  }

  it("a history holding a call whose name is not a string sends it named, to both providers", async () => {
    const history: Message[] = [
      ...ask.messages,
      { role: "assistant", content: "", toolCalls: [{ id: "call_1", name: undefined as unknown as string, input: { order_id: "A-1042" } }] },
      { role: "tool", toolCallId: "call_1", name: "", content: "Error: there is no tool named ." },
    ];
    server.reply(
      { json: { ...completion({}), choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }] } },
      {
        json: {
          id: "msg_1",
          type: "message",
          role: "assistant",
          model: "claude-haiku-4-5",
          content: [{ type: "text", text: "ok" }],
          stop_reason: "end_turn",
          stop_sequence: null,
          usage: { input_tokens: 5, output_tokens: 1 },
        },
      },
    );
    await local().generate({ messages: history, tools: [lookup] });
    await anthropic({ model: "claude-haiku-4-5", apiKey: "k", baseURL: server.url, maxRetries: 0 }).generate({ messages: history, tools: [lookup] });
    const [toOpenAI, toAnthropic] = server.requests.map((r) => JSON.stringify(r.body.messages));
    expect(JSON.parse(toOpenAI!)[1].tool_calls[0].function.name).toBe("unnamed");
    expect(JSON.parse(toAnthropic!)[1].content[0].name).toBe("unnamed");
  });
});
