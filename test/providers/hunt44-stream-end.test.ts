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
import { claudeTextStream } from "./anthropic-sse.js";
import { type MockServer, eachTestServer } from "./server.js";

let server: MockServer;
eachTestServer((s) => (server = s));
const ask: LMRequest = { messages: [{ role: "user", content: "Hi" }], tools: [] };

const reply = claudeTextStream(["Hello."], { inputTokens: 9, outputTokens: 3 });

it("a stream left open after message_stop gives its reply at once", async () => {
  // (the body never ends while the test runs: the server closes it only after the test, so a reply given back at
  // all was given at message_stop; no clock is read, a loaded machine slows both alike)
  server.reply({ sse: reply, hang: true });
  const res = await anthropic({ model: "claude-haiku-4-5", apiKey: "test-key", baseURL: server.url, maxRetries: 0 }).generate(ask, {
    onText: () => {},
  });
  expect(res.text).toBe("Hello.");
  expect(res.usage).toEqual({ inputTokens: 9, outputTokens: 3 });
}, 30_000);
