/**
 * Moonshot's API (Kimi) streams a reply's usage inside its last chunk's
 * choice (`choices[0].usage`, beside `finish_reason`), not at the chunk's
 * top as OpenAI does. A streamed Kimi reply was counted as 0 tokens in and
 * out (what a budget or a bill reads); its usage is read where it comes now.
 */
import { expect, it } from "vitest";
import type { LMRequest } from "../../src/lm/types.js";
import { openai } from "../../src/providers/openai.js";
import { type MockServer, eachTestServer } from "./server.js";

let server: MockServer;
eachTestServer((s) => (server = s));
const ask: LMRequest = { messages: [{ role: "user", content: "Hello" }], tools: [] };

/** Moonshot's chunk, as its API streams one. */
const chunk = (choice: Record<string, unknown>): string =>
  `data: ${JSON.stringify({
    id: "chatcmpl-67500eb0c51af667d5968f74",
    object: "chat.completion.chunk",
    created: 1733299889,
    model: "kimi-k2-0905-preview",
    choices: [{ index: 0, ...choice }],
    system_fingerprint: "fpv0_c26222aa",
  })}\n\n`;

it("openai, streamed: usage given inside the last chunk's choice (Moonshot's Kimi) is counted", async () => {
  server.reply({
    sse: [
      chunk({ delta: { role: "assistant", content: "" }, finish_reason: null }),
      chunk({ delta: { content: "Hello!" }, finish_reason: null }),
      chunk({ delta: {}, finish_reason: "stop", usage: { prompt_tokens: 10, completion_tokens: 79, total_tokens: 89, cached_tokens: 0 } }),
      "data: [DONE]\n\n",
    ].join(""),
  });
  const kimi = openai({ model: "kimi-k2-0905-preview", apiKey: "test-key", baseURL: `${server.url}/v1`, maxRetries: 0 });
  const reply = await kimi.generate(ask, { onText: () => {} });
  expect(reply).toMatchObject({ text: "Hello!", finishReason: "stop", usage: { inputTokens: 10, outputTokens: 79 } });
});
