/**
 * `lm.generate` called directly (the public LM contract) with a message that
 * is not one: a message left null, a role neither API has, a text that is no
 * string, a tool result without the call it answers, tool calls that are no
 * list of calls. Before: a raw TypeError out of the wire writers (“Cannot
 * read properties of null”, “m.content.trim is not a function”), or the
 * request sent as it was, the provider's 400 paid a round trip for (a role
 * "bot" went to OpenAI, a tool result answering nothing to Anthropic). Now
 * each is refused before any model call, `input-invalid`, naming the message.
 */
import { describe, expect, it } from "vitest";
import { isFunctaiError } from "../../src/errors.js";
import type { LanguageModel, LMRequest } from "../../src/lm/types.js";
import { anthropic } from "../../src/providers/anthropic.js";
import { openai } from "../../src/providers/openai.js";
import { type MockServer, eachTestServer } from "./server.js";

let server: MockServer;
eachTestServer((s) => (server = s));
const makers: Record<string, (nativeTools?: boolean) => LanguageModel> = {
  openai: (nativeTools = true) => openai({ model: "gpt-4.1-mini", apiKey: "test-key", baseURL: `${server.url}/v1`, maxRetries: 0, nativeTools }),
  anthropic: (nativeTools = true) => anthropic({ model: "claude-haiku-4-5", apiKey: "test-key", baseURL: server.url, maxRetries: 0, nativeTools }),
};

async function refusal(p: () => Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await p();
  } catch (e) {
    return isFunctaiError(e) ? { code: e.code, message: e.message } : { code: `not a FunctaiError: ${String(e)}`, message: "" };
  }
  return { code: "no error", message: "" };
}

const user = { role: "user", content: "Hi" };
const wrong: [string, unknown[]][] = [
  ["a message that is null", [null]],
  ["a message that is a string", ["Hi"]],
  ["a message without content", [{ role: "user" }]],
  ["a message whose content is a number", [{ role: "user", content: 42 }]],
  ["a role neither API has", [{ role: "bot", content: "Hi" }]],
  [
    "a tool result without toolCallId",
    [user, { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "f", input: {} }] }, { role: "tool", name: "f", content: "x" }],
  ],
  ["toolCalls that are not a list", [user, { role: "assistant", content: "x", toolCalls: "f" }]],
  ["a tool call that is null", [user, { role: "assistant", content: "x", toolCalls: [null] }]],
  ["a tool call without an id", [user, { role: "assistant", content: "x", toolCalls: [{ name: "f", input: {} }] }]],
];

describe("a request whose messages are not messages is refused before any model call", () => {
  for (const [provider, make] of Object.entries(makers)) {
    for (const nativeTools of [true, false]) {
      it.each(wrong)(`${provider} (nativeTools: ${nativeTools}): %s`, async (_label, messages) => {
        const got = await refusal(() => make(nativeTools).generate({ messages, tools: [] } as unknown as LMRequest));
        expect(got.code).toBe("input-invalid");
        expect(got.message).toMatch(/message \d/);
        expect(server.requests).toHaveLength(0);
      });
    }
  }
});
