/**
 * hunt 77: DeepSeek-R1 distills (and QwQ) served by llama.cpp or vLLM
 * without a reasoning parser often reply with their reasoning but no opening
 * `<think>`: the chat template put `<think>\n` in the prompt, so the reply's
 * content is `…reasoning…\n</think>\n\n<answer>`. Only a leading `<think>`
 * block was passed over, so the reasoning was read as the reply: its draft
 * `<result>` was the answer, a plain answer was the reasoning and all, a
 * `<tool_call>` it drafted ran (a tool run twice with the real one after it),
 * and with tools offered natively the drafted call refused a good answer as
 * "a call written as text". Everything before a lone leading `</think>` is
 * the thought.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai } from "../../src/index.js";
import { readOutput } from "../../src/lm/prompt.js";
import { replyText } from "../../src/lm/reply-text.js";
import { fromTextResponse } from "../../src/lm/text-tools.js";
import { openai } from "../../src/providers/openai.js";
import { ask } from "../providers/fixtures/lookup-order.js";
import { textToolsDesk } from "./fixtures.js";

const completion = (content: string, finish_reason = "stop") => ({
  id: "chatcmpl-local-77",
  object: "chat.completion",
  created: 1764400077,
  model: "DeepSeek-R1-Distill-Qwen-7B",
  choices: [{ index: 0, message: { role: "assistant", content, tool_calls: [] }, logprobs: null, finish_reason }],
  usage: { prompt_tokens: 210, completion_tokens: 24, total_tokens: 234 },
});

const DRAFTED =
  "Okay, the user wants the capital. I must reply in exactly this form:\n<result>\n...\n</result>\nThe capital of France is Paris.\n</think>\n\n<result>\nParis\n</result>";
const PLAIN = "Okay, the capital of France. That is Lyon? No, Paris.\n</think>\n\nParis";
const CALL = '<tool_call>\n{"name": "lookup_order", "input": {"order_id": "A-1042"}}\n</tool_call>';

const { local, seen, answer, lm } = textToolsDesk();
const capital = ai("capital", { description: "The capital of the country.", input: { country: z.string() }, output: z.string() });

function streamedText(reply: string, chunk: number): string {
  const out: string[] = [];
  const r = replyText((d) => out.push(d));
  for (let i = 0; i < reply.length; i += chunk) r.push(reply.slice(i, i + chunk));
  r.end();
  return out.join("");
}

describe("a reply whose reasoning lost its opening <think> (a lone </think>)", () => {
  it("the answer is the <result> after </think>, not the one the reasoning drafted", async () => {
    expect(readOutput(DRAFTED, z.string())).toEqual({ ok: true, value: "Paris" });
    local.server.reply({ json: completion(DRAFTED) });
    await expect(capital("France", { lm: lm() })).resolves.toBe("Paris");
  });

  it("a plain answer after </think> is the answer, without the reasoning", async () => {
    expect(readOutput(PLAIN, z.string())).toEqual({ ok: true, value: "Paris" });
    expect(streamedText(PLAIN, 1)).toBe("Paris");
    expect(streamedText(PLAIN, 5)).toBe("Paris");
    expect(streamedText(`${PLAIN.replace("</think>", "</THINKING >")}`, 4)).toBe("Paris");
  });

  it("tools as text: a call drafted before </think> does not run; the call made after it runs once", async () => {
    seen.length = 0;
    local.server.reply(
      { json: completion(`I should look it up:\n${CALL}\nThen answer.\n</think>\n${CALL}`) },
      { json: completion("It shipped.\n</think>\n<result>\nA-1042 has shipped.\n</result>") },
    );
    await expect(answer("Where is A-1042?", { lm: lm() })).resolves.toBe("A-1042 has shipped.");
    expect(seen).toEqual([{ order_id: "A-1042" }]);
  });

  it("tools as text: a call drafted before </think> with only words after it is no call", () => {
    const read = fromTextResponse({
      text: `Maybe:\n${CALL}\nNo, not needed.\n</think>\n\nIt has shipped.`,
      toolCalls: [],
      finishReason: "stop",
      usage: { inputTokens: 1, outputTokens: 1 },
    });
    expect(read.toolCalls).toEqual([]);
    expect(read.finishReason).toBe("stop");
  });

  it("tools offered natively: a call drafted before </think> does not refuse the answer after it", async () => {
    const content = `I could call it again:\n${CALL}\nNo: the earlier result says enough.\n</think>\n\n<result>\nIt is at the carrier.\n</result>`;
    local.server.reply({ json: completion(content) });
    const native = openai({ model: "DeepSeek-R1-Distill-Qwen-7B", apiKey: "none", baseURL: `${local.server.url}/v1`, maxRetries: 0 });
    const res = await native.generate(ask);
    expect(res.toolCalls).toEqual([]);
    expect(res.text).toBe(content);
  });

  it("a </think> inside the answer's own block, or after a <think> it closes, is read as before", () => {
    expect(readOutput("<result>\nWrite </think> to close it.\n</result>", z.string())).toEqual({ ok: true, value: "Write </think> to close it." });
    expect(readOutput("<result>\n<think>x</think> y\n</result>", z.string())).toEqual({ ok: true, value: "<think>x</think> y" });
    expect(readOutput("Paris", z.string())).toEqual({ ok: true, value: "Paris" });
    // quoted or in code, the tag is the answer's text
    expect(readOutput("Close it with `</think>`, then answer.", z.string())).toEqual({ ok: true, value: "Close it with `</think>`, then answer." });
    expect(streamedText('Close it with "</think>", then answer.', 3)).toBe('Close it with "</think>", then answer.');
  });
});
