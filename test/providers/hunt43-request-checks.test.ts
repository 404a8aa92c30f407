/**
 * A request `lm.generate` is given directly (the public LM contract, as the
 * README shows it) that no provider could answer as asked is refused before
 * any model call. Before: a temperature of NaN or Infinity went out as JSON's
 * null (the provider's default, silently not what was asked), a maxTokens of
 * 0 or 1.5 paid a round trip for the provider's 400, and a request without
 * messages threw a bare TypeError.
 */
import { describe, expect, it } from "vitest";
import { isFunctaiError } from "../../src/errors.js";
import type { LanguageModel, LMRequest } from "../../src/lm/types.js";
import { anthropic } from "../../src/providers/anthropic.js";
import { openai } from "../../src/providers/openai.js";
import { type MockServer, eachTestServer, fixtureJson } from "./server.js";

let server: MockServer;
eachTestServer((s) => (server = s));
const makers: Record<string, () => LanguageModel> = {
  openai: () => openai({ model: "gpt-4.1-mini", apiKey: "test-key", baseURL: `${server.url}/v1`, maxRetries: 0 }),
  anthropic: () => anthropic({ model: "claude-haiku-4-5", apiKey: "test-key", baseURL: server.url, maxRetries: 0 }),
};
const hi = [{ role: "user" as const, content: "Hi" }];
const spec = (name: string) => ({ name, description: "Look an order up.", parameters: { type: "object", properties: { id: { type: "string" } } } });

async function codeOf(p: () => Promise<unknown>): Promise<string> {
  try {
    await p();
  } catch (e) {
    return isFunctaiError(e) ? e.code : `not a FunctaiError: ${String(e)}`;
  }
  return "no error";
}

const wrong: [string, unknown, string][] = [
  ["temperature: NaN", { messages: hi, tools: [], temperature: Number.NaN }, "settings-invalid"],
  ["temperature: Infinity", { messages: hi, tools: [], temperature: Number.POSITIVE_INFINITY }, "settings-invalid"],
  ["temperature: -1", { messages: hi, tools: [], temperature: -1 }, "settings-invalid"],
  ["maxTokens: 0", { messages: hi, tools: [], maxTokens: 0 }, "settings-invalid"],
  ["maxTokens: 1.5", { messages: hi, tools: [], maxTokens: 1.5 }, "settings-invalid"],
  ["no request", undefined, "input-invalid"],
  ["no messages", { tools: [] }, "input-invalid"],
  ["messages: []", { messages: [], tools: [] }, "input-invalid"],
  ["tools left out", { messages: hi }, "input-invalid"],
  // tool names both APIs refuse (OpenAI: "Invalid 'tools[0].function.name': string does not match pattern"; both take 1–64 of [a-zA-Z0-9_-])
  ["a tool named lookup.order", { messages: hi, tools: [spec("lookup.order")] }, "settings-invalid"],
  ["a tool named ''", { messages: hi, tools: [spec("")] }, "settings-invalid"],
  ["a tool name of 65 characters", { messages: hi, tools: [spec("a".repeat(65))] }, "settings-invalid"],
  ["two tools of one name", { messages: hi, tools: [spec("lookup"), spec("lookup")] }, "settings-invalid"],
  ["a tool whose parameters are not an object", { messages: hi, tools: [{ ...spec("lookup"), parameters: "none" }] }, "settings-invalid"],
];

describe("a request refused before any model call", () => {
  for (const [provider, make] of Object.entries(makers)) {
    it.each(wrong)(`${provider}: %s → %s`, async (_name, request, code) => {
      expect(await codeOf(() => make().generate(request as LMRequest))).toBe(code);
      expect(server.requests).toHaveLength(0);
    });
  }

  it("a request as the engine makes one is sent as before", async () => {
    server.reply({ json: fixtureJson("hunt4-wire/openai-chat-04-response-final.json") });
    const res = await makers.openai!().generate({
      messages: hi,
      tools: [spec("lookup_order-2"), spec("a".repeat(64))],
      temperature: 0,
      maxTokens: 64,
    });
    expect(res.finishReason).toBe("stop");
    expect(server.requests[0]!.body).toMatchObject({ temperature: 0, max_completion_tokens: 64 });
  });
});
