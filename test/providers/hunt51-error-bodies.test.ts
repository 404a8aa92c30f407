/**
 * Error bodies that do not hold their words under `error`: the `openai` SDK
 * reads an error's words from the body's `error` key only, so where a
 * compatible server or a gateway puts them elsewhere the caller was told
 * "400 status code (no body)", the server's own words (a context too long,
 * a field missing, a key refused) lost. Seen from vLLM before 0.10
 * (`{ object: "error", message, type, code }` at the top), FastAPI-based
 * servers (`{ detail }`, a string or a list of field errors), and API
 * gateways (Azure API Management's and Kong's `{ message }`).
 *
 * And an error named in a 200 body or in a stream (no HTTP status) that
 * gives an HTTP status as its `code` (vLLM's stream error, OpenRouter's
 * body) was read as `provider-server`, whatever the status said: a 400 was
 * retried as the server's failure, a 401 was no `provider-auth`.
 */
import { describe, expect, it } from "vitest";
import type { LMRequest } from "../../src/lm/types.js";
import { anthropic } from "../../src/providers/anthropic.js";
import { openai } from "../../src/providers/openai.js";
import { chunkEvent } from "./fixtures/hunt51-wire.js";
import { type MockServer, eachTestServer, failure } from "./server.js";

let server: MockServer;
eachTestServer((s) => (server = s));
const ask: LMRequest = { messages: [{ role: "user", content: "Hi" }], tools: [] };
const local = (maxRetries = 0) => openai({ model: "meta-llama/Llama-3.1-8B-Instruct", apiKey: "none", baseURL: `${server.url}/v1`, maxRetries });

const CONTEXT =
  "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.";

describe("openai: an error's words where the server put them", () => {
  const cases: [string, number, unknown, string, string][] = [
    [
      "vLLM before 0.10",
      400,
      { object: "error", message: CONTEXT, type: "BadRequestError", param: null, code: 400 },
      "maximum context length is 4096",
      "provider-bad-request",
    ],
    [
      "FastAPI's field errors",
      422,
      { detail: [{ type: "missing", loc: ["body", "model"], msg: "Field required", input: { messages: [] } }] },
      "body.model: Field required",
      "provider-bad-request",
    ],
    ["FastAPI's detail", 400, { detail: "Model meta-llama/Llama-3.1-8B is not loaded" }, "is not loaded", "provider-bad-request"],
    [
      "Azure API Management",
      401,
      { statusCode: 401, message: "Access denied due to invalid subscription key. Make sure to provide a valid key for an active subscription." },
      "Access denied due to invalid subscription key",
      "provider-auth",
    ],
    ["Kong", 429, { message: "API rate limit exceeded" }, "API rate limit exceeded", "provider-rate-limit"],
  ];
  for (const [who, status, json, words, code] of cases) {
    it(`${who} (${status})`, async () => {
      server.reply({ status, json });
      const e = await failure(local().generate(ask));
      expect(e.code).toBe(code);
      expect(e.status).toBe(status);
      expect(e.message).toContain(words);
      expect(e.message).not.toContain("no body");
    });
  }

  for (const [who, json] of [
    ["LM Studio", { error: "Model with key 'llama-3.1-8b' not loaded." }],
    ["text-generation-inference", { error: "Model with key 'llama-3.1-8b' not loaded.", error_type: "validation" }],
  ] as const) {
    it(`${who}'s error as a string reads as its words, not a quoted JSON string`, async () => {
      server.reply({ status: 400, json });
      const e = await failure(local().generate(ask));
      expect(e.message).toBe("openai: Model with key 'llama-3.1-8b' not loaded. (HTTP 400).");
    });
  }

  it("a 404 FastAPI says only Not Found of still names the URL to check", async () => {
    server.reply({ status: 404, json: { detail: "Not Found" } });
    const e = await failure(local().generate(ask));
    expect(e.code).toBe("provider-bad-request");
    expect(e.message).toContain("check baseURL");
  });

  it("OpenAI's own shape is read as before", async () => {
    server.reply({
      status: 400,
      json: { error: { message: "Invalid 'messages': empty array.", type: "invalid_request_error", param: "messages", code: "empty_array" } },
    });
    const e = await failure(local().generate(ask));
    expect(e.message).toBe("openai: Invalid 'messages': empty array. (HTTP 400).");
  });
});

describe("an error with no HTTP status of its own that names one as its code", () => {
  it("openai stream: vLLM's error chunk with code 400 is provider-bad-request, not retried", async () => {
    const error = { error: { object: "error", message: "The decoder prompt cannot be empty", type: "BadRequestError", param: null, code: 400 } };
    server.reply({ sse: `${chunkEvent({ role: "assistant", content: "" }, null)}data: ${JSON.stringify(error)}\n\n` });
    const e = await failure(local(2).generate(ask, { onText: () => {} }));
    expect(e.code).toBe("provider-bad-request");
    expect(e.message).toContain("decoder prompt cannot be empty");
    expect(server.requests).toHaveLength(1);
  });

  it("openai 200 body: OpenRouter's { error: { code: 401 } } is provider-auth, not retried", async () => {
    server.reply({ json: { error: { message: "No auth credentials found", code: 401 } } });
    const e = await failure(local(2).generate(ask));
    expect(e.code).toBe("provider-auth");
    expect(server.requests).toHaveLength(1);
  });

  it("a code that is a 5xx is still provider-server, retried", async () => {
    server.reply(
      { json: { error: { message: "Upstream provider returned 502", code: 502 } } },
      { json: { error: { message: "Upstream provider returned 502", code: 502 } } },
    );
    const e = await failure(local(1).generate(ask));
    expect(e.code).toBe("provider-server");
    expect(server.requests).toHaveLength(2);
  });

  it("anthropic stream: an error event's type still decides (overloaded, retried)", async () => {
    const events =
      'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-haiku-4-5","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":9,"output_tokens":1}}}\n\n' +
      'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n';
    server.reply({ sse: events }, { sse: events });
    const e = await failure(
      anthropic({ model: "claude-haiku-4-5", apiKey: "k", baseURL: server.url, maxRetries: 1 }).generate(ask, { onText: () => {} }),
    );
    expect(e.code).toBe("provider-overloaded");
    expect(server.requests).toHaveLength(2);
  });
});
