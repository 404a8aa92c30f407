/**
 * A Claude reply that thinks (extended thinking turned on by a gateway or
 * proxy in front of the API, or an Anthropic-compatible server that thinks
 * by default: MiniMax, DeepSeek, Kimi) gives `thinking` (and
 * `redacted_thinking`) blocks before its `tool_use`. The API wants them
 * back, as they came, in the assistant message that holds the calls; without
 * them it refuses the next request (400 "Expected `thinking` or
 * `redacted_thinking`, but found `tool_use`…"). They were dropped, so every
 * turn that called a tool failed on its second request.
 *
 * Decided (hunt 57): the thinking blocks a reply gave with its calls are kept, as they came, on its first call's
 * `extraContent` as `{ anthropic: { thinking } }` (as Gemini's thought signature is kept, and journaled with the
 * reply), sent back first in that assistant message by anthropic-wire, and left out of `extra_content` by
 * openai-wire.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, tool } from "../../src/index.js";
import { anthropic } from "../../src/providers/anthropic.js";
import { anthropicSse, messageStart } from "./fixtures/hunt51-wire.js";
import { thinkingMessage, withThinkingChecked } from "./fixtures/thinking.js";
import { type MockServer, type Reply, eachTestServer } from "./server.js";

let server: MockServer;
eachTestServer((s) => (server = s));

const THINKING = {
  type: "thinking",
  thinking: "The user wants A-1042's status: look it up.",
  signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds",
};
const REDACTED = { type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP" };
const CALL = { type: "tool_use", id: "toolu_01A09q90qw90lq917835lq9", name: "lookup_order", input: { order_id: "A-1042" } };

const message = (content: unknown[], stop_reason: string) => thinkingMessage("msg_01", content, stop_reason);
const checked = (ok: Reply): Reply => withThinkingChecked(ok, [THINKING, REDACTED]);

const desk = () => {
  const lookupOrder = tool("lookup_order", { description: "The order's status.", input: { order_id: z.string() }, effects: "reads" }, () => ({
    status: "stuck at the carrier",
  }));
  return ai("answer", { description: "Answer the customer.", input: { question: z.string() }, tools: [lookupOrder] });
};
const claude = () => anthropic({ model: "claude-sonnet-4-5", apiKey: "k", baseURL: server.url, maxRetries: 0 });
const answered = message([{ type: "text", text: "<result>\nIt is stuck at the carrier.\n</result>" }], "end_turn");

describe("thinking blocks given with tool calls go back with them", () => {
  it("whole", async () => {
    server.reply({ json: message([THINKING, REDACTED, { type: "text", text: "Let me check." }, CALL], "tool_use") }, checked({ json: answered }));
    expect(await desk()("Where is A-1042?", { lm: claude() })).toBe("It is stuck at the carrier.");
  });

  it("streamed", async () => {
    const sse = anthropicSse([
      messageStart(),
      { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "", signature: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "The user wants A-1042's status: " } },
      { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "look it up." } },
      { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: THINKING.signature } },
      { type: "content_block_stop", index: 0 },
      { type: "content_block_start", index: 1, content_block: REDACTED },
      { type: "content_block_stop", index: 1 },
      { type: "content_block_start", index: 2, content_block: { type: "tool_use", id: CALL.id, name: CALL.name, input: {} } },
      { type: "content_block_delta", index: 2, delta: { type: "input_json_delta", partial_json: '{"order_id": "A-1042"}' } },
      { type: "content_block_stop", index: 2 },
      { type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 30 } },
      { type: "message_stop" },
    ]);
    server.reply({ sse }, checked({ json: answered }));
    const turn = desk().stream("Where is A-1042?", { lm: claude() });
    const texts: string[] = [];
    for await (const e of turn) if (e.type === "text") texts.push(e.delta);
    expect(await turn).toBe("It is stuck at the carrier.");
    expect(texts.join("")).not.toContain("look it up");
    expect(texts.join("")).toContain("stuck at the carrier");
  });
});
