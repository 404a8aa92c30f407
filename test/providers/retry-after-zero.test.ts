/**
 * A server that says `retry-after: 0` (or `retry-after-ms: 0`, or a date
 * already past) has not asked for any wait: were it taken at its word, every
 * retry would be spent within milliseconds against a server still
 * overloaded. Such a value counts as no value: the normal backoff applies,
 * and `retryAfterMs` stays undefined.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ProviderError } from "../../src/errors.js";
import type { LMRequest } from "../../src/lm/types.js";
import { openai } from "../../src/providers/openai.js";
import { parseRetryAfter, withRetry } from "../../src/providers/retry.js";
import { failure, mockServer, type MockServer } from "./server.js";

describe("a zero retry-after is no ask for a wait", () => {
  it("parseRetryAfter: 0, 0 ms and a past date say nothing; retry-after-ms 0 gives way to retry-after", () => {
    const now = Date.parse("2026-11-29T12:00:00Z");
    expect(parseRetryAfter(new Headers({ "retry-after": "0" }), now)).toBeUndefined();
    expect(parseRetryAfter(new Headers({ "retry-after-ms": "0" }), now)).toBeUndefined();
    expect(parseRetryAfter(new Headers({ "retry-after": "Sun, 29 Nov 2026 11:59:00 GMT" }), now)).toBeUndefined();
    expect(parseRetryAfter(new Headers({ "retry-after-ms": "0", "retry-after": "2" }), now)).toBe(2000);
    expect(parseRetryAfter(new Headers({ "retry-after-ms": "-5", "retry-after": "1" }), now)).toBe(1000);
  });

  it("withRetry: an error whose retryAfterMs is 0 waits the normal backoff", async () => {
    const waits: number[] = [];
    let calls = 0;
    const result = await withRetry(
      async () => {
        if (calls++ < 2) throw new ProviderError("provider-overloaded", "busy", { provider: "test", retryAfterMs: 0 });
        return "ok";
      },
      { maxRetries: 2, sleep: async (ms) => void waits.push(ms), random: () => 1 },
    );
    expect(result).toBe("ok");
    expect(waits).toEqual([500, 1000]);
  });

  describe("end to end", () => {
    let server: MockServer;
    beforeEach(async () => {
      server = await mockServer();
    });
    afterEach(async () => {
      await server.close();
    });
    const ask: LMRequest = { messages: [{ role: "user", content: "Hi" }], tools: [] };

    it("openai: a 429 with retry-after: 0 is not retried at once", async () => {
      const busy = { json: { error: { message: "Rate limit reached", type: "requests" } }, status: 429, headers: { "retry-after": "0" } };
      server.reply(busy, busy);
      const lm = openai({ model: "gpt-4.1-mini", apiKey: "test-key", baseURL: `${server.url}/v1`, maxRetries: 1 });
      const started = Date.now();
      const e = await failure(lm.generate(ask));
      expect(e.code).toBe("provider-rate-limit");
      expect(e.retryAfterMs).toBeUndefined();
      expect(server.requests).toHaveLength(2);
      // The first backoff is at least 250 ms (500, jittered within its upper half).
      expect(Date.now() - started).toBeGreaterThanOrEqual(240);
    });
  });
});
