/**
 * What the server says of trying again, through the real SDKs: OpenAI's
 * `insufficient_quota` 429 (and Anthropic's `billing_error`) is
 * `provider-quota`, not retried (waiting does not refill a quota); the
 * `x-should-retry` header both providers send, and both SDKs obey,
 * outranks what the status says: `false` is not retried, `true` is (a 409
 * the server marks retryable).
 */
import { describe, expect, it } from "vitest";
import type { LMRequest } from "../../src/lm/types.js";
import { anthropic } from "../../src/providers/anthropic.js";
import { openai } from "../../src/providers/openai.js";
import { failure, fixtureJson, type MockServer, eachTestServer } from "./server.js";

let server: MockServer;
eachTestServer((s) => (server = s));

const ask: LMRequest = { messages: [{ role: "system", content: "Function: answer" }, { role: "user", content: "<question>\nx\n</question>" }], tools: [] };
const openaiLm = () => openai({ model: "gpt-4.1-mini", apiKey: "test-key", baseURL: `${server.url}/v1`, maxRetries: 2 });
const anthropicLm = () => anthropic({ model: "claude-haiku-4-5", apiKey: "test-key", baseURL: server.url, maxRetries: 2 });
const quota = {
  error: { message: "You exceeded your current quota, please check your plan and billing details.", type: "insufficient_quota", param: null, code: "insufficient_quota" },
};

describe("retry signals", () => {
  it("openai: a 429 for a spent quota is provider-quota, not retried", async () => {
    server.reply({ status: 429, headers: { "retry-after": "0.001" }, json: quota }, { json: fixtureJson("openai/text.json") });
    const e = await failure(openaiLm().generate(ask));
    expect([e.code, e.status]).toEqual(["provider-quota", 429]);
    expect(e.message).toContain("exceeded your current quota");
    expect(server.requests).toHaveLength(1);
  });

  it("anthropic: a billing_error is provider-quota, not retried", async () => {
    server.reply({ status: 400, json: { type: "error", error: { type: "billing_error", message: "Your credit balance is too low." } } }, { json: fixtureJson("anthropic/text.json") });
    const e = await failure(anthropicLm().generate(ask));
    expect(e.code).toBe("provider-quota");
    expect(server.requests).toHaveLength(1);
  });

  it("x-should-retry: false is not retried, though the status would be (a 503)", async () => {
    server.reply({ status: 503, headers: { "x-should-retry": "false", "retry-after": "0.001" }, json: { error: { message: "down", type: "server_error" } } }, { json: fixtureJson("openai/text.json") });
    const e = await failure(openaiLm().generate(ask));
    expect([e.code, e.shouldRetry]).toEqual(["provider-server", false]);
    expect(server.requests).toHaveLength(1);
  });

  it("x-should-retry: false on Anthropic's 529 (overloaded) is not retried either", async () => {
    server.reply({ status: 529, headers: { "x-should-retry": "false", "retry-after": "0.001" }, json: fixtureJson("anthropic/error-529.json") }, { json: fixtureJson("anthropic/text.json") });
    expect((await failure(anthropicLm().generate(ask))).code).toBe("provider-overloaded");
    expect(server.requests).toHaveLength(1);
  });

  it("x-should-retry: true is retried, though the status would not be (a 409)", async () => {
    const conflict = { status: 409, headers: { "x-should-retry": "true", "retry-after": "0.001" }, json: { error: { message: "a lock conflict, try again", type: "conflict" } } };
    server.reply(conflict, { json: fixtureJson("openai/text.json") });
    const res = await openaiLm().generate(ask);
    expect(res.text.length).toBeGreaterThan(0);
    expect(server.requests).toHaveLength(2);
  });
});
