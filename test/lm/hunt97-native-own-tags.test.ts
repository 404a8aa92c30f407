/**
 * Hunt 97, native tools: a reply that writes its call in the model's own tags (Llama's `<function=name>{…}</function>`
 * with no `<tool_call>` around it, Hunyuan's `<tool_calls>[…]</tool_calls>`) is refused (`provider-response`: the
 * server did not read the model's calls), whole and streamed, as a `<tool_call>` block is; named in code, or naming
 * no offered tool, it is text.
 */
import { describe, expect, it } from "vitest";
import { openai } from "../../src/providers/openai.js";
import { chatCompletion, textSse } from "../providers/fixtures/hunt51-wire.js";
import { ask } from "../providers/fixtures/lookup-order.js";
import { type MockServer, eachTestServer, failure } from "../providers/server.js";

let server: MockServer;
eachTestServer((s) => (server = s));
const MODEL = "meta-llama/Llama-4-Scout-17B-16E-Instruct";
const lm = () => openai({ model: MODEL, apiKey: "none", baseURL: `${server.url}/v1`, maxRetries: 0 });
const whole = (content: string) => chatCompletion(content, { model: MODEL, usage: [40, 22] });
const written: Record<string, string> = {
  "Llama's <function=…>": '<function=lookup_order>{"order_id": "A-1042"}</function>',
  "Hunyuan's <tool_calls>": '<tool_calls>[{"name": "lookup_order", "arguments": {"order_id": "A-1042"}}]</tool_calls>',
};
describe("openai, native tools: a call in a model's own tags is refused, never the answer", () => {
  for (const [label, content] of Object.entries(written)) {
    it(`whole and streamed: ${label}; named in code or naming no offered tool, it is text`, async () => {
      server.reply({ json: whole(`I'll look that order up.\n${content}`) });
      const e = await failure(lm().generate(ask));
      expect(e.code).toBe("provider-response");
      expect(e.message).toContain('calling "lookup_order"');
      server.reply({ sse: textSse(content, 5) });
      expect((await failure(lm().generate(ask, { onText: () => {} }))).code).toBe("provider-response");
      for (const text of [content.replaceAll("lookup_order", "send_email"), `Llama writes \`${content}\`.`]) {
        server.reply({ json: whole(text) });
        const reply = await lm().generate(ask);
        expect(reply.text).toBe(text);
        expect(reply.toolCalls).toEqual([]);
      }
    });
  }
});
