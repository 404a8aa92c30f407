/**
 * `retry-after` read as RFC 9110 has it: delay-seconds (digits; a decimal
 * fraction, as some servers send, is taken too) or an HTTP-date. Read
 * through `Number()`, "0x10" was 16 s, "1e3" 1000 s (over the 60 s limit:
 * the call failed at once instead of being retried), "+5" 5 s; and
 * `retry-after-ms` through `parseFloat`, so "12abc" was 12 ms. Such values
 * say nothing: the normal backoff applies and `retryAfterMs` is undefined.
 */
import { describe, expect, it } from "vitest";
import type { LMRequest } from "../../src/lm/types.js";
import { anthropic } from "../../src/providers/anthropic.js";
import { openai } from "../../src/providers/openai.js";
import { type MockServer, eachTestServer, failure } from "./server.js";

let server: MockServer;
eachTestServer((s) => (server = s));
const ask: LMRequest = { messages: [{ role: "user", content: "Hi" }], tools: [] };
const gpt = (maxRetries = 0) => openai({ model: "gpt-4.1-mini", apiKey: "test-key", baseURL: `${server.url}/v1`, maxRetries });
const claude = (maxRetries = 0) => anthropic({ model: "claude-haiku-4-5", apiKey: "test-key", baseURL: server.url, maxRetries });
const limited = (headers: Record<string, string>) => ({ status: 429, headers, json: { error: { message: "Rate limit reached", type: "requests" } } });
const overloaded = (headers: Record<string, string>) => ({
  status: 529,
  headers,
  json: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
});

describe("retry-after that is not delay-seconds or an HTTP-date says nothing", () => {
  for (const value of ["0x10", "1e3", "+5", "5s", "1_0", "2099-01-01"]) {
    it(`openai: retry-after ${JSON.stringify(value)} is no wait`, async () => {
      server.reply(limited({ "retry-after": value }));
      const e = await failure(gpt().generate(ask));
      expect(e.code).toBe("provider-rate-limit");
      expect(e.retryAfterMs).toBeUndefined();
    });
  }

  for (const value of ["0x10", "12abc", "1e2"]) {
    it(`anthropic: retry-after-ms ${JSON.stringify(value)} is no wait (the retry-after beside it is read)`, async () => {
      server.reply(overloaded({ "retry-after-ms": value, "retry-after": "3" }));
      const e = await failure(claude().generate(ask));
      expect(e.code).toBe("provider-overloaded");
      expect(e.retryAfterMs).toBe(3000);
    });
  }

  it("openai: a 429 with retry-after 1e3 is retried with the backoff, not failed at once as a 1000 s wait", async () => {
    server.reply(limited({ "retry-after": "1e3" }), {
      json: {
        id: "chatcmpl-1",
        object: "chat.completion",
        created: 1764400000,
        model: "gpt-4.1-mini",
        choices: [{ index: 0, message: { role: "assistant", content: "Hello.", refusal: null }, finish_reason: "stop" }],
        usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
      },
    });
    const reply = await gpt(1).generate(ask);
    expect(reply.text).toBe("Hello.");
    expect(server.requests).toHaveLength(2);
  });
});

describe("valid values are still read", () => {
  const cases: [Record<string, string>, number][] = [
    [{ "retry-after": "7" }, 7000],
    [{ "retry-after": "007" }, 7000],
    [{ "retry-after": "1.5" }, 1500],
    [{ "retry-after-ms": "250" }, 250],
    [{ "retry-after-ms": "12.5" }, 12.5],
  ];
  for (const [headers, ms] of cases) {
    it(`${JSON.stringify(headers)} → ${ms} ms`, async () => {
      server.reply(limited(headers));
      const e = await failure(gpt().generate(ask));
      expect(e.retryAfterMs).toBe(ms);
    });
  }

  it("the three HTTP-date forms, in the future, are read as GMT", async () => {
    const at = new Date(Date.now() + 3_600_000);
    at.setUTCMilliseconds(0);
    const day = at.toUTCString().slice(0, 3);
    const month = at.toUTCString().slice(8, 11);
    const dd = String(at.getUTCDate()).padStart(2, "0");
    const hms = at.toISOString().slice(11, 19);
    const year = at.getUTCFullYear();
    const forms = [
      at.toUTCString(), // IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT
      `${["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"][at.getUTCDay()]}, ${dd}-${month}-${String(year).slice(2)} ${hms} GMT`,
      `${day} ${month} ${String(at.getUTCDate()).padStart(2, " ")} ${hms} ${year}`, // asctime: GMT, though it says no zone
    ];
    for (const form of forms) {
      server.reply(limited({ "retry-after": form }));
      const e = await failure(gpt().generate(ask));
      // (the date is to the second; read a moment after it was made)
      expect(e.retryAfterMs, form).toBeGreaterThan(3_590_000);
      expect(e.retryAfterMs, form).toBeLessThanOrEqual(3_600_000);
    }
  });
});
