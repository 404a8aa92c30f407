import { APIConnectionError as AnthropicConnectionError, APIError as AnthropicAPIError, APIUserAbortError } from "@anthropic-ai/sdk";
import { APIConnectionTimeoutError, APIError as OpenAIAPIError } from "openai";
import { describe, expect, it } from "vitest";
import { FunctaiError, ProviderError } from "../../src/errors.js";
import { toProviderError } from "../../src/providers/errors.js";

const openaiError = (status: number, message: string, headers: Record<string, string> = {}) =>
  OpenAIAPIError.generate(status, { error: { message, type: "x" } }, undefined, new Headers(headers));
const anthropicError = (status: number, type: string, message: string) =>
  AnthropicAPIError.generate(status, { type: "error", error: { type, message } }, undefined, new Headers());

const mapped = (e: unknown, provider = "openai"): ProviderError => {
  const out = toProviderError(e, { provider });
  expect(out).toBeInstanceOf(ProviderError);
  return out as ProviderError;
};

describe("toProviderError", () => {
  it("maps HTTP statuses of both SDKs to codes", () => {
    const cases: [number, string][] = [
      [400, "provider-bad-request"], [404, "provider-bad-request"], [422, "provider-bad-request"],
      [401, "provider-auth"], [403, "provider-auth"], [429, "provider-rate-limit"],
      [500, "provider-server"], [502, "provider-server"], [503, "provider-server"], [529, "provider-overloaded"],
    ];
    for (const [status, code] of cases) {
      expect(mapped(openaiError(status, "m")).code).toBe(code);
      expect(mapped(anthropicError(status, "api_error", "m"), "anthropic").code).toBe(code);
      expect(mapped(openaiError(status, "m")).status).toBe(status);
    }
  });

  it("an Anthropic overloaded_error is provider-overloaded whatever the status", () => {
    expect(mapped(anthropicError(500, "overloaded_error", "Overloaded"), "anthropic").code).toBe("provider-overloaded");
  });

  it("uses the provider's own message, and the retry-after it sent", () => {
    const e = mapped(openaiError(429, "Slow down, please.", { "retry-after": "2" }));
    expect(e.message).toBe("openai: Slow down, please. (HTTP 429).");
    expect(e.retryAfterMs).toBe(2000);
    const a = mapped(anthropicError(400, "invalid_request_error", "max_tokens: required"), "anthropic");
    expect(a.message).toBe("anthropic: max_tokens: required (HTTP 400).");
  });

  it("connection errors and timeouts are provider-network", () => {
    expect(mapped(new AnthropicConnectionError({ message: "Connection error." }), "anthropic").code).toBe("provider-network");
    expect(mapped(new APIConnectionTimeoutError()).code).toBe("provider-network");
  });

  it("never puts the API key in the message", () => {
    const e = toProviderError(openaiError(401, "Incorrect API key provided: sk-secret-123."), { provider: "openai", apiKey: "sk-secret-123" });
    expect((e as Error).message).not.toContain("sk-secret-123");
    expect((e as Error).message).toContain("[redacted]");
  });

  it("passes aborts and its own errors through unchanged", () => {
    const abort = new APIUserAbortError();
    expect(toProviderError(abort, { provider: "anthropic" })).toBe(abort);
    const controller = new AbortController();
    controller.abort();
    expect(toProviderError(new Error("whatever"), { provider: "openai", signal: controller.signal })).toBe(controller.signal.reason);
    const own = new FunctaiError("lm-unknown", "x");
    expect(toProviderError(own, { provider: "openai" })).toBe(own);
    const bug = new TypeError("not a provider failure");
    expect(toProviderError(bug, { provider: "openai" })).toBe(bug);
  });
});
