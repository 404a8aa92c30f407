/**
 * hunt 81: DeepSeek-R1 distills on llama.cpp or vLLM reply without the
 * opening `<think>` (the chat template put it in the prompt): the reply's
 * content is `…reasoning…\n</think>\n\n<result>…</result>`. Hunt 77 read the
 * answer after the lone `</think>`, but a turn's streamed `text` events still
 * showed what the reasoning drafted inside a `<result>` (the reply form it
 * restates, a first guess) as if it were the answer, and then nothing of the
 * real answer. Text after a preamble is now held until it is known not to be
 * reasoning: the `</think>` that closes it (the answer after it then
 * streams), or the reply's end. The deltas concatenated are the answer read.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, type TurnEvent } from "../../src/index.js";
import { readOutput } from "../../src/lm/prompt.js";
import { replyText } from "../../src/lm/reply-text.js";
import { openai } from "../../src/providers/openai.js";
import { type MockServer, eachTestServer } from "../providers/server.js";

/** An OpenAI chat-completion stream, as llama.cpp's server sends it, of `text` in pieces of `size` characters. */
function sse(text: string, size: number): string {
  const chunk = (delta: Record<string, unknown>, finish: string | null) =>
    `data: ${JSON.stringify({ id: "chatcmpl-81", object: "chat.completion.chunk", created: 1764400081, model: "DeepSeek-R1-Distill-Qwen-7B", choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`;
  let out = chunk({ role: "assistant", content: "" }, null);
  for (let i = 0; i < text.length; i += size) out += chunk({ content: text.slice(i, i + size) }, null);
  out += chunk({}, "stop");
  return `${out}data: [DONE]\n\n`;
}

let server: MockServer;
eachTestServer((s) => (server = s));

const capital = ai("capital", { description: "The capital of the country.", input: { country: z.string() }, output: z.string() });
const lm = () => openai({ model: "DeepSeek-R1-Distill-Qwen-7B", apiKey: "none", baseURL: `${server.url}/v1`, maxRetries: 0 });

async function streamed(reply: string, size: number): Promise<{ deltas: string[]; result: string }> {
  server.reply({ sse: sse(reply, size) });
  const s = capital.stream("France", { lm: lm() });
  const events: TurnEvent[] = [];
  for await (const e of s) events.push(e);
  return { deltas: events.flatMap((e) => (e.type === "text" ? [e.delta] : [])), result: await s };
}

function filtered(reply: string, size: number): string[] {
  const out: string[] = [];
  const r = replyText((d) => out.push(d));
  for (let i = 0; i < reply.length; i += size) r.push(reply.slice(i, i + size));
  r.end();
  return out;
}

const DRAFTED =
  "Okay, the user wants the capital. I must reply in exactly this form:\n<result>\n...\n</result>\nMy first guess:\n<result>\nLyon\n</result>\nNo: it is Paris.\n</think>\n\n<result>\nParis is the capital of France.\n</result>";

describe("a streamed reply whose reasoning lost its opening <think>", () => {
  for (const size of [1, 4, 7]) {
    it(`text events show the answer after </think>, never the <result> the reasoning drafted (chunks of ${size})`, async () => {
      const { deltas, result } = await streamed(DRAFTED, size);
      expect(result).toBe("Paris is the capital of France.");
      expect(deltas.join("")).toBe("Paris is the capital of France.");
      for (const d of deltas) expect(d).not.toMatch(/Lyon|\.\.\./);
    });
  }

  it("the answer after the lone </think> still streams in pieces (not held to the reply's end)", () => {
    const deltas = filtered(`${DRAFTED.replace("Paris is the capital of France.", "Paris is the capital of France, on the Seine, since 987.")}`, 3);
    expect(deltas.join("")).toBe("Paris is the capital of France, on the Seine, since 987.");
    expect(deltas.length).toBeGreaterThan(3);
  });

  it("a preamble that is not reasoning: the answer's text is what readOutput reads, in any chunking", () => {
    for (const reply of [
      "Here it is:\n<result>\nParis\n</result>",
      'Here it is:\n<result>\nWrite "</think>" to close it.\n</result>',
      "Sure.\n<result>\nParis\n</result>\nDone.",
    ]) {
      const read = readOutput(reply, z.string());
      for (const size of [1, 2, 5, 64]) expect([reply, size, filtered(reply, size).join("")]).toEqual([reply, size, read.ok ? read.value : ""]);
    }
  });

  it("a reply that opens with <result> streams as before", () => {
    const deltas = filtered("<result>\nParis is the capital of France.\n</result>", 2);
    expect(deltas.join("")).toBe("Paris is the capital of France.");
    expect(deltas.length).toBeGreaterThan(3);
  });
});
