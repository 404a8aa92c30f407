/**
 * Tools offered natively, a thinking model whose server leaves its reasoning
 * in the content (`<think>…</think>`: DeepSeek-R1, QwQ, Qwen3 without a
 * reasoning parser). Its reasoning often drafts the call it weighs
 * (`<tool_call>{…}</tool_call>`, Mistral's `[TOOL_CALLS]`, a bare call's
 * JSON) and then answers in words. The native reader refused every such
 * reply as a call "written as text" the server did not read
 * (`provider-response`): a good answer lost, the turn failed. The
 * reasoning is not the reply (as the prompt-mode readers read it since
 * hunt 61): only the text after it is looked at. A call written after the
 * reasoning is still refused.
 */
import { describe, expect, it } from "vitest";
import { openai } from "../../src/providers/openai.js";
import { type MockServer, eachTestServer, failure } from "./server.js";
import { chatCompletion } from "./fixtures/hunt51-wire.js";
import { ask } from "./fixtures/lookup-order.js";

let server: MockServer;
eachTestServer((s) => (server = s));
const lm = () => openai({ model: "Qwen/Qwen3-8B", apiKey: "none", baseURL: `${server.url}/v1`, maxRetries: 0 });

const whole = (content: string) => chatCompletion(content, { model: "Qwen/Qwen3-8B", usage: [40, 22] });

const ANSWER = "<result>\nI already looked A-1042 up: it is at the carrier.\n</result>";
const drafts = {
  "a <tool_call> block": '<tool_call>\n{"name": "lookup_order", "arguments": {"order_id": "A-1042"}}\n</tool_call>',
  "Mistral's [TOOL_CALLS]": '[TOOL_CALLS]lookup_order[ARGS]{"order_id": "A-1042"}',
};

describe("openai, native tools: a call drafted in the leading reasoning is not a call written as text", () => {
  for (const [label, draft] of Object.entries(drafts)) {
    it(`${label} inside <think>, an answer after it: the answer`, async () => {
      const content = `<think>\nI could call it again:\n${draft}\nNo: the earlier result says enough.\n</think>\n\n${ANSWER}`;
      server.reply({ json: whole(content) });
      const res = await lm().generate(ask);
      expect(res.text).toBe(content);
      expect(res.toolCalls).toEqual([]);
    });

    it(`${label} after the reasoning is still refused`, async () => {
      server.reply({ json: whole(`<think>\nI should look it up.\n</think>\n\n${draft}`) });
      const e = await failure(lm().generate(ask));
      expect(e.code).toBe("provider-response");
      expect(e.message).toContain("lookup_order");
    });
  }

  // (one that ends in the call, nothing after it, is refused as a call left in the reasoning: hunt 160)
  it("a reasoning block never closed holds no call either (the reply holds no answer: read as such later)", async () => {
    const content = `<think>\nMaybe ${drafts["a <tool_call> block"]}\nBut its status is in the question already.`;
    server.reply({ json: whole(content) });
    const res = await lm().generate(ask);
    expect(res.text).toBe(content);
  });
});
