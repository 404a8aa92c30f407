/**
 * An Anthropic stream is over at `message_stop` (the last event the
 * Messages API sends). A server or proxy that leaves the connection open
 * after it (a keep-alive that never closes the body) held the reply until
 * the client's timeout, ten minutes by default, though the reply was whole:
 * the SDK reads on until the body ends. The reply is now given back at
 * `message_stop`, and the connection closed.
 */
import { expect, it } from "vitest";
import type { LMRequest } from "../../src/lm/types.js";
import { anthropic } from "../../src/providers/anthropic.js";
import { type MockServer, eachTestServer } from "./server.js";

let server: MockServer;
eachTestServer((s) => (server = s));
const ask: LMRequest = { messages: [{ role: "user", content: "Hi" }], tools: [] };

const sse = (events: unknown[]): string => events.map((e) => `event: ${(e as { type: string }).type}\ndata: ${JSON.stringify(e)}\n\n`).join("");
const reply = sse([
  {
    type: "message_start",
    message: {
      id: "msg_01",
      type: "message",
      role: "assistant",
      model: "claude-haiku-4-5-20251001",
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 9, output_tokens: 1 },
    },
  },
  { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
  { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hello." } },
  { type: "content_block_stop", index: 0 },
  { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 3 } },
  { type: "message_stop" },
]);

it("a stream left open after message_stop gives its reply at once", async () => {
  server.reply({ sse: reply, hang: true });
  const started = Date.now();
  const res = await anthropic({ model: "claude-haiku-4-5", apiKey: "test-key", baseURL: server.url, maxRetries: 0 }).generate(ask, {
    onText: () => {},
  });
  expect(res.text).toBe("Hello.");
  expect(res.usage).toEqual({ inputTokens: 9, outputTokens: 3 });
  expect(Date.now() - started).toBeLessThan(2000);
}, 8000);
