/**
 * A 200 response whose body is not a reply: an error (proxies and compatible
 * servers send them so: OpenRouter's `{ error }`, an Anthropic-shaped
 * `{ type: "error", error }`) or something else (a captive portal's page).
 * `generate` rejects with a ProviderError that says what the body said,
 * never a bare TypeError, and an overload or server error is retried.
 */
import { describe, expect, it } from "vitest";
import type { LMRequest } from "../../src/lm/types.js";
import { anthropic } from "../../src/providers/anthropic.js";
import { openai } from "../../src/providers/openai.js";
import { failure, fixtureJson, type MockServer, eachTestServer } from "./server.js";

const ask: LMRequest = { messages: [{ role: "user", content: "<question>\nHi\n</question>" }], tools: [] };

let server: MockServer;
eachTestServer((s) => (server = s));
const claude = (maxRetries = 0) => anthropic({ model: "claude-haiku-4-5", apiKey: "test-key", baseURL: server.url, maxRetries });
const gpt = (maxRetries = 0) => openai({ model: "gpt-4.1-mini", apiKey: "test-key", baseURL: `${server.url}/v1`, maxRetries });

describe("a 200 response whose body is not a reply", () => {
  it("anthropic: an error body is that error (overloaded: retried, then the reply)", async () => {
    const overloaded = fixtureJson("anthropic/error-529.json");
    server.reply({ json: overloaded });
    const e = await failure(claude().generate(ask));
    expect(e.code).toBe("provider-overloaded");
    expect(e.message).toContain("Overloaded");

    server.reply({ json: overloaded }, { json: fixtureJson("anthropic/text.json") });
    const res = await claude(1).generate(ask, {});
    expect(res.finishReason).toBe("stop");
    expect(server.requests).toHaveLength(3);
  });

  it("anthropic: a body that is not a message → provider-response naming what came", async () => {
    server.reply({ json: "<html>Sign in to the Wi-Fi</html>" });
    const e = await failure(claude().generate(ask));
    expect(e.code).toBe("provider-response");
    expect(e.message).toContain("Sign in to the Wi-Fi");
  });

  it("openai: an error body (as OpenRouter sends an upstream failure) → that error's words, provider-server", async () => {
    server.reply({ json: { error: { message: "Upstream provider returned 502", code: 502 } } });
    const e = await failure(gpt().generate(ask));
    expect(e.code).toBe("provider-server");
    expect(e.message).toContain("Upstream provider returned 502");
  });

  it("openai: a body with no choices and no error is still provider-response", async () => {
    server.reply({ json: { id: "x", object: "chat.completion", choices: [] } });
    const e = await failure(gpt().generate(ask));
    expect(e.code).toBe("provider-response");
  });
});
