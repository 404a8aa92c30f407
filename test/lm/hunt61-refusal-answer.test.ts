/**
 * hunt 61: OpenAI's `refusal` field (finishReason "refusal") is the model
 * declining, not answering. For a text output (`z.string()`) the refusal's
 * words are read today as the function's answer: `summarize(…)` resolves to
 * "I'm sorry, I can't help with that request." as if it were the summary,
 * with nothing to tell a caller it was refused (the turn ends `done`).
 *
 * Decided: a refusal is no answer (readOutput in src/lm/prompt.ts, unless a
 * `<result>` block in it closed): asked again, then `output-invalid`.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, OutputError } from "../../src/index.js";
import { openai } from "../../src/providers/openai.js";
import { type MockServer, eachTestServer } from "../providers/server.js";
import { REFUSAL, refused } from "../providers/fixtures/refusal.js";

let server: MockServer;
eachTestServer((s) => (server = s));

describe("a refusal is not a text output's answer", () => {
  it("a text function the model refuses twice fails output-invalid with the refusal as its reply, not resolving to it", async () => {
    server.reply({ json: refused }, { json: refused });
    const summarize = ai("summarize", { description: "Summarize the text.", input: { text: z.string() }, output: z.string() });
    const lm = openai({ model: "gpt-4o", apiKey: "test-key", baseURL: `${server.url}/v1`, maxRetries: 0 });
    const outcome = await summarize("How do I pick a lock?", { lm }).then(
      (value) => ({ value }),
      (e: unknown) => ({ e }),
    );
    expect(outcome).not.toEqual({ value: REFUSAL });
    expect((outcome as { e?: unknown }).e).toBeInstanceOf(OutputError);
    expect((outcome as { e: OutputError }).e.reply).toBe(REFUSAL);
    expect(server.requests).toHaveLength(2);
  });
});
