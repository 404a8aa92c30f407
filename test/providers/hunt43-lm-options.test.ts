/**
 * `openai({ … })` and `anthropic({ … })` options a provider or the retry loop
 * cannot use are refused as the LM is made (`settings-invalid`, as the same
 * values are in `configure`), before any model call: before, a `maxRetries`
 * of NaN or Infinity retried a failing server without end (`n >= NaN` is
 * never true), and a `maxTokens` of -3 or 1.5, or a model of "", were sent
 * and paid a round trip for the provider's 400.
 */
import { describe, expect, it } from "vitest";
import { isFunctaiError } from "../../src/errors.js";
import type { LMRequest } from "../../src/lm/types.js";
import { anthropic } from "../../src/providers/anthropic.js";
import { openai } from "../../src/providers/openai.js";
import { type MockServer, eachTestServer } from "./server.js";

let server: MockServer;
eachTestServer((s) => (server = s));
const ask: LMRequest = { messages: [{ role: "user", content: "Hi" }], tools: [] };

const makers = {
  openai: (o: object) => openai({ model: "gpt-4.1-mini", apiKey: "test-key", baseURL: `${server.url}/v1`, ...o } as never),
  anthropic: (o: object) => anthropic({ model: "claude-haiku-4-5", apiKey: "test-key", baseURL: server.url, ...o } as never),
};

/** The code making the LM and asking it once fails with, or what happened instead. */
async function codeOf(make: () => { generate(r: LMRequest): Promise<unknown> }): Promise<string> {
  try {
    await make().generate(ask);
  } catch (e) {
    return isFunctaiError(e) ? e.code : `not a FunctaiError: ${String(e)}`;
  }
  return "no error";
}

const wrong: [string, object][] = [
  ["maxRetries: NaN", { maxRetries: Number.NaN }],
  ["maxRetries: Infinity", { maxRetries: Number.POSITIVE_INFINITY }],
  ["maxRetries: -1", { maxRetries: -1 }],
  ["maxRetries: 1.5", { maxRetries: 1.5 }],
  ["maxRetries: '2'", { maxRetries: "2" }],
  ["maxTokens: 0", { maxTokens: 0 }],
  ["maxTokens: -3", { maxTokens: -3 }],
  ["maxTokens: 1.5", { maxTokens: 1.5 }],
  ["maxTokens: NaN", { maxTokens: Number.NaN }],
  ["model: ''", { model: "" }],
  ["model: 42", { model: 42 }],
  ["nativeTools: 'no'", { nativeTools: "no" }],
];

describe("LM options refused as the LM is made (settings-invalid), no request sent", () => {
  for (const [provider, make] of Object.entries(makers)) {
    it.each(wrong)(`${provider}: %s`, async (_name, options) => {
      // a server that fails every time: a retry loop that does not end would keep asking it
      for (let i = 0; i < 5; i++)
        server.reply({ status: 500, headers: { "retry-after-ms": "1" }, json: { error: { type: "server_error", message: "boom" } } });
      expect(await codeOf(() => make(options))).toBe("settings-invalid");
      expect(server.requests).toHaveLength(0);
    });
  }

  it("options that are not an object: settings-invalid, not a TypeError", async () => {
    expect(await codeOf(() => openai(undefined as never))).toBe("settings-invalid");
    expect(await codeOf(() => anthropic("claude-haiku-4-5" as never))).toBe("settings-invalid");
  });

  it("the options every example uses are taken as before", async () => {
    server.reply({ status: 500, json: { error: { type: "server_error", message: "boom" } } });
    // maxRetries 0, a maxTokens, undefined where not given (examples pass baseURL: env.OPENAI_BASE_URL)
    const lm = makers.openai({ maxRetries: 0, maxTokens: 64, nativeTools: false, baseURL: `${server.url}/v1`, client: undefined });
    expect(await codeOf(() => lm)).toBe("provider-server");
    expect(server.requests).toHaveLength(1);
  });
});
