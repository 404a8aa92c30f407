/**
 * The tests of tools offered as text share this: a local OpenAI-compatible
 * server (started before each test, closed after), a desk whose
 * `lookup_order` tool records what it was given, and the model on that
 * server with native tools off.
 */
import { afterEach, beforeEach } from "vitest";
import { z } from "zod";
import { ai, tool } from "../../src/index.js";
import { replyText } from "../../src/lm/reply-text.js";
import { fromTextResponse } from "../../src/lm/text-tools.js";
import type { LMResponse } from "../../src/lm/types.js";
import { openai } from "../../src/providers/openai.js";
import { mockServer, type MockServer } from "../providers/server.js";

export function textToolsDesk() {
  const local: { server: MockServer } = { server: undefined as never };
  beforeEach(async () => {
    local.server = await mockServer();
  });
  afterEach(async () => {
    await local.server.close();
  });
  const seen: unknown[] = [];
  const lookup = tool(
    "lookup_order",
    { description: "The order's item and shipping status.", input: { order_id: z.string() }, effects: "reads" },
    (input) => {
      seen.push(input);
      return { status: "shipped" };
    },
  );
  const answer = ai("answer", { description: "Answer the customer's question.", input: { question: z.string() }, tools: [lookup] });
  const lm = () => openai({ model: "llama3.1:8b", apiKey: "none", baseURL: `${local.server.url}/v1`, nativeTools: false });
  return { local, seen, answer, lm };
}

/** A text-tools reply read whole, as the model layer reads it. */
export const readText = (text: string, finishReason: LMResponse["finishReason"] = "stop") =>
  fromTextResponse({ text, toolCalls: [], finishReason, usage: { inputTokens: 1, outputTokens: 1 } });

/** What a text-tools reply streamed in chunks of `size` shows its reader. */
export const streamedText = (text: string, size: number): string => {
  let shown = "";
  const reply = replyText((delta) => (shown += delta), { textTools: true });
  for (let i = 0; i < text.length; i += size) reply.push(text.slice(i, i + size));
  reply.end();
  return shown;
};

/** What a text-tools reply streamed in chunks cut at `cuts` (any points, in any order) shows its reader. */
export const chunkedText = (text: string, cuts: readonly number[]): string => {
  let shown = "";
  const reply = replyText((delta) => (shown += delta), { textTools: true });
  let from = 0;
  for (const cut of [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b)) {
    reply.push(text.slice(from, cut));
    from = cut;
  }
  reply.push(text.slice(from));
  reply.end();
  return shown;
};

/**
 * A whole chat completion of the local model (`model`) whose message says `content`, ended by `finish_reason`, as a
 * compatible server sends it.
 */
export const localCompletion = (content: string, finish_reason = "stop", model = "llama3.1:8b") => ({
  id: "chatcmpl-local-text",
  object: "chat.completion",
  created: 1764400030,
  model,
  choices: [{ index: 0, message: { role: "assistant", content }, finish_reason }],
  usage: { prompt_tokens: 210, completion_tokens: 24, total_tokens: 234 },
});
