/**
 * Worked examples on the wire: the real `openai` and `@anthropic-ai/sdk`
 * clients against the local servers that speak each API. Every tool call of
 * an example is answered where each provider requires (OpenAI: tool messages
 * right after the assistant message, by tool_call_id; Anthropic: tool_result
 * blocks in the very next user message, by tool_use_id), with ids unique
 * across examples, so no provider would answer 400.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { anthropic, openai, type AIState } from "../../src/index.js";
import { fixtureJson, mockServer, type MockServer } from "../providers/server.js";
import { status } from "./desk.js";

/** Two examples whose recorded ids collide (providers reuse ids), one with two calls in a step, one without tools. */
const saved: AIState = {
  instructions: status.state().instructions,
  demos: [
    {
      inputs: { question: "Has B-2210 or E-5520 arrived?" },
      outputs: { result: "delivered" },
      steps: [
        {
          text: "Looking both up.",
          toolCalls: [
            { id: "call_1", name: "lookup_order", input: { order_id: "B-2210" } },
            { id: "call_2", name: "lookup_order", input: { order_id: "E-5520" } },
          ],
          results: [
            { id: "call_2", name: "lookup_order", content: '{"item":"desk","status":"delivered"}' },
            { id: "call_1", name: "lookup_order", content: '{"item":"lamp","status":"delivered"}' },
          ],
        },
      ],
    },
    {
      inputs: { question: "Where is A-1042?" },
      outputs: { result: "stuck at the carrier" },
      steps: [
        { text: "", toolCalls: [{ id: "call_1", name: "lookup_order", input: { order_id: "A-1042" } }], results: [{ id: "call_1", name: "lookup_order", content: '{"item":"kettle","status":"stuck at the carrier"}' }] },
        { text: "", toolCalls: [{ id: "call_1", name: "lookup_order", input: { order_id: "A-1043" } }], results: [{ id: "call_1", name: "lookup_order", content: '{"error":"no order A-1043"}', isError: true }] },
      ],
    },
    { inputs: { question: "Where is C-3301?" }, outputs: { result: "in the warehouse" } },
  ],
};

let server: MockServer;
beforeEach(async () => {
  server = await mockServer();
});
afterEach(async () => {
  await server.close();
});

type Json = Record<string, any>;

/** OpenAI's rule: each assistant tool call answered by a tool message right after it; no tool message answers nothing. */
function checkOpenAIPairing(messages: Json[]): string[] {
  const ids: string[] = [];
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role === "tool") throw new Error(`tool message ${i} answers no call just before it`);
    if (m.role !== "assistant" || !m.tool_calls) continue;
    const asked: string[] = m.tool_calls.map((c: Json) => c.id);
    const answered: string[] = [];
    while (messages[i + 1]?.role === "tool") answered.push(messages[++i]!.tool_call_id);
    expect(answered.sort()).toEqual([...asked].sort());
    ids.push(...asked);
  }
  return ids;
}

/** Anthropic's rule: each assistant tool_use answered by a tool_result in the very next user message. */
function checkAnthropicPairing(messages: Json[]): string[] {
  const ids: string[] = [];
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    const blocks: Json[] = typeof m.content === "string" ? [] : m.content;
    if (m.role === "user") {
      for (const b of blocks.filter((b) => b.type === "tool_result")) {
        const before: Json[] = typeof messages[i - 1]?.content === "string" ? [] : (messages[i - 1]?.content ?? []);
        expect(before.some((p) => p.type === "tool_use" && p.id === b.tool_use_id), `tool_result ${b.tool_use_id} answers a call just before`).toBe(true);
      }
      continue;
    }
    const uses = blocks.filter((b) => b.type === "tool_use").map((b) => b.id as string);
    if (uses.length === 0) continue;
    const next = messages[i + 1]!;
    expect(next.role).toBe("user");
    expect((next.content as Json[]).filter((b) => b.type === "tool_result").map((b) => b.tool_use_id).sort()).toEqual([...uses].sort());
    ids.push(...uses);
  }
  expect(messages.map((m) => m.role)).toEqual(messages.map((_, i) => (i % 2 === 0 ? "user" : "assistant")));
  return ids;
}

describe("worked examples on the wire", () => {
  it("openai: every example call paired with its result, ids unique, examples before the live question", async () => {
    server.reply({ json: fixtureJson("openai/text.json") });
    const lm = openai({ model: "gpt-4.1-mini", apiKey: "test-key", baseURL: `${server.url}/v1` });
    const shown = status.withState(JSON.parse(JSON.stringify(saved)) as AIState);
    expect(await shown("Where is D-4410?", { lm })).toBe("Order A-1042 shipped on Monday.");
    expect(server.requests).toHaveLength(1);
    const messages = server.requests[0]!.body.messages as Json[];
    const ids = checkOpenAIPairing(messages);
    expect(ids).toHaveLength(4);
    expect(new Set(ids).size).toBe(4);
    expect(messages.map((m) => m.role)).toEqual([
      "system", "user", "assistant", "tool", "tool", "assistant", "user", "assistant", "tool", "assistant", "tool", "assistant", "user", "assistant", "user",
    ]);
    // results follow their calls by id even when recorded out of order
    expect(messages[3]).toMatchObject({ tool_call_id: messages[2]!.tool_calls[0].id, content: '{"item":"lamp","status":"delivered"}' });
    expect(messages[2]!.content).toBe("Looking both up.");
    expect(messages.at(-1)!.content).toBe("<question>\nWhere is D-4410?\n</question>");
  });

  it("anthropic: tool_use ids matched by tool_result blocks in the next user message, roles alternating", async () => {
    server.reply({ json: fixtureJson("anthropic/text.json") });
    const lm = anthropic({ model: "claude-haiku-4-5", apiKey: "test-key", baseURL: server.url });
    const shown = status.withState(saved);
    expect(await shown("Where is D-4410?", { lm })).toBe("Order A-1042 shipped on Monday.");
    expect(server.requests).toHaveLength(1);
    const messages = server.requests[0]!.body.messages as Json[];
    const ids = checkAnthropicPairing(messages);
    expect(ids).toHaveLength(4);
    expect(new Set(ids).size).toBe(4);
    for (const id of ids) expect(id).toMatch(/^[a-zA-Z0-9_-]+$/);
    const errored = (messages[8]!.content as Json[]).find((b) => b.type === "tool_result");
    expect(errored).toMatchObject({ is_error: true, content: '{"error":"no order A-1043"}' });
    expect(messages.at(-1)!.content).toBe("<question>\nWhere is D-4410?\n</question>");
  });
});
