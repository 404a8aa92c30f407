/**
 * A reply that says it stopped to call a tool (Anthropic's `stop_reason:
 * "tool_use"`, OpenAI's `finish_reason: "tool_calls"`) but holds no call: a
 * gateway that dropped the call's block, vLLM's non-streamed reply under
 * `tool_choice: "required"` with no parser (vllm-project/vllm#53255). Today
 * its words before the call ("Let me look that order up.") are read as the
 * answer, and a function returning a string returns them.
 *
 * Decided: such a reply is refused (`provider-response`), as a reply the
 * server ended unfinished is: the finish reason says the model meant a call,
 * so its words are no answer (never a silent fallback to them).
 */
import { describe, expect, it } from "vitest";
import type { LMRequest, ToolSpec } from "../../src/lm/types.js";
import { anthropic } from "../../src/providers/anthropic.js";
import { openai } from "../../src/providers/openai.js";
import { claudeMessageStart } from "./anthropic-sse.js";
import { type MockServer, eachTestServer, failure } from "./server.js";

const lookup: ToolSpec = {
  name: "lookup",
  description: "Look an order up.",
  parameters: { type: "object", properties: { order_id: { type: "string" } }, required: ["order_id"] },
};
const ask: LMRequest = { messages: [{ role: "user", content: "Where is A-1042?" }], tools: [lookup] };
const words = "Let me look that order up.";

let server: MockServer;
eachTestServer((s) => (server = s));

describe("a reply that stopped for a tool call it does not hold", () => {
  it("anthropic: stop_reason tool_use, no tool_use block: not read as the answer", async () => {
    const { message } = claudeMessageStart();
    server.reply({ json: { ...message, content: [{ type: "text", text: words }], stop_reason: "tool_use" } });
    const claude = anthropic({ model: "claude-haiku-4-5", apiKey: "test-key", baseURL: server.url, maxRetries: 0 });
    expect((await failure(claude.generate(ask))).code).toBe("provider-response");
  });

  it("openai: finish_reason tool_calls, no tool_calls: not read as the answer", async () => {
    server.reply({
      json: {
        id: "chatcmpl-9f2",
        object: "chat.completion",
        created: 1764400000,
        model: "Qwen/Qwen3-8B",
        choices: [{ index: 0, message: { role: "assistant", content: words, tool_calls: [] }, finish_reason: "tool_calls" }],
        usage: { prompt_tokens: 40, completion_tokens: 9, total_tokens: 49 },
      },
    });
    const local = openai({ model: "Qwen/Qwen3-8B", apiKey: "none", baseURL: `${server.url}/v1`, maxRetries: 0 });
    expect((await failure(local.generate(ask))).code).toBe("provider-response");
  });
});
