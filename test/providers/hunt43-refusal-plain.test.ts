/**
 * Claude's streaming classifiers stop a reply mid-text with stop_reason
 * "refusal" ("the response may contain partial content", platform.claude.com,
 * Handle streaming refusals). Hunt 13 made an unclosed `<result>` block of
 * such a reply unreadable; a reply in plain words (models often answer a
 * string output without the block) was still read whole, because
 * `readOutput` read every plain `content_filter` reply as the model's own
 * words, for OpenAI's `refusal` field, which is whole. Now a model's own
 * refusal finishes by `refusal` and a filter's cut by `content_filter`,
 * which is never read as a plain answer: it is asked again once, then
 * refused `output-invalid`. Since hunt 61 a model's own refusal is no answer
 * either.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { OutputError, ai } from "../../src/index.js";
import { anthropic } from "../../src/providers/anthropic.js";
import { openai } from "../../src/providers/openai.js";
import { claudeTextStream } from "./anthropic-sse.js";
import { type MockServer, eachTestServer } from "./server.js";

let server: MockServer;
eachTestServer((s) => (server = s));
const claude = () => anthropic({ model: "claude-sonnet-4-20250514", apiKey: "test-key", baseURL: server.url, maxRetries: 0 });

const textStream = (texts: string[], stop: Record<string, unknown>): string =>
  claudeTextStream(texts, { id: "msg_refused", model: "claude-sonnet-4-20250514", stop });

describe("a classifier's refusal cutting a plain answer", () => {
  it("anthropic, streamed, no <result> block: the partial words are not taken as the whole answer", async () => {
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
      (e: unknown) => e,
    );
    expect(got).toBeInstanceOf(OutputError);
    expect((got as OutputError).code).toBe("output-invalid");
    expect((got as OutputError).message).toMatch(/stopped by a refusal or a content filter before its end/);
    expect(server.requests).toHaveLength(2);
  });
});

describe("openai: a filter's cut and a model's own refusal", () => {
  const gpt = () => openai({ model: "gpt-4o", apiKey: "test-key", baseURL: `${server.url}/v1`, maxRetries: 0 });
  const completion = (message: Record<string, unknown>, finish_reason: string) => ({
    id: "chatcmpl-filtered",
    object: "chat.completion",
    created: 1764400000,
    model: "gpt-4o-2024-08-06",
    choices: [{ index: 0, message: { role: "assistant", refusal: null, ...message }, logprobs: null, finish_reason }],
    usage: { prompt_tokens: 30, completion_tokens: 11, total_tokens: 41 },
  });
  const answer = ai("answer", { description: "Answer the question.", input: { question: z.string() } });

  it("a plain answer a content filter stopped (finish_reason content_filter) is not the answer", async () => {
    const cut = completion({ content: "First, run the scanner against " }, "content_filter");
    server.reply({ json: cut }, { json: cut });
    const e = await answer("How do I get into that server?", { lm: gpt() }).then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(OutputError);
    expect((e as OutputError).reply).toBe("First, run the scanner against ");
  });

  it("the model's own refusal (the refusal field) answering a string output is no answer either (hunt 61)", async () => {
    const REFUSAL = "I'm sorry, I can't help with that request.";
    const refused = completion({ content: null, refusal: REFUSAL }, "stop");
    server.reply({ json: refused }, { json: refused });
    const e = await answer("How do I get into that server?", { lm: gpt() }).then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(OutputError);
    expect((e as OutputError).reply).toBe(REFUSAL);
  });
});
