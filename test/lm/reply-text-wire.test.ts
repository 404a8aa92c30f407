/**
 * On the wire: the real `openai` SDK against a local OpenAI-compatible
 * server that streams a reply in the reply form, a few characters a chunk
 * (tags split across chunks, as real servers split them). The turn's `text`
 * events carry the answer without `<result>` tags.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, type TurnEvent } from "../../src/index.js";
import { openai } from "../../src/providers/openai.js";
import { mockServer, type MockServer } from "../providers/server.js";

/** An OpenAI chat-completion stream sending `text` in pieces of `size` characters. */
function sse(text: string, size: number): string {
  const chunk = (delta: Record<string, unknown>, finish: string | null, usage: unknown = null) =>
    `data: ${JSON.stringify({ id: "chatcmpl-wire", object: "chat.completion.chunk", created: 1764400010, model: "gpt-4.1-mini", choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], usage })}\n\n`;
  let out = chunk({ role: "assistant", content: "" }, null);
  for (let i = 0; i < text.length; i += size) out += chunk({ content: text.slice(i, i + size) }, null);
  out += chunk({}, "stop");
  out += `data: ${JSON.stringify({ id: "chatcmpl-wire", object: "chat.completion.chunk", created: 1764400010, model: "gpt-4.1-mini", choices: [], usage: { prompt_tokens: 40, completion_tokens: 12, total_tokens: 52 } })}\n\n`;
  return `${out}data: [DONE]\n\n`;
}

let server: MockServer;
beforeEach(async () => {
  server = await mockServer();
});
afterEach(async () => {
  await server.close();
});

const answer = ai("answer", { description: "Answer the customer's question.", input: { question: z.string() } });
const lm = () => openai({ model: "gpt-4.1-mini", apiKey: "test-key", baseURL: `${server.url}/v1` });

async function texts(reply: string, size: number): Promise<{ deltas: string[]; result: string }> {
  server.reply({ sse: sse(reply, size) });
  const s = answer.stream({ question: "Where is A-1042?" }, { lm: lm() });
  const events: TurnEvent[] = [];
  for await (const e of s) events.push(e);
  const deltas = events.flatMap((e) => (e.type === "text" ? [e.delta] : []));
  return { deltas, result: await s };
}

describe("openai streaming a reply in the reply form", () => {
  const inner = "Fake model answer: order A-1042\nshipped on Monday.";

  for (const size of [1, 3, 5, 8]) {
    it(`text events carry no tag, in chunks of ${size} characters`, async () => {
      const { deltas, result } = await texts(`<result>\n${inner}\n</result>`, size);
      expect(server.requests[0]!.body).toMatchObject({ stream: true });
      expect(result).toBe(inner);
      expect(deltas.join("")).toBe(inner);
      expect(deltas.length).toBeGreaterThan(1);
      for (const d of deltas) expect(d).not.toMatch(/<\/?r|result>|<$/);
    });
  }

  it("a plain reply (no tags) is the answer as sent, trimmed", async () => {
    const { deltas, result } = await texts(`${inner}\n`, 4);
    expect(result).toBe(inner);
    expect(deltas.join("")).toBe(inner);
  });
});
