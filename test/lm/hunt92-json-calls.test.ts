/**
 * hunt 92: tools offered as text (`nativeTools: false`), a model that calls
 * in its own JSON form instead of the `<tool_call>` block it was asked for:
 * Llama 3.1 and 3.3 (`{"name": "lookup_order", "parameters": {…}}`, their
 * JSON tool calling) or Mistral (`[{"name": …, "arguments": {…}}]`, its
 * `[TOOL_CALLS]` marker left out of the text by vLLM). The reply was read
 * as the answer: the caller got the call's JSON as the result and the tool
 * never ran. It is the form the native check refuses as "its JSON",
 * advising `nativeTools: false`, which did not read it either. Now a reply
 * that is nothing but such JSON is read as those calls, as a pythonic list
 * is (hunt 81); anything else is text as before.
 */
import { describe, expect, it } from "vitest";
import { fromTextResponse } from "../../src/lm/text-tools.js";
import { chatCompletion } from "../providers/fixtures/hunt51-wire.js";
import { textToolsDesk } from "./fixtures.js";

const completion = (content: string) => chatCompletion(content, { model: "llama3.1:8b", usage: [120, 20] });
const chunks = (content: string): string =>
  `${[{ role: "assistant", content: "" }, ...content.match(/[\s\S]{1,5}/g)!.map((c) => ({ content: c })), {}]
    .map(
      (delta, i, all) =>
        `data: ${JSON.stringify({ id: "chatcmpl-92j", object: "chat.completion.chunk", created: 1764400092, model: "llama3.1:8b", choices: [{ index: 0, delta, logprobs: null, finish_reason: i === all.length - 1 ? "stop" : null }] })}\n\n`,
    )
    .join("")}data: [DONE]\n\n`;
const read = (text: string) => fromTextResponse({ text, toolCalls: [], finishReason: "stop", usage: { inputTokens: 1, outputTokens: 1 } });

const LLAMA = '{"name": "lookup_order", "parameters": {"order_id": "A-1042"}}';
const MISTRAL = '[{"name": "lookup_order", "arguments": {"order_id": "A-1042"}}, {"name": "lookup_order", "arguments": {"order_id": "B-2210"}}]';
const ANSWER = "<result>\nA-1042 has shipped.\n</result>";

describe("a reply that is nothing but a call's JSON, tools offered as text", () => {
  const { local, seen, answer, lm } = textToolsDesk();

  it("Llama 3.1's form: the tool runs, and the answer after it is the result", async () => {
    seen.length = 0;
    local.server.reply({ json: completion(LLAMA) }, { json: completion(ANSWER) });
    await expect(answer("Where is A-1042?", { lm: lm() })).resolves.toBe("A-1042 has shipped.");
    expect(seen).toEqual([{ order_id: "A-1042" }]);
  });

  it("streamed: no text event shows the call's JSON", async () => {
    seen.length = 0;
    local.server.reply({ sse: chunks(`\n${LLAMA}`) }, { sse: chunks(ANSWER) });
    const s = answer.stream("Where is A-1042?", { lm: lm() });
    const texts: string[] = [];
    for await (const e of s) if (e.type === "text") texts.push(e.delta);
    await expect(s).resolves.toBe("A-1042 has shipped.");
    expect(texts.join("")).toBe("A-1042 has shipped.");
    expect(seen).toEqual([{ order_id: "A-1042" }]);
  });

  it("Mistral's list, fenced too, arguments as a JSON string (OpenAI's wire form), Llama 3.3's: each a call; anything but such JSON is text, as before", () => {
    expect(read(MISTRAL).toolCalls).toEqual([
      { id: "call_1", name: "lookup_order", input: { order_id: "A-1042" } },
      { id: "call_2", name: "lookup_order", input: { order_id: "B-2210" } },
    ]);
    const fenced = read(`\`\`\`json\n{"name": "lookup_order", "arguments": "{\\"order_id\\": \\"A-1042\\"}"}\n\`\`\``);
    expect(fenced.toolCalls).toEqual([{ id: "call_1", name: "lookup_order", input: { order_id: "A-1042" } }]);
    expect(fenced).toMatchObject({ text: "", finishReason: "tool_calls" });
    // Llama 3.3's form, after the marker Llama 3.1 writes where the server shows special tokens
    const tagged = read('<|python_tag|>{"type": "function", "name": "lookup_order", "parameters": {"order_id": "A-1042"}}');
    expect(tagged.toolCalls).toEqual([{ id: "call_1", name: "lookup_order", input: { order_id: "A-1042" } }]);
    for (const text of [
      `I'll look it up: ${LLAMA}`,
      '{"name": "Ana", "parameters": {"tone": "formal"}, "reply": "Dear Ana"}',
      '{"name": "lookup_order"}',
      '{"name": "", "parameters": {}}',
      '[{"name": "lookup_order", "parameters": {}}, "A-1042"]',
      `<result>\n${LLAMA}\n</result>`,
      "[]",
    ]) {
      const r = read(text);
      expect([text, r.toolCalls]).toEqual([text, []]);
      expect(r.text).toBe(text);
    }
  });
});
