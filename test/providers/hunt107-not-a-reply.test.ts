/**
 * Bodies that are not a reply, as a proxy or a compatible server answers:
 * - OpenAI, not streamed: a 204 (no body) or a 200 whose body is JSON's
 *   `null` (the SDK gives both as null), and a choice whose `message` is
 *   null, threw a bare TypeError ("Cannot read properties of null") out of
 *   `lm.generate`; each is `provider-response` now, its body shown.
 * - Anthropic: a text block or `text_delta` whose `text` is null or left out
 *   was read as the words "null" or "undefined" (the answer a function gave
 *   back), and `onText` was handed null; such a block has no text now.
 */
import { describe, expect, it } from "vitest";
import type { LMRequest, ToolSpec } from "../../src/lm/types.js";
import { anthropic } from "../../src/providers/anthropic.js";
import { openai } from "../../src/providers/openai.js";
import { claudeMessageStart, claudeSse } from "./anthropic-sse.js";
import { type MockServer, eachTestServer, failure } from "./server.js";

const lookup: ToolSpec = {
  name: "lookup",
  description: "Look an order up.",
  parameters: { type: "object", properties: { order_id: { type: "string" } }, required: ["order_id"] },
};
const ask: LMRequest = { messages: [{ role: "user", content: "Where is A-1042?" }], tools: [lookup] };

let server: MockServer;
eachTestServer((s) => (server = s));
const local = () => openai({ model: "llama3.1", apiKey: "none", baseURL: `${server.url}/v1`, maxRetries: 0 });
const claude = () => anthropic({ model: "claude-haiku-4-5", apiKey: "test-key", baseURL: server.url, maxRetries: 0 });

describe("openai, not streamed: a body that is no completion", () => {
  it("a 204 with no body is provider-response", async () => {
    server.reply({ raw: "", status: 204, headers: { "content-type": "application/json" } });
    const e = await failure(local().generate(ask));
    expect(e.code).toBe("provider-response");
    expect(e.message).toContain("not a completion");
  });

  it("a 200 whose body is null is provider-response", async () => {
    server.reply({ raw: "null", headers: { "content-type": "application/json" } });
    expect((await failure(local().generate(ask))).code).toBe("provider-response");
  });

  it("a choice whose message is null is provider-response", async () => {
    server.reply({
      json: {
        id: "chatcmpl-1",
        object: "chat.completion",
        created: 1764400000,
        model: "llama3.1",
        choices: [{ index: 0, message: null, finish_reason: "stop" }],
      },
    });
    expect((await failure(local().generate(ask))).code).toBe("provider-response");
  });
});

describe("anthropic: a text block without text", () => {
  const { message } = claudeMessageStart();

  it("whole: text null or left out is no words, not 'null' or 'undefined'", async () => {
    const content = [{ type: "text", text: null }, { type: "text", text: "It shipped on Monday." }, { type: "text" }];
    server.reply({ json: { ...message, content, stop_reason: "end_turn" } });
    expect((await claude().generate(ask)).text).toBe("It shipped on Monday.");
  });

  it("streamed: a text_delta with text null adds nothing, and onText is given only text", async () => {
    server.reply({
      sse: claudeSse([
        claudeMessageStart(),
        { type: "content_block_start", index: 0, content_block: { type: "text", text: null } },
        { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "It shipped" } },
        { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: null } },
        { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: " on Monday." } },
        { type: "content_block_stop", index: 0 },
        { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 9 } },
        { type: "message_stop" },
      ]),
    });
    const shown: unknown[] = [];
    const reply = await claude().generate(ask, { onText: (d) => shown.push(d) });
    expect(reply.text).toBe("It shipped on Monday.");
    expect(shown).toEqual(["It shipped", " on Monday."]);
  });
});
