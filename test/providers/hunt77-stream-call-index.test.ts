/**
 * hunt 77: an OpenAI-compatible stream whose tool call's first delta has an
 * `index` but whose argument fragments after it have none (proxies that
 * copy only `function.arguments` onto later deltas). Each fragment opened a
 * call of its own: the tool ran with `{}` for input (its arguments lost)
 * and a nameless call came with them. A fragment without an index continues
 * the call last opened, as one without an id does at an index.
 */
import { describe, expect, it } from "vitest";
import { openai } from "../../src/providers/openai.js";
import { ask } from "./fixtures/two-orders.js";
import { type MockServer, eachTestServer } from "./server.js";

let server: MockServer;
eachTestServer((s) => (server = s));
const lm = () => openai({ model: "gpt-4.1-mini", apiKey: "none", baseURL: `${server.url}/v1`, maxRetries: 0 });

function stream(deltas: Record<string, unknown>[]): string {
  const chunk = (choices: unknown[], usage: unknown = null) =>
    `data: ${JSON.stringify({ id: "chatcmpl-77", object: "chat.completion.chunk", created: 1764400077, model: "gpt-4.1-mini", choices, usage })}\n\n`;
  const body = deltas.map((delta) => chunk([{ index: 0, delta, finish_reason: null }])).join("");
  return `${body}${chunk([{ index: 0, delta: {}, finish_reason: "tool_calls" }])}${chunk([], { prompt_tokens: 80, completion_tokens: 30, total_tokens: 110 })}data: [DONE]\n\n`;
}
const generate = async (deltas: Record<string, unknown>[]) => {
  server.reply({ sse: stream(deltas) });
  const res = await lm().generate(ask, { onText: () => {} });
  return res.toolCalls.map(({ id, name, input, inputError }) => ({ id, name, input, ...(inputError === undefined ? {} : { inputError }) }));
};
const pieces = (text: string, size: number): string[] =>
  Array.from({ length: Math.ceil(text.length / size) }, (_, i) => text.slice(i * size, i * size + size));

describe("a tool call's argument fragments without an index", () => {
  it("continue the call its first delta opened at an index", async () => {
    const args = pieces('{"order_id": "A-1042"}', 3).map((a) => ({ tool_calls: [{ function: { arguments: a } }] }));
    const calls = await generate([
      { role: "assistant", tool_calls: [{ index: 0, id: "call_a", type: "function", function: { name: "lookup_order", arguments: "" } }] },
      ...args,
    ]);
    expect(calls).toEqual([{ id: "call_a", name: "lookup_order", input: { order_id: "A-1042" } }]);
  });

  it("two calls, each at its own index (with a gap), fragments without one: each gets its own", async () => {
    const calls = await generate([
      { role: "assistant", tool_calls: [{ index: 0, id: "call_a", type: "function", function: { name: "lookup_order", arguments: "" } }] },
      ...pieces('{"order_id": "A-1042"}', 4).map((a) => ({ tool_calls: [{ function: { arguments: a } }] })),
      { tool_calls: [{ index: 2, id: "call_b", type: "function", function: { name: "refund", arguments: "" } }] },
      ...pieces('{"order_id": "B-2210"}', 5).map((a) => ({ tool_calls: [{ function: { arguments: a } }] })),
    ]);
    expect(calls).toEqual([
      { id: "call_a", name: "lookup_order", input: { order_id: "A-1042" } },
      { id: "call_b", name: "refund", input: { order_id: "B-2210" } },
    ]);
  });

  it("interleaved fragments at their own indexes (a gap between them) are still kept apart", async () => {
    const a = pieces('{"order_id": "A-1042"}', 2);
    const b = pieces('{"order_id": "B-2210"}', 2);
    const calls = await generate([
      { role: "assistant", tool_calls: [{ index: 1, id: "call_a", type: "function", function: { name: "lookup_order", arguments: "" } }] },
      { tool_calls: [{ index: 3, id: "call_b", type: "function", function: { name: "refund", arguments: "" } }] },
      ...a.flatMap((x, i) => [
        { tool_calls: [{ index: 1, function: { arguments: x } }] },
        { tool_calls: [{ index: 3, function: { arguments: b[i] } }] },
      ]),
    ]);
    expect(calls).toEqual([
      { id: "call_a", name: "lookup_order", input: { order_id: "A-1042" } },
      { id: "call_b", name: "refund", input: { order_id: "B-2210" } },
    ]);
  });
});
