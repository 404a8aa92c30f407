/**
 * hunt 134: tool call ids an OpenAI-compatible server gives, or does not.
 *
 * Some local servers leave a call's id out; such a call got `call_${i}`
 * (its index), which can be the explicit id of another call of the same
 * reply (`[{no id}, {id: "call_0"}]`: two calls named `call_0`). And a
 * server may repeat an id itself across the calls of one reply. The engine
 * runs each call (its records are keyed by the call's place, not its id)
 * and answers each with a tool message naming the id: two results naming
 * one id, which OpenAI refuses on the next request ("Invalid parameter:
 * Duplicate value for 'tool_call_id' of 'call_0' in messages[4] and
 * messages[5]."), and which leaves a local server's model two results it
 * cannot tell apart. Now an id made for a call is none of its reply's
 * other ids, and the next request sends a reply's calls that share an id
 * under ids of their own, each result beside its own call (Anthropic
 * already did: its ids must be unique in the whole request). Calls of
 * different replies that share an id are sent as they were to OpenAI (its
 * results are told apart by the message they follow).
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, tool } from "../../src/index.js";
import type { LMRequest, ToolSpec } from "../../src/lm/types.js";
import { chunkEvent, completion, usageEvent } from "./fixtures/hunt51-wire.js";
import { modelsOver, streamed } from "./fixtures/models.js";
import { type MockServer, type Recorded, type Reply, eachTestServer } from "./server.js";

let server: MockServer;
eachTestServer((s) => (server = s));
const { gpt } = modelsOver(() => server, { gpt: "qwen2.5:7b", apiKey: "none", maxRetries: 0 });

const lookupSpec: ToolSpec = {
  name: "lookup_order",
  description: "The order's status.",
  parameters: { type: "object", properties: { order_id: { type: "string" } }, required: ["order_id"] },
};
const ask: LMRequest = { messages: [{ role: "user", content: "<question>\nWhere are A-1042 and A-1043?\n</question>" }], tools: [lookupSpec] };

/** A call as a local server sends it: its id left out where it is undefined. */
const wireCall = (order: string, id?: string) => ({
  ...(id !== undefined ? { id } : {}),
  type: "function",
  function: { name: "lookup_order", arguments: JSON.stringify({ order_id: order }) },
});
const wholeCalls = (calls: ReturnType<typeof wireCall>[]): Reply => ({ json: completion({ tool_calls: calls }, "tool_calls", "qwen2.5:7b") });
/** The same calls streamed, each call's id (if any) in its first delta, as llama.cpp and Ollama stream them. */
const streamedCalls = (calls: ReturnType<typeof wireCall>[]): Reply => ({
  sse:
    chunkEvent({ role: "assistant", content: null }, null, "qwen2.5:7b") +
    calls.map((c, index) => chunkEvent({ tool_calls: [{ index, ...c }] }, null, "qwen2.5:7b")).join("") +
    chunkEvent({}, "tool_calls", "qwen2.5:7b") +
    usageEvent(40, 22, "qwen2.5:7b") +
    "data: [DONE]\n\n",
});

const FINAL: Reply = { json: completion({ content: "<result>\nBoth shipped.\n</result>" }, "stop", "qwen2.5:7b") };

/** OpenAI's check of a request's tool messages: each answers a call of the message before, no two the same id. */
function openaiChecks(request: Recorded): Reply {
  const messages = request.body.messages as { role: string; tool_calls?: { id: string }[]; tool_call_id?: string }[];
  let asked: string[] = [];
  const answered = new Map<string, number>();
  for (const [i, m] of messages.entries()) {
    if (m.role === "assistant") {
      asked = (m.tool_calls ?? []).map((c) => c.id);
      answered.clear();
    }
    if (m.role !== "tool") continue;
    const id = m.tool_call_id ?? "";
    const error = (message: string, param: string): Reply => ({
      status: 400,
      json: { error: { message, type: "invalid_request_error", param, code: null } },
    });
    if (!asked.includes(id))
      return error(
        "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
        `messages.[${i}].role`,
      );
    const before = answered.get(id);
    if (before !== undefined)
      return error(
        `Invalid parameter: Duplicate value for 'tool_call_id' of '${id}' in messages[${before}] and messages[${i}].`,
        `messages.[${i}].tool_call_id`,
      );
    answered.set(id, i);
  }
  return FINAL;
}

const statuses: Record<string, string> = { "A-1042": "shipped", "A-1043": "packed" };
const lookup = tool("lookup_order", { description: "The order's status.", input: { order_id: z.string() }, effects: "reads" }, ({ order_id }) => ({
  order_id,
  status: statuses[order_id],
}));
const answer = ai("answer", { description: "Answer the customer's question.", input: { question: z.string() }, tools: [lookup] });

/** The next request's calls and results: each result's id, and the order its call asked for. */
function pairs(request: Recorded): { ids: string[]; results: { id: string; order: string | undefined; content: string }[] } {
  const messages = request.body.messages as {
    role: string;
    tool_calls?: { id: string; function: { arguments: string } }[];
    tool_call_id?: string;
    content: string;
  }[];
  const calls = messages.flatMap((m) => m.tool_calls ?? []);
  const orderOf = (id: string) => (JSON.parse(calls.find((c) => c.id === id)?.function.arguments ?? "{}") as { order_id?: string }).order_id;
  return {
    ids: calls.map((c) => c.id),
    results: messages.filter((m) => m.role === "tool").map((m) => ({ id: m.tool_call_id!, order: orderOf(m.tool_call_id!), content: m.content })),
  };
}

describe("a call the server gave no id gets one no other call of its reply has", () => {
  const calls = [wireCall("A-1042"), wireCall("A-1043", "call_0")];
  for (const [how, reply, options] of [
    ["whole", wholeCalls(calls), {}],
    ["streamed", streamedCalls(calls), streamed],
  ] as const) {
    it(`${how}: [{no id}, {id: "call_0"}] are two ids, the explicit one kept`, async () => {
      server.reply(reply);
      const got = await gpt().generate(ask, options);
      expect(got.toolCalls.map((c) => c.input)).toEqual([{ order_id: "A-1042" }, { order_id: "A-1043" }]);
      const [made, kept] = got.toolCalls.map((c) => c.id);
      expect(kept).toBe("call_0");
      expect(made).not.toBe("call_0");
      expect(made).toMatch(/^call_/);
    });
  }

  it("through the tool loop: the next request pairs each result with its own call, and OpenAI's checks take it", async () => {
    server.reply(streamedCalls(calls), { by: openaiChecks });
    await expect(answer("Where are A-1042 and A-1043?", { lm: gpt() })).resolves.toBe("Both shipped.");
    const { ids, results } = pairs(server.requests[1]!);
    expect(new Set(ids).size).toBe(2);
    for (const r of results) expect(r.content).toContain(r.order!);
  });
});

describe("a server that gives two calls of one reply the same id", () => {
  for (const [how, make] of [
    ["whole", wholeCalls],
    ["streamed", streamedCalls],
  ] as const) {
    it(`${how}: the next request sends them under two ids, each result beside its own call`, async () => {
      server.reply(make([wireCall("A-1042", "call_0"), wireCall("A-1043", "call_0")]), { by: openaiChecks });
      await expect(answer("Where are A-1042 and A-1043?", { lm: gpt() })).resolves.toBe("Both shipped.");
      const { ids, results } = pairs(server.requests[1]!);
      expect(ids[0]).toBe("call_0"); // (an id the provider takes, the first time it comes, is sent as it is)
      expect(new Set(ids).size).toBe(2);
      expect(results.map((r) => r.order)).toEqual(["A-1042", "A-1043"]);
      for (const r of results) expect(r.content).toContain(r.order!);
    });
  }
});
