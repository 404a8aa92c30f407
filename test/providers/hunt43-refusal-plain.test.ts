/**
 * Claude's streaming classifiers stop a reply mid-text with stop_reason
 * "refusal" ("the response may contain partial content", platform.claude.com,
 * Handle streaming refusals). Hunt 13 made an unclosed `<result>` block of
 * such a reply unreadable; a reply in plain words (models often answer a
 * string output without the block) is still read whole, because
 * `readOutput` reads every plain `content_filter` reply as the model's own
 * words (test/lm/read-output-cut-off.test.ts asserts so, for OpenAI's
 * `refusal` field, which is whole). The two cannot be told apart through the
 * LM contract: `FinishReason` has one `content_filter` for a filter's cut
 * and a model's whole refusal.
 *
 * Left as it.fails: the fix needs a way to tell them apart (a new
 * FinishReason value or a flag on LMResponse, src/lm/types.ts, read by
 * src/lm/prompt.ts `readOutput` and src/engine/ai-call.ts), a change of
 * the public LM contract to be decided, not made in a hunt.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai } from "../../src/index.js";
import { anthropic } from "../../src/providers/anthropic.js";
import { type MockServer, eachTestServer } from "./server.js";

let server: MockServer;
eachTestServer((s) => (server = s));
const claude = () => anthropic({ model: "claude-sonnet-4-20250514", apiKey: "test-key", baseURL: server.url, maxRetries: 0 });

const textStream = (texts: string[], delta: Record<string, unknown>): string =>
  [
    {
      type: "message_start",
      message: {
        id: "msg_refused",
        type: "message",
        role: "assistant",
        model: "claude-sonnet-4-20250514",
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 40, output_tokens: 1 },
      },
    },
    { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
    ...texts.map((text) => ({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text } })),
    { type: "content_block_stop", index: 0 },
    { type: "message_delta", delta, usage: { output_tokens: 14 } },
    { type: "message_stop" },
  ]
    .map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`)
    .join("");

describe("a classifier's refusal cutting a plain answer", () => {
  it.fails("anthropic, streamed, no <result> block: the partial words are not taken as the whole answer", async () => {
    const cut = textStream(["First, run the scanner against ", "the host and"], {
      stop_reason: "refusal",
      stop_sequence: null,
      stop_details: { type: "refusal", category: "cyber", explanation: "This request was declined." },
    });
    server.reply({ sse: cut }, { sse: cut });
    const answer = ai("answer", { description: "Answer the question.", input: { question: z.string() } });
    const turn = answer.stream("How do I get into that server?", { lm: claude() });
    for await (const _ of turn);
    const got = await Promise.resolve(turn).then(
      (value) => value,
      () => "refused",
    );
    expect(got).not.toBe("First, run the scanner against the host and");
  });
});
