/**
 * hunt 61: reasoning models served by OpenAI-compatible servers that leave
 * the reasoning in the content (DeepSeek-R1, QwQ, Qwen3 on Groq's "raw"
 * reasoning format, Together, llama.cpp without a reasoning parser) begin
 * their reply with a `<think>…</think>` block, and the reasoning often
 * restates the reply form it was told to use, or drafts a tool call:
 *
 *   <think>I must reply in this form: <result>\n...\n</result>. It is Paris.</think>
 *   <result>\nParis\n</result>
 *
 * The answer was read from the first `<result>` block, the one in the
 * reasoning ("..."); a plain answer was the whole text, reasoning and all;
 * streamed text showed the reasoning's draft; and with tools offered as
 * text, a call drafted in the reasoning ran as well as the one made after
 * it (a tool run twice). The reasoning is not the reply: a leading
 * `<think>` (or `<thinking>`) block is passed over when the answer, its
 * streamed text and the calls are read.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, type TurnEvent } from "../../src/index.js";
import { readOutput } from "../../src/lm/prompt.js";
import { replyText } from "../../src/lm/reply-text.js";
import { fromTextResponse } from "../../src/lm/text-tools.js";
import { localCompletion, textToolsDesk } from "./fixtures.js";

/** A reasoning model's reply, as a compatible server serving it sends it. */
const completion = (content: string, finish_reason = "stop") => localCompletion(content, finish_reason, "deepseek-r1-distill-llama-70b");

const DRAFTED =
  "<think>\nThe user asks for the capital. I must reply in exactly this form:\n<result>\n...\n</result>\nThe capital of France is Paris.\n</think>\n\n<result>\nParis\n</result>";
const PLAIN = "<think>\nOkay, the capital of France. That is Paris.\n</think>\n\nParis";

const { local, seen, answer, lm } = textToolsDesk();
const capital = ai("capital", { description: "The capital of the country.", input: { country: z.string() }, output: z.string() });

function streamedText(reply: string, chunk: number, textTools = false): string {
  const out: string[] = [];
  const r = replyText((d) => out.push(d), { textTools });
  for (let i = 0; i < reply.length; i += chunk) r.push(reply.slice(i, i + chunk));
  r.end();
  return out.join("");
}

describe("a reply that begins with the model's reasoning in <think>", () => {
  it("the answer is the reply's <result> block, not the one its reasoning drafted", async () => {
    local.server.reply({ json: completion(DRAFTED) });
    await expect(capital("France", { lm: lm() })).resolves.toBe("Paris");
  });

  it("a plain answer after the reasoning is the answer, without the reasoning", async () => {
    local.server.reply({ json: completion(PLAIN) });
    await expect(capital("France", { lm: lm() })).resolves.toBe("Paris");
  });

  it("streamed, its text events are the answer only, however the chunks fall", async () => {
    for (const reply of [DRAFTED, PLAIN, "<THINKING>\n<result>x</result>\n</THINKING>\n<result>\nParis\n</result>"])
      for (const chunk of [1, 2, 3, 7, 1000]) expect(streamedText(reply, chunk), `${chunk}: ${reply}`).toBe("Paris");
    local.server.reply({ json: completion(DRAFTED) });
    const texts: string[] = [];
    for await (const e of capital.stream("France", { lm: lm() }) as AsyncIterable<TurnEvent>) if (e.type === "text") texts.push(e.delta);
    expect(texts.join("")).toBe("Paris");
  });

  it("tools as text: a call drafted in the reasoning does not run; the call made after it runs once", async () => {
    seen.length = 0;
    const call = '<tool_call>\n{"name": "lookup_order", "input": {"order_id": "A-1042"}}\n</tool_call>';
    local.server.reply(
      { json: completion(`<think>\nI should look it up:\n${call}\nThen answer.\n</think>\n${call}`) },
      { json: completion("<think>\nIt shipped.\n</think>\n<result>\nA-1042 has shipped.\n</result>") },
    );
    await expect(answer("Where is A-1042?", { lm: lm() })).resolves.toBe("A-1042 has shipped.");
    expect(seen).toEqual([{ order_id: "A-1042" }]);
  });

  it("reasoning never closed is no answer (a reply cut off while it reasoned says so)", () => {
    const read = readOutput("<think>\nThe answer is <result>\nParis\n</result> I think, but", z.string(), "length");
    expect(read).toMatchObject({ ok: false, detail: expect.stringMatching(/raise maxTokens/) });
    expect(readOutput("<think>\nParis, I think", z.string(), "stop")).toMatchObject({ ok: false });
    const read2 = fromTextResponse({
      text: '<think>\n<tool_call>\n{"name": "x", "input": {}}\n</tool_call>',
      toolCalls: [],
      finishReason: "length",
      usage: { inputTokens: 1, outputTokens: 1 },
    });
    expect(read2.toolCalls).toEqual([]);
  });

  it("a reply without reasoning, or that names <think> later in its text, is read as before", () => {
    expect(readOutput("<result>\nParis\n</result>", z.string())).toEqual({ ok: true, value: "Paris" });
    expect(readOutput("Use a <think> tag.", z.string())).toEqual({ ok: true, value: "Use a <think> tag." });
    expect(streamedText("Use a <think> tag.", 2)).toBe("Use a <think> tag.");
    expect(readOutput("<result>\n<think>x</think> y\n</result>", z.string())).toEqual({ ok: true, value: "<think>x</think> y" });
    expect(streamedText("<result>\n<think>x</think> y\n</result>", 3)).toBe("<think>x</think> y");
  });
});
