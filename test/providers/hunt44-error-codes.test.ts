/**
 * Errors mapped to the stable code that says what happened. A 402 Payment
 * Required is an account out of credit (DeepSeek's "Insufficient Balance",
 * OpenRouter's "Insufficient credits"): `provider-quota`, as README says of
 * a spent quota or credit, not `provider-bad-request` (nothing was wrong
 * with the request; a program telling the two apart told the user to fix
 * their call). And OpenAI's quota error named only by its `code` (as
 * compatible gateways send it, with another `type`) is the quota too.
 */
import { describe, expect, it } from "vitest";
import type { LMRequest } from "../../src/lm/types.js";
import { anthropic } from "../../src/providers/anthropic.js";
import { openai } from "../../src/providers/openai.js";
import { type MockServer, eachTestServer, failure } from "./server.js";

let server: MockServer;
eachTestServer((s) => (server = s));
const ask: LMRequest = { messages: [{ role: "user", content: "Hi" }], tools: [] };
const compatible = () => openai({ model: "deepseek-chat", apiKey: "test-key", baseURL: `${server.url}/v1`, maxRetries: 2 });

describe("402 Payment Required is provider-quota, not retried", () => {
  const cases: [string, unknown][] = [
    ["DeepSeek", { error: { message: "Insufficient Balance", type: "unknown_error", param: null, code: "invalid_request_error" } }],
    ["OpenRouter", { error: { message: "Insufficient credits. Add more using https://openrouter.ai/settings/credits", code: 402 } }],
  ];
  for (const [who, body] of cases) {
    it(`openai-compatible (${who})`, async () => {
      server.reply({ status: 402, json: body });
      const e = await failure(compatible().generate(ask));
      expect(e.code).toBe("provider-quota");
      expect(e.status).toBe(402);
      expect(server.requests).toHaveLength(1);
    });
  }

  it("anthropic-compatible (a proxy's 402)", async () => {
    server.reply({ status: 402, json: { type: "error", error: { type: "invalid_request_error", message: "Insufficient credits" } } });
    const e = await failure(anthropic({ model: "claude-haiku-4-5", apiKey: "test-key", baseURL: server.url, maxRetries: 2 }).generate(ask));
    expect(e.code).toBe("provider-quota");
    expect(server.requests).toHaveLength(1);
  });
});

it("a 429 whose code (not its type) says insufficient_quota is provider-quota, not retried", async () => {
  server.reply({
    status: 429,
    headers: { "retry-after-ms": "1" },
    json: {
      error: {
        message: "You exceeded your current quota, please check your plan and billing details.",
        type: "requests",
        code: "insufficient_quota",
      },
    },
  });
  const e = await failure(compatible().generate(ask));
  expect(e.code).toBe("provider-quota");
  expect(server.requests).toHaveLength(1);
});
