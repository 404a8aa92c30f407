/**
 * A reply cut off before its end (its length limit, or a refusal / content
 * filter) may have cut its last tool call's input. Anthropic's whole
 * message then holds the input parsed from what came (valid JSON, the rest
 * missing), and a compatible server may close the JSON itself: such a call
 * must never run as if whole.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, tool } from "../../src/index.js";
import type { LMRequest, ToolSpec } from "../../src/lm/types.js";
import { claudeSse as claudeEvents } from "./anthropic-sse.js";
import { chatCompletion } from "./fixtures/hunt51-wire.js";
import { modelsOver } from "./fixtures/models.js";
import { type MockServer, eachTestServer } from "./server.js";

const refund: ToolSpec = {
  name: "refund",
  description: "Refund an order.",
  parameters: { type: "object", properties: { order_id: { type: "string" }, reason: { type: "string" } }, required: ["order_id"] },
};
const ask: LMRequest = { messages: [{ role: "user", content: "<question>\nRefund A-1042 and B-2210\n</question>" }], tools: [refund] };

let server: MockServer;
eachTestServer((s) => (server = s));
const { gpt, claude } = modelsOver(() => server, { gpt: "gpt-4.1-mini", claude: "claude-haiku-4-5", apiKey: "test-key", maxRetries: 0 });

/** A desk whose changing `refund` tool says what it was run with (`refunded`): a cut-off call must never reach it. */
function refundDesk() {
  const refunded: unknown[] = [];
  const refundTool = tool(
    "refund",
    { description: "Refund an order.", input: { order_id: z.string(), reason: z.string().optional() }, effects: "changes" },
    (input) => {
      refunded.push(input);
      return "refunded";
    },
  );
  return { refunded, desk: ai("desk", { description: "Handle refunds.", input: { question: z.string() }, tools: [refundTool] }) };
}

const usage = { input_tokens: 40, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 64 };
const claudeMessage = (content: unknown[], stop_reason: string) => ({
  id: "msg_cut",
  type: "message",
  role: "assistant",
  model: "claude-haiku-4-5-20251001",
  content,
  stop_reason,
  stop_sequence: null,
  usage,
});
const useA = { type: "tool_use", id: "toolu_A", name: "refund", input: { order_id: "A-1042", reason: "late" } };
// what came of B's input before the cut: the order, not yet the reason
const useB = { type: "tool_use", id: "toolu_B", name: "refund", input: { order_id: "B-2210" } };

const claudeSse = (blocks: { start: unknown; json?: string[] }[], stop_reason: string): string => {
  const events: unknown[] = [{ type: "message_start", message: { ...claudeMessage([], stop_reason), stop_reason: null } }];
  blocks.forEach(({ start, json }, index) => {
    events.push({ type: "content_block_start", index, content_block: start });
    for (const partial_json of json ?? []) events.push({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json } });
    events.push({ type: "content_block_stop", index });
  });
  events.push({ type: "message_delta", delta: { stop_reason, stop_sequence: null }, usage: { output_tokens: 64 } });
  events.push({ type: "message_stop" });
  return claudeEvents(events);
};

const completion = (tool_calls: unknown[], finish_reason: string) => ({
  id: "chatcmpl-cut",
  object: "chat.completion",
  created: 1764400000,
  model: "gpt-4.1-mini-2025-04-14",
  choices: [{ index: 0, message: { role: "assistant", content: null, tool_calls, refusal: null }, logprobs: null, finish_reason }],
  usage: { prompt_tokens: 40, completion_tokens: 64, total_tokens: 104 },
});
const callA = { id: "call_A", type: "function", function: { name: "refund", arguments: '{"order_id":"A-1042","reason":"late"}' } };
const callB = { id: "call_B", type: "function", function: { name: "refund", arguments: '{"order_id":"B-2210"}' } };

describe("a reply cut off mid tool call: its last call is not taken as whole", () => {
  it("anthropic, whole message, stop_reason max_tokens: the last tool_use is marked, the one before is kept", async () => {
    server.reply({ json: claudeMessage([{ type: "text", text: "Refunding both." }, useA, useB], "max_tokens") });
    const res = await claude().generate(ask);
    expect(res.finishReason).toBe("length");
    expect(res.toolCalls[0]).toEqual({ id: "toolu_A", name: "refund", input: useA.input });
    expect(res.toolCalls[1]).toMatchObject({ id: "toolu_B", name: "refund" });
    expect(res.toolCalls[1]!.inputError).toMatch(/cut off/);
  });

  it("anthropic, streamed, stop_reason max_tokens or refusal: the last tool_use is marked", async () => {
    for (const reason of ["max_tokens", "refusal"]) {
      server.reply({
        sse: claudeSse(
          [
            { start: { ...useA, input: {} }, json: ['{"order_id": "A-1042", "reason": "late"}'] },
            { start: { ...useB, input: {} }, json: ['{"order_id": "B-2210"}'] },
          ],
          reason,
        ),
      });
      const res = await claude().generate(ask, { onText: () => {} });
      expect(res.toolCalls[0]).toEqual({ id: "toolu_A", name: "refund", input: useA.input });
      expect(res.toolCalls[1]!.inputError).toMatch(/cut off/);
    }
  });

  it("anthropic: a text block after the last tool_use was what the cut hit; the calls are whole", async () => {
    server.reply({ json: claudeMessage([useA, useB, { type: "text", text: "Both are on their wa" }], "max_tokens") });
    const res = await claude().generate(ask);
    expect(res.toolCalls.map((c) => c.inputError)).toEqual([undefined, undefined]);
  });

  it("a reply that ended as it should (tool_use, tool_calls) is untouched", async () => {
    server.reply({ json: claudeMessage([useA, useB], "tool_use") }, { json: completion([callA, callB], "tool_calls") });
    expect((await claude().generate(ask)).toolCalls.map((c) => c.inputError)).toEqual([undefined, undefined]);
    expect((await gpt().generate(ask)).toolCalls.map((c) => c.inputError)).toEqual([undefined, undefined]);
  });

  it("openai, finish_reason length, whole and streamed: the last tool call is marked", async () => {
    server.reply({ json: completion([callA, callB], "length") });
    const res = await gpt().generate(ask);
    expect(res.finishReason).toBe("length");
    expect(res.toolCalls[0]).toEqual({ id: "call_A", name: "refund", input: { order_id: "A-1042", reason: "late" } });
    expect(res.toolCalls[1]!.inputError).toMatch(/cut off/);

    const chunk = (delta: unknown, finish_reason: string | null = null) =>
      `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 1, model: "gpt-4.1-mini", choices: [{ index: 0, delta, finish_reason }] })}\n\n`;
    server.reply({
      sse:
        chunk({ role: "assistant", content: null, tool_calls: [{ index: 0, ...callA }] }) +
        chunk({ tool_calls: [{ index: 1, ...callB }] }) +
        chunk({}, "length") +
        "data: [DONE]\n\n",
    });
    const streamed = await gpt().generate(ask, { onText: () => {} });
    expect(streamed.toolCalls[0]!.inputError).toBeUndefined();
    expect(streamed.toolCalls[1]!.inputError).toMatch(/cut off/);
  });

  it("end to end: the cut-off call to a changing tool does not run; the model is told why", async () => {
    const { refunded, desk } = refundDesk();
    server.reply(
      { json: claudeMessage([useA, useB], "max_tokens") },
      { json: claudeMessage([{ type: "text", text: "<result>\nA-1042 refunded; B-2210 needs another try.\n</result>" }], "end_turn") },
    );
    await desk("Refund A-1042 and B-2210", { lm: claude(), approve: () => true });
    expect(refunded).toEqual([{ order_id: "A-1042", reason: "late" }]);
    const results = (server.requests[1]!.body.messages as { role: string; content: unknown }[]).at(-1)!.content as {
      type: string;
      tool_use_id: string;
      content: string;
    }[];
    expect(results.find((r) => r.tool_use_id === "toolu_B")!.content).toMatch(/cut off/);
  });
});

/**
 * hunt 160: the cut falls inside the last call's arguments, as it does where
 * a long input meets the length limit: what came is no JSON. The call never
 * ran, but the model was told "The arguments are not valid JSON (Unterminated
 * string …)": that it wrote them wrong, where they were cut off. Told so, it
 * writes the same long call again, to be cut again; it is now told the reply
 * was cut off, as for a call whose cut input happens to be JSON.
 */
describe("a reply cut off inside a call's arguments: the model is told it was cut off, not that its JSON is wrong", () => {
  const cutB = { ...callB, function: { name: "refund", arguments: '{"order_id":"B-2210","reason":"the parcel came back da' } };

  it("openai, finish_reason length, whole and streamed (the usage after it in a chunk of no choices)", async () => {
    server.reply({ json: completion([callA, cutB], "length") });
    const whole = await gpt().generate(ask);
    expect(whole.toolCalls[0]!.inputError).toBeUndefined();
    expect(whole.toolCalls[1]).toMatchObject({ id: "call_B", name: "refund", input: cutB.function.arguments });
    expect(whole.toolCalls[1]!.inputError).toMatch(/cut off/);

    const chunk = (choices: unknown[], usage?: unknown) =>
      `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 1, model: "gpt-4.1-mini", choices, ...(usage ? { usage } : {}) })}\n\n`;
    const args = cutB.function.arguments;
    server.reply({
      sse:
        chunk([{ index: 0, delta: { role: "assistant", content: null, tool_calls: [{ index: 0, ...callA }] }, finish_reason: null }]) +
        chunk([
          {
            index: 0,
            delta: { tool_calls: [{ index: 1, id: "call_B", type: "function", function: { name: "refund", arguments: "" } }] },
            finish_reason: null,
          },
        ]) +
        chunk([{ index: 0, delta: { tool_calls: [{ index: 1, function: { arguments: args.slice(0, 20) } }] }, finish_reason: null }]) +
        chunk([{ index: 0, delta: { tool_calls: [{ index: 1, function: { arguments: args.slice(20) } }] }, finish_reason: null }]) +
        chunk([{ index: 0, delta: {}, finish_reason: "length" }]) +
        chunk([], { prompt_tokens: 40, completion_tokens: 64, total_tokens: 104 }) +
        "data: [DONE]\n\n",
    });
    const streamed = await gpt().generate(ask, { onText: () => {} });
    expect(streamed.usage).toEqual({ inputTokens: 40, outputTokens: 64 });
    expect(streamed.toolCalls[0]!.inputError).toBeUndefined();
    expect(streamed.toolCalls[1]).toMatchObject({ id: "call_B", name: "refund", input: args });
    expect(streamed.toolCalls[1]!.inputError).toMatch(/cut off/);
  });

  it("anthropic, streamed, stop_reason max_tokens inside the last tool_use's input_json_delta", async () => {
    server.reply({
      sse: claudeSse(
        [
          { start: { ...useA, input: {} }, json: ['{"order_id": "A-1042", "reason": "late"}'] },
          { start: { ...useB, input: {} }, json: ['{"order_id": "B-2210", ', '"reason": "the parcel came back da'] },
        ],
        "max_tokens",
      ),
    });
    const res = await claude().generate(ask, { onText: () => {} });
    expect(res.toolCalls[0]).toEqual({ id: "toolu_A", name: "refund", input: useA.input });
    expect(res.toolCalls[1]).toMatchObject({ id: "toolu_B", input: '{"order_id": "B-2210", "reason": "the parcel came back da' });
    expect(res.toolCalls[1]!.inputError).toMatch(/cut off/);
  });

  it("end to end, openai: the cut call does not run; the tool message the model is sent next says it was cut off", async () => {
    const { refunded, desk } = refundDesk();
    server.reply(
      { json: completion([callA, cutB], "length") },
      { json: chatCompletion("<result>\nA-1042 refunded; B-2210 needs another try.\n</result>", { model: "gpt-4.1-mini", usage: [60, 20] }) },
    );
    await desk("Refund A-1042 and B-2210", { lm: gpt(), approve: () => true });
    expect(refunded).toEqual([{ order_id: "A-1042", reason: "late" }]);
    const told = (server.requests[1]!.body.messages as { role: string; tool_call_id?: string; content: string }[]).find(
      (m) => m.role === "tool" && m.tool_call_id === "call_B",
    );
    expect(told?.content).toMatch(/cut off/);
    expect(told?.content).not.toMatch(/not valid JSON/);
  });
});
