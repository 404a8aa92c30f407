/**
 * A wrong `baseURL` (OpenAI-compatible without `/v1`, Anthropic with an extra
 * `/v1`, a typo) is answered 404 by a router that knows no such path, with
 * words such as "404 page not found" that say nothing of why. The error
 * (still provider-bad-request) names the URL asked and says to check
 * `baseURL`. A 404 the API itself sends about a model that does not exist
 * keeps the API's words, with no such advice.
 */
import { describe, expect, it } from "vitest";
import type { LMRequest } from "../../src/lm/types.js";
import { anthropic } from "../../src/providers/anthropic.js";
import { openai } from "../../src/providers/openai.js";
import { failure, type MockServer, eachTestServer } from "./server.js";

const ask: LMRequest = { messages: [{ role: "user", content: "Hi" }], tools: [] };

let server: MockServer;
eachTestServer((s) => (server = s));

describe("a 404 from a wrong baseURL", () => {
  it("openai without /v1: a plain-text 404 names the URL and advises /v1", async () => {
    server.reply({ raw: "404 page not found", status: 404, headers: { "content-type": "text/plain" } });
    const lm = openai({ model: "llama3.1", apiKey: "none", baseURL: server.url, maxRetries: 0 });
    const e = await failure(lm.generate(ask));
    expect(e.code).toBe("provider-bad-request");
    expect(e.status).toBe(404);
    expect(e.message).toContain("404 page not found");
    expect(e.message).toContain(`${server.url}/chat/completions`);
    expect(e.message).toContain("baseURL");
    expect(e.message).toContain("/v1");
  });

  it("openai, streamed: a JSON 404 without the API's words ({ detail }) is advised the same", async () => {
    server.reply({ json: { detail: "Not Found" }, status: 404 });
    const lm = openai({ model: "llama3.1", apiKey: "none", baseURL: `${server.url}/v2/`, maxRetries: 0 });
    const e = await failure(lm.generate(ask, { onText: () => {} }));
    expect(e.code).toBe("provider-bad-request");
    expect(e.message).toContain(`${server.url}/v2/chat/completions`);
    expect(e.message).toContain("baseURL");
  });

  it("openai: the API's own Invalid URL 404 is advised too", async () => {
    server.reply({ json: { error: { message: "Invalid URL (POST /chat/completions)", type: "invalid_request_error", param: null, code: null } }, status: 404 });
    const lm = openai({ model: "gpt-4.1-mini", apiKey: "test-key", baseURL: server.url, maxRetries: 0 });
    const e = await failure(lm.generate(ask));
    expect(e.message).toContain("Invalid URL (POST /chat/completions)");
    expect(e.message).toContain("baseURL");
  });

  it("anthropic with an extra /v1: a Not Found error body names the URL and says the SDK adds /v1", async () => {
    server.reply({ json: { type: "error", error: { type: "not_found_error", message: "Not Found" } }, status: 404 });
    const lm = anthropic({ model: "claude-haiku-4-5", apiKey: "test-key", baseURL: `${server.url}/v1`, maxRetries: 0 });
    const e = await failure(lm.generate(ask));
    expect(e.code).toBe("provider-bad-request");
    expect(server.requests[0]?.path).toBe("/v1/v1/messages");
    expect(e.message).toContain(`${server.url}/v1/v1/messages`);
    expect(e.message).toContain("baseURL");
    expect(e.message).toContain("without /v1");
  });
});

describe("a 404 the API sends about a model", () => {
  it("openai: the model named, no baseURL advice", async () => {
    const words = "The model `gpt-9` does not exist or you do not have access to it.";
    server.reply({ json: { error: { message: words, type: "invalid_request_error", param: null, code: "model_not_found" } }, status: 404 });
    const lm = openai({ model: "gpt-9", apiKey: "test-key", baseURL: `${server.url}/v1`, maxRetries: 0 });
    const e = await failure(lm.generate(ask));
    expect(e.code).toBe("provider-bad-request");
    expect(e.message).toContain(words);
    expect(e.message).not.toContain("baseURL");
  });

  it("an Ollama-style model not found, no baseURL advice", async () => {
    const words = 'model "llama9" not found, try pulling it first';
    server.reply({ json: { error: { message: words, type: "api_error", param: null, code: null } }, status: 404 });
    const lm = openai({ model: "llama9", apiKey: "none", baseURL: `${server.url}/v1`, maxRetries: 0 });
    const e = await failure(lm.generate(ask, { onText: () => {} }));
    expect(e.message).toContain(words);
    expect(e.message).not.toContain("baseURL");
  });

  it("anthropic: not_found_error naming the model, no baseURL advice", async () => {
    server.reply({ json: { type: "error", error: { type: "not_found_error", message: "model: claude-nine" } }, status: 404 });
    const lm = anthropic({ model: "claude-nine", apiKey: "test-key", baseURL: server.url, maxRetries: 0 });
    const e = await failure(lm.generate(ask));
    expect(e.code).toBe("provider-bad-request");
    expect(e.message).toContain("model: claude-nine");
    expect(e.message).not.toContain("baseURL");
  });
});
