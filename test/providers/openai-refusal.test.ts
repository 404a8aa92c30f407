/**
 * OpenAI's refusals: a message whose `content` is null and whose `refusal`
 * says why (whole), or `refusal` deltas (streamed). The refusal is the
 * reply's text, and the reply says it was refused (`refusal`: whole, the
 * model's own words, not a filter's cut, which is `content_filter`).
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { OutputError } from "../../src/errors.js";
import { ai } from "../../src/index.js";
import type { LMRequest } from "../../src/lm/types.js";
import { openai } from "../../src/providers/openai.js";
import { type MockServer, eachTestServer } from "./server.js";
import { REFUSAL, refused } from "./fixtures/refusal.js";

const ask: LMRequest = { messages: [{ role: "user", content: "<question>\nHow do I pick a lock?\n</question>" }], tools: [] };

const chunk = (delta: unknown, finish_reason: string | null = null, usage: unknown = null) =>
  `data: ${JSON.stringify({ id: "chatcmpl-refusal", object: "chat.completion.chunk", created: 1, model: "gpt-4o-2024-08-06", choices: finish_reason === "none" ? [] : [{ index: 0, delta, logprobs: null, finish_reason }], usage })}\n\n`;
const refusedStream =
  chunk({ role: "assistant", content: null, refusal: "" }) +
  chunk({ refusal: "I'm sorry, I can't " }) +
  chunk({ refusal: "help with that request." }) +
  chunk({}, "stop") +
  chunk({}, "none", { prompt_tokens: 30, completion_tokens: 11, total_tokens: 41 }) +
  "data: [DONE]\n\n";

let server: MockServer;
eachTestServer((s) => (server = s));
const lm = () => openai({ model: "gpt-4o", apiKey: "test-key", baseURL: `${server.url}/v1`, maxRetries: 0 });

describe("openai: a refusal", () => {
  it("whole: its text is the refusal and it finished by refusal", async () => {
    server.reply({ json: refused });
    const res = await lm().generate(ask);
    expect(res.text).toBe(REFUSAL);
    expect(res.finishReason).toBe("refusal");
  });

  it("streamed: the refusal's deltas are the text, shown as they come", async () => {
    server.reply({ sse: refusedStream });
    const deltas: string[] = [];
    const res = await lm().generate(ask, { onText: (d) => deltas.push(d) });
    expect(deltas.join("")).toBe(REFUSAL);
    expect(res.text).toBe(REFUSAL);
    expect(res.finishReason).toBe("refusal");
    expect(res.usage).toEqual({ inputTokens: 30, outputTokens: 11 });
  });

  it("a reply with both content and a null refusal is as it was", async () => {
    server.reply({ json: { ...refused, choices: [{ ...refused.choices[0], message: { role: "assistant", content: "Hello", refusal: null } }] } });
    const res = await lm().generate(ask);
    expect(res).toMatchObject({ text: "Hello", finishReason: "stop" });
  });

  it("an AI function refused twice fails output-invalid with the refusal as the reply (not an empty one)", async () => {
    server.reply({ json: refused }, { json: refused });
    const plan = ai("plan", { description: "Plan it.", input: { question: z.string() }, output: z.object({ steps: z.array(z.string()) }) });
    const e = await plan("How do I pick a lock?", { lm: lm() }).then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(OutputError);
    expect((e as OutputError).reply).toBe(REFUSAL);
  });
});
