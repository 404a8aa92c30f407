/**
 * One conversation continued on another provider: the history keeps the tool
 * call ids (and names) the first model gave, and the next provider may refuse
 * them. The mock servers here check what they are sent as the real APIs do,
 * and answer a refused request with the real API's 400.
 *
 * The rules, as the APIs state them in their errors:
 * - Anthropic: `messages.1.content.1.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'`;
 *   `messages.5.content.1: \`tool_use\` ids must be unique`; a `tool_result` must answer a
 *   `tool_use` of the message before it.
 * - OpenAI: `Invalid 'messages[10].tool_calls[0].id': string too long. Expected a string with
 *   maximum length 40, …` (code `string_above_max_length`); `Invalid
 *   'messages[9].tool_calls[0].function.name': string does not match pattern. Expected a string
 *   that matches the pattern '^[a-zA-Z0-9_-]+$'.` (code `invalid_value`).
 */
import { describe, expect, it } from "vitest";
import type { LMRequest, LMResponse, Message, ToolSpec } from "../../src/lm/types.js";
import { openai } from "../../src/providers/openai.js";
import { modelsOver } from "./fixtures/models.js";
import { eachTestServer, type MockServer, type Recorded, type Reply } from "./server.js";

const lookupOrder: ToolSpec = {
  name: "lookup_order",
  description: "The order's item and shipping status.",
  parameters: { type: "object", properties: { order_id: { type: "string" } }, required: ["order_id"] },
};
const START: Message[] = [
  { role: "system", content: "Function: answer\n\nAnswer the customer's question." },
  { role: "user", content: "<question>\nWhere are A-1042 and A-1043?\n</question>" },
];

let server: MockServer;
eachTestServer((s) => (server = s));
const local = () => openai({ model: "qwen2.5", apiKey: "none", baseURL: `${server.url}/v1` });
const { gpt, claude } = modelsOver(() => server, { gpt: "gpt-4.1-mini", claude: "claude-haiku-4-5", apiKey: "test-key", maxRetries: 0 });

/** A local server's completion with these tool calls (an id left out where it is undefined, as some servers do). */
const completion = (calls: { id?: string; name: string; order: string }[]): Reply => ({
  json: {
    id: "chatcmpl-local",
    object: "chat.completion",
    created: 1764400001,
    model: "qwen2.5",
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: null,
          tool_calls: calls.map((c) => ({
            ...(c.id !== undefined ? { id: c.id } : {}),
            type: "function",
            function: { name: c.name, arguments: JSON.stringify({ order_id: c.order }) },
          })),
        },
        finish_reason: "tool_calls",
      },
    ],
    usage: { prompt_tokens: 50, completion_tokens: 20, total_tokens: 70 },
  },
});

/** The history after a reply: the assistant's calls, then one result per call (as the tool loop writes them). */
const continued = (messages: Message[], reply: LMResponse): Message[] => [
  ...messages,
  { role: "assistant", content: reply.text, toolCalls: reply.toolCalls },
  ...reply.toolCalls.map((c): Message => ({ role: "tool", toolCallId: c.id, name: c.name, content: `{"order":${JSON.stringify(c.input)},"status":"shipped"}` })),
];

/** Two steps on the local server, whose replies carry these calls; the history after both. */
async function localHistory(first: Reply, second: Reply): Promise<Message[]> {
  server.reply(first, second);
  const lm = local();
  const one = await lm.generate({ messages: START, tools: [lookupOrder] });
  const afterOne = continued(START, one);
  const two = await lm.generate({ messages: afterOne, tools: [lookupOrder] });
  return continued(afterOne, two);
}

type Block = { type: string; id?: string; tool_use_id?: string; input?: { order_id?: string }; content?: unknown };
const blocks = (content: unknown): Block[] => (Array.isArray(content) ? (content as Block[]) : []);

const ANTHROPIC_OK: Reply = {
  json: {
    id: "msg_01FxText0000000000000001",
    type: "message",
    role: "assistant",
    model: "claude-haiku-4-5-20251001",
    content: [{ type: "text", text: "<result>\nBoth shipped.\n</result>" }],
    stop_reason: "end_turn",
    stop_sequence: null,
    usage: { input_tokens: 31, output_tokens: 11 },
  },
};
const anthropic400 = (message: string): Reply => ({
  status: 400,
  json: { type: "error", error: { type: "invalid_request_error", message }, request_id: "req_011CXTCxRaPDNqHNnZnGMEUb" },
});

/** Anthropic's checks of tool ids: the pattern, uniqueness in the request, and each result answering the message before. */
function anthropicChecks(request: Recorded): Reply {
  const messages = request.body.messages as { role: string; content: unknown }[];
  const seen = new Set<string>();
  for (const [i, m] of messages.entries()) {
    for (const [j, b] of blocks(m.content).entries()) {
      if (b.type === "tool_use") {
        if (!/^[a-zA-Z0-9_-]+$/.test(b.id ?? "")) return anthropic400(`messages.${i}.content.${j}.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'`);
        if (seen.has(b.id!)) return anthropic400(`messages.${i}.content.${j}: \`tool_use\` ids must be unique`);
        seen.add(b.id!);
      }
      if (b.type === "tool_result") {
        const asked = blocks(messages[i - 1]?.content).flatMap((p) => (p.type === "tool_use" ? [p.id] : []));
        if (!asked.includes(b.tool_use_id))
          return anthropic400(
            `messages.${i}.content.${j}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${b.tool_use_id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
          );
      }
    }
  }
  return ANTHROPIC_OK;
}

const OPENAI_OK: Reply = {
  json: {
    id: "chatcmpl-fx-text-001",
    object: "chat.completion",
    created: 1764400000,
    model: "gpt-4.1-mini-2025-04-14",
    choices: [{ index: 0, message: { role: "assistant", content: "<result>\nBoth shipped.\n</result>", refusal: null }, finish_reason: "stop" }],
    usage: { prompt_tokens: 80, completion_tokens: 9, total_tokens: 89 },
  },
};
const openai400 = (message: string, param: string, code: string | null): Reply => ({
  status: 400,
  json: { error: { message, type: "invalid_request_error", param, code } },
});

interface ChatCall {
  id: string;
  function: { name: string };
}
/** OpenAI's checks: a call id at most 40 long, a call's name matching the pattern, each tool message answering the calls before it. */
function openaiChecks(request: Recorded): Reply {
  const messages = request.body.messages as { role: string; tool_calls?: ChatCall[]; tool_call_id?: string }[];
  let asked: string[] = [];
  for (const [i, m] of messages.entries()) {
    for (const [j, c] of (m.tool_calls ?? []).entries()) {
      if (c.id.length > 40) {
        const message = `Invalid 'messages[${i}].tool_calls[${j}].id': string too long. Expected a string with maximum length 40, but got a string with length ${c.id.length} instead.`;
        return openai400(message, `messages[${i}].tool_calls[${j}].id`, "string_above_max_length");
      }
      if (!/^[a-zA-Z0-9_-]+$/.test(c.function.name)) {
        const message = `Invalid 'messages[${i}].tool_calls[${j}].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`;
        return openai400(message, `messages[${i}].tool_calls[${j}].function.name`, "invalid_value");
      }
    }
    if (m.role === "assistant") asked = (m.tool_calls ?? []).map((c) => c.id);
    if (m.role === "tool" && !asked.includes(m.tool_call_id ?? "")) {
      const message = "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.";
      return openai400(message, `messages.[${i}].role`, null);
    }
  }
  return OPENAI_OK;
}

const anthropicIds = (request: Recorded): { uses: string[]; results: string[] } => {
  const all = (request.body.messages as { content: unknown }[]).flatMap((m) => blocks(m.content));
  return {
    uses: all.flatMap((b) => (b.type === "tool_use" ? [b.id!] : [])),
    results: all.flatMap((b) => (b.type === "tool_result" ? [b.tool_use_id!] : [])),
  };
};

describe("a conversation started on an OpenAI-compatible server, continued on Anthropic", () => {
  it("sends ids Anthropic refuses (a colon, a dot, left out) as ids it takes, each result still beside its call", async () => {
    // Kimi-style ids ("functions.name:0"), and a call the server gave no id (read as call_1)
    const history = await localHistory(
      completion([
        { id: "functions.lookup_order:0", name: "lookup_order", order: "A-1042" },
        { name: "lookup_order", order: "A-1043" },
      ]),
      completion([{ id: "functions.lookup_order:0", name: "lookup_order", order: "A-1044" }]),
    );
    const kept = structuredClone(history);
    server.reply({ by: anthropicChecks });
    const reply = await claude().generate({ messages: history, tools: [lookupOrder] });

    expect(reply.text).toContain("Both shipped.");
    // only the wire request changes: the history (what the journal keeps and request keys are made from) does not
    expect(history).toEqual(kept);
    expect(history.flatMap((m) => (m.role === "assistant" ? (m.toolCalls ?? []).map((c) => c.id) : []))).toEqual(["functions.lookup_order:0", "call_1", "functions.lookup_order:0"]);
    const { uses, results } = anthropicIds(server.requests.at(-1)!);
    expect(uses).toHaveLength(3);
    expect(new Set(uses).size).toBe(3);
    for (const id of uses) expect(id).toMatch(/^[a-zA-Z0-9_-]+$/);
    // each result answers its own call, in order
    expect(results).toEqual(uses);
    // an id Anthropic takes, the first time it comes, is sent as it is
    expect(uses[1]).toBe("call_1");
  });

  it("sends the same id in every reply (a local server's call_0) once each", async () => {
    const history = await localHistory(
      completion([{ id: "call_0", name: "lookup_order", order: "A-1042" }]),
      completion([{ id: "call_0", name: "lookup_order", order: "A-1043" }]),
    );
    server.reply({ by: anthropicChecks });
    const reply = await claude().generate({ messages: history, tools: [lookupOrder] });

    expect(reply.finishReason).toBe("stop");
    const { uses, results } = anthropicIds(server.requests.at(-1)!);
    expect(uses[0]).toBe("call_0");
    expect(uses[1]).not.toBe("call_0");
    expect(results).toEqual(uses);
  });

  it("pairs results with calls of one reply that share an id, in order", async () => {
    const history = await localHistory(
      completion([
        { id: "0", name: "lookup_order", order: "A-1042" },
        { id: "0", name: "lookup_order", order: "A-1043" },
      ]),
      completion([{ id: "0", name: "lookup_order", order: "A-1044" }]),
    );
    server.reply({ by: anthropicChecks });
    await claude().generate({ messages: history, tools: [lookupOrder] });

    const sent = server.requests.at(-1)!.body.messages as { content: unknown }[];
    const uses = sent.flatMap((m) => blocks(m.content)).filter((b) => b.type === "tool_use");
    const results = sent.flatMap((m) => blocks(m.content)).filter((b) => b.type === "tool_result");
    expect(new Set(uses.map((u) => u.id)).size).toBe(3);
    expect(results).toHaveLength(3);
    // the result naming an order answers the call that asked for that order
    for (const r of results) expect(r.content).toContain(uses.find((u) => u.id === r.tool_use_id)!.input!.order_id);
  });

  it("sends the same history as the same bytes, and leaves ids Anthropic takes as they are", async () => {
    const odd = await localHistory(
      completion([{ id: "call:7", name: "lookup_order", order: "A-1042" }]),
      completion([{ id: "call_7", name: "lookup_order", order: "A-1043" }]),
    );
    server.reply({ by: anthropicChecks }, { by: anthropicChecks });
    const lm = claude();
    await lm.generate({ messages: odd, tools: [lookupOrder] });
    await lm.generate({ messages: odd, tools: [lookupOrder] });
    const [first, second] = server.requests.slice(-2);
    expect(JSON.stringify(second!.body)).toBe(JSON.stringify(first!.body));
    // the made id does not take the id a later call already has
    expect(anthropicIds(first!).uses).toEqual([expect.not.stringMatching(/^call_7$/), "call_7"]);

    const plain: Message[] = [
      ...START,
      { role: "assistant", content: "", toolCalls: [{ id: "toolu_01A09q90qw90lq917835lq9", name: "lookup_order", input: { order_id: "A-1042" } }] },
      { role: "tool", toolCallId: "toolu_01A09q90qw90lq917835lq9", name: "lookup_order", content: "shipped" },
    ];
    server.reply({ by: anthropicChecks });
    await lm.generate({ messages: plain, tools: [lookupOrder] });
    expect(anthropicIds(server.requests.at(-1)!)).toEqual({ uses: ["toolu_01A09q90qw90lq917835lq9"], results: ["toolu_01A09q90qw90lq917835lq9"] });
  });

  it("reads a reply's new ids as Anthropic gives them", async () => {
    const history = await localHistory(
      completion([{ id: "call:0", name: "lookup_order", order: "A-1042" }]),
      completion([{ id: "call:1", name: "lookup_order", order: "A-1043" }]),
    );
    server.reply({
      by: (request) => {
        const checked = anthropicChecks(request);
        if (checked !== ANTHROPIC_OK) return checked;
        return {
          json: {
            ...(ANTHROPIC_OK as { json: Record<string, unknown> }).json,
            content: [{ type: "tool_use", id: "toolu_01D7FLrfh4GYq7yT1ULFeyMV", name: "lookup_order", input: { order_id: "A-1045" } }],
            stop_reason: "tool_use",
          },
        };
      },
    });
    const reply = await claude().generate({ messages: history, tools: [lookupOrder] });
    expect(reply.toolCalls).toEqual([{ id: "toolu_01D7FLrfh4GYq7yT1ULFeyMV", name: "lookup_order", input: { order_id: "A-1045" } }]);
  });
});

describe("a conversation started on an OpenAI-compatible server, continued on OpenAI", () => {
  it("sends ids longer than OpenAI's 40 characters (vLLM's chatcmpl-tool-<uuid>) shorter, paired", async () => {
    const long = "chatcmpl-tool-8a5f0c2e9b1d4e7fa3c6b2d1e0f9a8b7";
    const history = await localHistory(
      completion([{ id: long, name: "lookup_order", order: "A-1042" }]),
      completion([{ id: `${long.slice(0, -1)}c`, name: "lookup_order", order: "A-1043" }]),
    );
    server.reply({ by: openaiChecks });
    const reply = await gpt().generate({ messages: history, tools: [lookupOrder] });

    expect(reply.text).toContain("Both shipped.");
    const sent = server.requests.at(-1)!.body.messages as { tool_calls?: ChatCall[]; tool_call_id?: string }[];
    const ids = sent.flatMap((m) => (m.tool_calls ?? []).map((c) => c.id));
    expect(ids).toHaveLength(2);
    for (const id of ids) expect(id.length).toBeLessThanOrEqual(40);
    // two ids alike in their first 40 characters stay two ids
    expect(new Set(ids).size).toBe(2);
    expect(sent.flatMap((m) => (m.tool_call_id !== undefined ? [m.tool_call_id] : []))).toEqual(ids);
  });

  it("sends a call's name OpenAI refuses (a dot, none at all) as one it takes; the tools' names are untouched", async () => {
    const history = await localHistory(
      completion([{ id: "call_a", name: "functions.lookup_order", order: "A-1042" }]),
      completion([{ id: "call_b", name: "", order: "A-1043" }]),
    );
    server.reply({ by: openaiChecks });
    const reply = await gpt().generate({ messages: history, tools: [lookupOrder] });

    expect(reply.finishReason).toBe("stop");
    const body = server.requests.at(-1)!.body;
    const names = (body.messages as { tool_calls?: ChatCall[] }[]).flatMap((m) => (m.tool_calls ?? []).map((c) => c.function.name));
    expect(names).toHaveLength(2);
    for (const name of names) expect(name).toMatch(/^[a-zA-Z0-9_-]+$/);
    expect((body.tools as { function: { name: string } }[]).map((t) => t.function.name)).toEqual(["lookup_order"]);
  });

  it("leaves a history OpenAI takes byte for byte as it was", async () => {
    const history = await localHistory(
      completion([{ id: "call:0", name: "lookup_order", order: "A-1042" }]),
      completion([{ id: "call:0", name: "lookup_order", order: "A-1043" }]),
    );
    server.reply({ by: openaiChecks });
    await gpt().generate({ messages: history, tools: [lookupOrder] });
    const sent = server.requests.at(-1)!.body.messages as { tool_calls?: ChatCall[]; tool_call_id?: string }[];
    // (OpenAI states no rule on these: they are sent as they were)
    expect(sent.flatMap((m) => (m.tool_calls ?? []).map((c) => c.id))).toEqual(["call:0", "call:0"]);
    expect(sent.flatMap((m) => (m.tool_call_id !== undefined ? [m.tool_call_id] : []))).toEqual(["call:0", "call:0"]);
  });
});

describe("a request the local servers were asked", () => {
  it("is as it was: the local server's own ids go back to it unchanged", async () => {
    await localHistory(
      completion([{ id: "functions.lookup_order:0", name: "lookup_order", order: "A-1042" }]),
      completion([{ id: "functions.lookup_order:0", name: "lookup_order", order: "A-1043" }]),
    );
    const second = server.requests[1]!.body.messages as { tool_calls?: ChatCall[]; tool_call_id?: string }[];
    expect(second.flatMap((m) => (m.tool_calls ?? []).map((c) => c.id))).toEqual(["functions.lookup_order:0"]);
    const request: LMRequest = { messages: START, tools: [lookupOrder] };
    expect(server.requests[0]!.body.messages).toEqual(request.messages.map((m) => ({ role: m.role, content: m.content })));
  });
});
