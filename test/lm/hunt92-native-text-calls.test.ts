/**
 * hunt 92: tools offered natively, a model whose server did not read its
 * call (vLLM without the model's tool-call parser, an Ollama template with
 * no tools) leaves the call in the text as a `<tool_call>` block. The
 * check that refuses such a reply (providers/common.ts refuseTextToolCalls)
 * read the block's body as strict JSON only, so a block the text-tools
 * reader reads as a call (lm/text-tools.ts: single quotes, as small models
 * write a Python dict; JSON fenced inside the block; two calls in one
 * block; Qwen3-Coder's `<function=…>` form) was not told apart: the reply
 * came back as the answer, the `<tool_call>` block the customer's text, and
 * the tool never ran. The check now reads blocks with the reader's own
 * blockCalls, so what one reads as a call the other refuses as one.
 */
import { describe, expect, it } from "vitest";
import { openai } from "../../src/providers/openai.js";
import { chatCompletion, textSse } from "../providers/fixtures/hunt51-wire.js";
import { ask } from "../providers/fixtures/lookup-order.js";
import { type MockServer, eachTestServer, failure } from "../providers/server.js";

let server: MockServer;
eachTestServer((s) => (server = s));
const MODEL = "Qwen/Qwen2.5-7B-Instruct";
const lm = () => openai({ model: MODEL, apiKey: "none", baseURL: `${server.url}/v1`, maxRetries: 0 });
const whole = (content: string) => chatCompletion(content, { model: MODEL, usage: [40, 22] });

const written: Record<string, string> = {
  // small models asked for JSON write a Python dict (hunt 81 reads it with tools as text)
  "single quotes": "<tool_call>\n{'name': 'lookup_order', 'arguments': {'order_id': 'A-1042'}}\n</tool_call>",
  "JSON fenced inside the block": '<tool_call>\n```json\n{"name": "lookup_order", "arguments": {"order_id": "A-1042"}}\n```\n</tool_call>',
  "two calls in one block":
    '<tool_call>\n{"name": "lookup_order", "arguments": {"order_id": "A-1042"}}\n{"name": "lookup_order", "arguments": {"order_id": "B-2210"}}\n</tool_call>',
  // Qwen3-Coder on vLLM started with the hermes parser (the one Qwen's docs name for Qwen3), which cannot read it
  "Qwen3-Coder's <function=…> form": "<tool_call>\n<function=lookup_order>\n<parameter=order_id>\nA-1042\n</parameter>\n</function>\n</tool_call>",
};

const refused = (e: { code: string; message: string }) => {
  expect(e.code).toBe("provider-response");
  expect(e.message).toContain('calling "lookup_order"');
  expect(e.message).toContain("nativeTools: false");
};

describe("openai, native tools: a <tool_call> block the text-tools reader reads as a call is refused, never the answer", () => {
  for (const [label, content] of Object.entries(written)) {
    it(`whole: ${label}; the same naming no offered tool is text`, async () => {
      server.reply({ json: whole(`I'll look that order up.\n${content}`) });
      refused(await failure(lm().generate(ask)));
      const other = content.replaceAll("lookup_order", "send_email");
      server.reply({ json: whole(other) });
      const reply = await lm().generate(ask);
      expect(reply.text).toBe(other);
      expect(reply.toolCalls).toEqual([]);
    });

    it(`streamed: ${label}`, async () => {
      server.reply({ sse: textSse(content, 5) });
      refused(await failure(lm().generate(ask, { onText: () => {} })));
    });
  }
});
