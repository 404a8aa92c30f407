/**
 * OpenAI-compatible streams whose tool calls carry no ids and all come at
 * index 0 (or at none): each call is still its own. A delta with a function
 * name, on a call that already has its name and whole JSON arguments, starts
 * the next call (a name alone, followed by arguments, starts one too); a
 * name repeated in every delta of one call (some servers do) does not.
 * Before, the calls were merged into one, its arguments concatenated
 * (`{"order_id":"A-1042"}{"order_id":"B-2210"}`: not JSON), so neither ran
 * as asked.
 */
import { describe, expect, it } from "vitest";
import { openai } from "../../src/providers/openai.js";
import { ask } from "./fixtures/two-orders.js";
import { type MockServer, eachTestServer } from "./server.js";

let server: MockServer;
eachTestServer((s) => (server = s));
const lm = () => openai({ model: "qwen3:8b", apiKey: "none", baseURL: `${server.url}/v1`, maxRetries: 0 });

/** A chat-completion stream of the given deltas, then `finish` and a usage chunk, as a compatible server sends it. */
function stream(deltas: Record<string, unknown>[], finish = "tool_calls"): string {
  const chunk = (choices: unknown[], usage: unknown = null) =>
    `data: ${JSON.stringify({ id: "chatcmpl-local", object: "chat.completion.chunk", created: 1764400020, model: "qwen3:8b", choices, usage })}\n\n`;
  const body = deltas.map((delta) => chunk([{ index: 0, delta, finish_reason: null }])).join("");
  return `${body}${chunk([{ index: 0, delta: {}, finish_reason: finish }])}${chunk([], { prompt_tokens: 80, completion_tokens: 30, total_tokens: 110 })}data: [DONE]\n\n`;
}
/** One tool-call delta: no id, at `index` (none when undefined). */
const call = (index: number | undefined, name: string | undefined, args: string) => ({
  ...(index === undefined ? {} : { index }),
  ...(name === undefined ? {} : { type: "function" }),
  function: { ...(name === undefined ? {} : { name }), arguments: args },
});
const generate = async (deltas: Record<string, unknown>[]) => {
  server.reply({ sse: stream(deltas) });
  const res = await lm().generate(ask, { onText: () => {} });
  return res.toolCalls.map(({ name, input, inputError }) => ({ name, input, ...(inputError === undefined ? {} : { inputError }) }));
};

const A = { name: "lookup_order", input: { order_id: "A-1042" } };
const B = { name: "refund", input: { order_id: "B-2210" } };

describe("tool calls without ids, all at one index", () => {
  for (const index of [0, undefined]) {
    const where = index === undefined ? "no index" : "index 0";
    it(`two whole calls (${where}), one per chunk, are two calls`, async () => {
      expect(
        await generate([
          { role: "assistant", tool_calls: [call(index, A.name, JSON.stringify(A.input))] },
          { tool_calls: [call(index, B.name, JSON.stringify(B.input))] },
        ]),
      ).toEqual([A, B]);
    });

    it(`two whole calls (${where}) in one chunk are two calls`, async () => {
      expect(
        await generate([
          { role: "assistant", tool_calls: [call(index, A.name, JSON.stringify(A.input)), call(index, B.name, JSON.stringify(B.input))] },
        ]),
      ).toEqual([A, B]);
    });
  }

  it("two calls of one tool, each whole, are two calls", async () => {
    const A2 = { name: "lookup_order", input: { order_id: "B-2210" } };
    expect(
      await generate([{ tool_calls: [call(0, A.name, JSON.stringify(A.input))] }, { tool_calls: [call(0, A2.name, JSON.stringify(A2.input))] }]),
    ).toEqual([A, A2]);
  });

  it("calls streamed as OpenAI does (a name first, then argument pieces) are each their own, also of one tool", async () => {
    const A2 = { name: "lookup_order", input: { order_id: "B-2210" } };
    expect(
      await generate([
        { tool_calls: [call(0, A.name, "")] },
        { tool_calls: [call(0, undefined, '{"order_id":')] },
        { tool_calls: [call(0, undefined, '"A-1042"}')] },
        { tool_calls: [call(0, A2.name, "")] },
        { tool_calls: [call(0, undefined, '{"order_id":')] },
        { tool_calls: [call(0, undefined, '"B-2210"}')] },
        { tool_calls: [call(0, B.name, "")] },
        { tool_calls: [call(0, undefined, '{"order_id":"B-2210"}')] },
      ]),
    ).toEqual([A, A2, B]);
  });
});

describe("one call is still one", () => {
  it("a name repeated in every delta of one call", async () => {
    expect(
      await generate([
        { tool_calls: [call(0, A.name, '{"order_id":')] },
        { tool_calls: [call(0, A.name, '"A-10')] },
        { tool_calls: [call(0, A.name, '42"}')] },
        { tool_calls: [call(0, A.name, "")] },
      ]),
    ).toEqual([A]);
  });

  it("a name first, then arguments not yet whole, then the rest: one call", async () => {
    expect(
      await generate([
        { tool_calls: [call(0, A.name, "")] },
        { tool_calls: [call(0, undefined, '{"order_id":"A-1042"')] },
        { tool_calls: [call(0, undefined, "}")] },
      ]),
    ).toEqual([A]);
  });
});
