/**
 * Malformed replies in the real wire forms, through the real SDKs and the
 * whole tool loop (a conversation on a store): each is either told to the
 * model as the tool call's error (DESIGN: a model's call that cannot run is
 * answered, never run with a wrong input) or refused with a stable code;
 * never run as a tool with a wrong input, never taken as the answer. The
 * reply the journal keeps is the one that arrived, and a resume replays it
 * the same way (the model is told the same thing, nothing is paid twice).
 * The replies are the recorded real ones (fixtures/hunt4-wire) with one
 * thing broken each.
 */
import { mkdtempSync, readFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, memoryStore, type Store, Waiting } from "../../src/index.js";
import type { ConversationRecord } from "../../src/records/types.js";
import { CONVERSATION, hunt4Desk, wireLM } from "./fixtures/hunt4-desk.js";
import { fixture, fixtureJson, type MockServer, type Reply, eachTestServer } from "./server.js";

let server: MockServer;
eachTestServer((s) => (server = s));

const wireJson = <T = Record<string, unknown>>(name: string): T => structuredClone(fixtureJson(`hunt4-wire/${name}`)) as T;
const ranLines = (dir: string): string[] => (existsSync(join(dir, "ran")) ? readFileSync(join(dir, "ran"), "utf8").split("\n").filter(Boolean) : []);
const ofKind = (records: ConversationRecord[], kind: string) => records.filter((r) => r.kind === kind) as unknown as Record<string, unknown>[];

type OpenAICompletion = { choices: { finish_reason: string; message: { content: string | null; tool_calls?: Record<string, unknown>[] } }[] };
type AnthropicMessage = { stop_reason: string; content: Record<string, unknown>[] };

/** The recorded gpt-4.1-mini reply asking for get_temperature, its one call changed by `change`. */
function openaiCall(
  change: (call: { id?: string; type?: string; function: { name: string; arguments: unknown } }) => void,
  finish = "tool_calls",
): Reply {
  const body = wireJson<OpenAICompletion>("openai-chat-02-response-tool-calls.json");
  change(body.choices[0]!.message.tool_calls![0] as never);
  body.choices[0]!.finish_reason = finish;
  return { json: body };
}
/** The recorded claude-sonnet-4 reply asking for test_tool, its blocks changed by `change`. */
function anthropicCall(change: (content: Record<string, unknown>[]) => Record<string, unknown>[], stop = "tool_use"): Reply {
  const body = wireJson<AnthropicMessage>("anthropic-02-response-tool-use.json");
  body.content = change(body.content);
  body.stop_reason = stop;
  return { json: body };
}
const openaiFinal = wireJson<OpenAICompletion>("openai-chat-04-response-final.json");
const anthropicFinal = wireJson<AnthropicMessage>("anthropic-04-response-final.json");
const FINAL = { openai: openaiFinal.choices[0]!.message.content!, anthropic: anthropicFinal.content[0]!.text as string };
const finalReply = (provider: "openai" | "anthropic"): Reply => ({ json: provider === "openai" ? openaiFinal : anthropicFinal });

/** The tool results the second request told the model, as text (both wire forms). */
function toldInSecond(provider: "openai" | "anthropic"): string[] {
  const messages = server.requests[1]!.body.messages as { role: string; content: unknown; tool_call_id?: string }[];
  if (provider === "openai") return messages.filter((m) => m.role === "tool").map((m) => String(m.content));
  const last = messages.at(-1)!.content as { type: string; content: string; is_error?: boolean }[];
  return last.filter((b) => b.type === "tool_result").map((b) => `${b.is_error ? "(error) " : ""}${b.content}`);
}

interface Told {
  name: string;
  provider: "openai" | "anthropic";
  reply: Reply;
  /** What the model must be told of the call (its tool result). */
  told: RegExp;
}

const told: Told[] = [
  {
    name: "openai: arguments that are truncated JSON",
    provider: "openai",
    reply: openaiCall((c) => void (c.function.arguments = '{"city":"Tok')),
    told: /could not be read.*not valid JSON/,
  },
  {
    name: "openai: arguments that are a JSON array, not an object",
    provider: "openai",
    reply: openaiCall((c) => void (c.function.arguments = '["Tokyo"]')),
    told: /invalid input for get_temperature.*did not run/,
  },
  {
    name: "openai: arguments that are a JSON string",
    provider: "openai",
    reply: openaiCall((c) => void (c.function.arguments = '"Tokyo"')),
    told: /invalid input for get_temperature/,
  },
  {
    name: "openai: arguments null (a compatible server)",
    provider: "openai",
    reply: openaiCall((c) => void (c.function.arguments = null)),
    told: /invalid input for get_temperature.*city/,
  },
  {
    name: "openai: arguments with a wrong type inside",
    provider: "openai",
    reply: openaiCall((c) => void (c.function.arguments = '{"city":42}')),
    told: /invalid input for get_temperature.*city/,
  },
  {
    name: "openai: an unknown tool name",
    provider: "openai",
    reply: openaiCall((c) => void (c.function.name = "get_temprature")),
    told: /no tool named "get_temprature"/,
  },
  {
    name: "anthropic: a tool_use whose input is a string",
    provider: "anthropic",
    reply: anthropicCall((b) => [b[0]!, { ...b[1], input: "test" }]),
    told: /\(error\) .*invalid input for test_tool/,
  },
  {
    name: "anthropic: a tool_use whose input is missing",
    provider: "anthropic",
    reply: anthropicCall((b) => [b[0]!, { type: "tool_use", id: b[1]!.id, name: "test_tool" }]),
    told: /\(error\) .*invalid input for test_tool/,
  },
  {
    name: "anthropic: an unknown tool name",
    provider: "anthropic",
    reply: anthropicCall((b) => [b[0]!, { ...b[1], name: "test_tool_2" }]),
    told: /\(error\) .*no tool named "test_tool_2"/,
  },
  {
    name: "anthropic: stop_reason max_tokens inside the tool_use",
    provider: "anthropic",
    reply: anthropicCall((b) => b, "max_tokens"),
    told: /\(error\) .*cut off/,
  },
  { name: "openai: finish_reason length mid tool call", provider: "openai", reply: openaiCall(() => undefined, "length"), told: /cut off/ },
];

describe("a reply's tool call that cannot run: the model is told, the tool does not run", () => {
  it.each(told)("$name", async ({ provider, reply, told: what }) => {
    const dir = mkdtempSync(join(tmpdir(), "functai-hunt4-bad-"));
    const store = memoryStore();
    server.reply(reply, finalReply(provider));
    const chat = hunt4Desk(dir).conversation(CONVERSATION, { store, lm: wireLM({ provider, baseURL: server.url }) });
    expect(await chat.send("What now?")).toBe(FINAL[provider]);
    expect(ranLines(dir)).toEqual([]);
    expect(server.requests).toHaveLength(2);
    const results = toldInSecond(provider);
    expect(results).toHaveLength(1); // the call got its result (the provider's pairing rule)
    expect(results[0]).toMatch(what);
    const records = await store.read(CONVERSATION);
    expect(ofKind(records, "tool")).toEqual([]); // nothing started, nothing done: it never ran
    expect(ofKind(records, "ended").map((r) => r.state)).toEqual(["done"]);
  });
});

describe("replies refused with a stable code: nothing runs, the reply is not kept as one", () => {
  const refused: { name: string; provider: "openai" | "anthropic"; reply: Reply; code: string }[] = [
    {
      name: "openai: an empty choices array",
      provider: "openai",
      reply: { json: { ...wireJson<Record<string, unknown>>("openai-chat-02-response-tool-calls.json"), choices: [] } },
      code: "provider-response",
    },
    {
      name: "openai: a 200 with an error body",
      provider: "openai",
      reply: { json: { error: { message: "The server had an error while processing your request.", type: "server_error" } } },
      code: "provider-server",
    },
    {
      name: "anthropic: a 200 with an error body (invalid_request)",
      provider: "anthropic",
      reply: { json: { type: "error", error: { type: "invalid_request_error", message: "messages: roles must alternate" } } },
      code: "provider-bad-request",
    },
    {
      name: "anthropic: a tool_use without an id",
      provider: "anthropic",
      reply: anthropicCall((b) => [b[0]!, { type: "tool_use", name: "test_tool", input: { value: "test" } }]),
      code: "provider-response",
    },
    {
      name: "anthropic: content that is not a list",
      provider: "anthropic",
      reply: { json: { ...wireJson<Record<string, unknown>>("anthropic-02-response-tool-use.json"), content: "test_tool(value=test)" } },
      code: "provider-response",
    },
  ];
  it.each(refused)("$name → $code", async ({ provider, reply, code }) => {
    const dir = mkdtempSync(join(tmpdir(), "functai-hunt4-bad-"));
    const store = memoryStore();
    server.reply(reply, finalReply(provider));
    const chat = hunt4Desk(dir).conversation(CONVERSATION, { store, lm: wireLM({ provider, baseURL: server.url }) });
    const e = await chat.send("What now?").then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(e).toMatchObject({ code });
    expect(ranLines(dir)).toEqual([]);
    expect(server.requests).toHaveLength(1);
    const records = await store.read(CONVERSATION);
    expect(ofKind(records, "reply")).toEqual([]);
    expect(ofKind(records, "ended").map((r) => [r.state, (r.error as { code?: string } | undefined)?.code])).toEqual([["failed", code]]);
  });
});

describe("content the reply form does not know", () => {
  it("anthropic: thinking and server tool blocks beside a tool_use are not text; the call runs once, and only thinking, text and tool_use go back", async () => {
    const dir = mkdtempSync(join(tmpdir(), "functai-hunt4-bad-"));
    server.reply(
      anthropicCall((b) => [
        { type: "thinking", thinking: "The user wants the tool. <result>\nnot this\n</result>", signature: "EqQBCgIYAhIM" },
        { type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix" },
        b[0]!,
        { type: "some_future_block", text: "<result>\nnot this either\n</result>" },
        b[1]!,
      ]),
      finalReply("anthropic"),
    );
    const chat = hunt4Desk(dir).conversation(CONVERSATION, { store: memoryStore(), lm: wireLM({ provider: "anthropic", baseURL: server.url }) });
    expect(await chat.send("What now?")).toBe(FINAL.anthropic);
    expect(ranLines(dir)).toEqual(['test_tool {"value":"test"}']);
    const assistant = (server.requests[1]!.body.messages as { role: string; content: { type: string }[] }[])[1]!;
    // the thinking blocks go back first, unchanged (the API requires them when thinking is on: hunt 57); the unknown block does not
    expect(assistant.content.map((b) => b.type)).toEqual(["thinking", "redacted_thinking", "text", "tool_use"]);
    expect(assistant.content.slice(0, 2)).toEqual([
      { type: "thinking", thinking: "The user wants the tool. <result>\nnot this\n</result>", signature: "EqQBCgIYAhIM" },
      { type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix" },
    ]);
  });

  it("anthropic: a reply of only unknown blocks is not an answer: asked again, then refused (output-invalid)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "functai-hunt4-bad-"));
    const onlyUnknown = anthropicCall(
      () => [{ type: "server_tool_use", id: "srvtoolu_01", name: "web_search", input: { query: "x" } }],
      "pause_turn",
    );
    server.reply(onlyUnknown, onlyUnknown, finalReply("anthropic"));
    const store = memoryStore();
    const chat = hunt4Desk(dir).conversation(CONVERSATION, { store, lm: wireLM({ provider: "anthropic", baseURL: server.url }) });
    await expect(chat.send("What now?")).rejects.toMatchObject({ code: "output-invalid" });
    expect(server.requests).toHaveLength(2);
    expect(ranLines(dir)).toEqual([]);
  });

  it("openai: content given as parts of unknown types and a custom tool call: not an answer, nothing runs", async () => {
    const dir = mkdtempSync(join(tmpdir(), "functai-hunt4-bad-"));
    const body = wireJson<OpenAICompletion>("openai-chat-02-response-tool-calls.json");
    body.choices[0]!.message.content = [{ type: "reasoning", text: "<result>\nnot this\n</result>" }] as never;
    body.choices[0]!.message.tool_calls = [{ id: "call_custom", type: "custom", custom: { name: "get_temperature", input: "Tokyo" } }];
    server.reply({ json: body }, { json: body });
    const chat = hunt4Desk(dir).conversation(CONVERSATION, { store: memoryStore(), lm: wireLM({ provider: "openai", baseURL: server.url }) });
    // its finish reason says it stopped for a call, and it holds none functai reads: refused as it is (hunt 107)
    await expect(chat.send("What now?")).rejects.toMatchObject({ code: "provider-response" });
    expect(ranLines(dir)).toEqual([]);
  });
});

describe("the journal keeps the malformed reply as it arrived, and a resume replays it the same way", () => {
  it.each([
    {
      provider: "openai" as const,
      bad: openaiCall((c) => void (c.function.arguments = '{"city":"Tok')),
      good: openaiCall((c) => void (c.id = "call_second")),
      ran: 'get_temperature {"city":"Tokyo"}',
    },
    {
      provider: "anthropic" as const,
      bad: anthropicCall((b) => [b[0]!, { ...b[1], input: "test" }]),
      good: anthropicCall((b) => [{ ...b[1], id: "toolu_second" }]),
      ran: 'test_tool {"value":"test"}',
    },
  ])("$provider: bad call, then a changing call that waits for a person; approved from another handle", async ({ provider, bad, good, ran }) => {
    const dir = mkdtempSync(join(tmpdir(), "functai-hunt4-bad-"));
    const store: Store = memoryStore();
    server.reply(bad, good, finalReply(provider));
    const lm = wireLM({ provider, baseURL: server.url });
    const first = await hunt4Desk(dir)
      .conversation(CONVERSATION, { store, lm, approve: "changes" })
      .send("What now?")
      .catch((e: unknown) => e);
    expect(first).toBeInstanceOf(Waiting);
    expect(server.requests).toHaveLength(2);
    const records = await store.read(CONVERSATION);
    const kept = ofKind(records, "reply")[0]!.response as { toolCalls: { input: unknown; inputError?: string }[] };
    // what arrived: the raw truncated text (OpenAI) or the string input (Anthropic), not something made of it
    expect(kept.toolCalls[0]!.input).toBe(provider === "openai" ? '{"city":"Tok' : "test");

    const [turn] = await hunt4Desk(dir)
      .conversation(CONVERSATION, { store, lm: wireLM({ provider, baseURL: server.url }) })
      .turns();
    expect(await turn!.approve({ by: "maria" })).toBe(FINAL[provider]);
    expect(server.requests).toHaveLength(3); // the two replies that arrived were not asked for again
    expect(ranLines(dir)).toEqual([ran]);
    // the replayed bad call told the model exactly what it was told the first time
    const sent = (i: number) => server.requests[i]!.body.messages as unknown[];
    expect(sent(2).slice(0, sent(1).length)).toEqual(sent(1));
  });
});

describe("a reply cut by its length limit in the answer itself", () => {
  // A reply that stopped at its length limit (finish_reason "length", Anthropic's stop_reason
  // "max_tokens") with its <result> block never closed holds only the answer's start ("12" of 12345,
  // a valid number all the same): it is unreadable, asked again once (the model told it was cut off),
  // then refused with output-invalid saying so. A block never closed in a reply that ended normally
  // (the model left the tag out) is still read to the reply's end.
  const cutNumber = (content: string, finish = "length"): Reply => {
    const body = wireJson<OpenAICompletion>("openai-chat-04-response-final.json");
    body.choices[0]!.message.content = content;
    body.choices[0]!.finish_reason = finish;
    return { json: body };
  };
  const count = ai("count", { description: "How many orders shipped?", input: { question: z.string() }, output: z.number() });
  const lastTold = (i: number): string => String((server.requests[i]!.body.messages as { content: unknown }[]).at(-1)!.content);

  it("openai: finish_reason length inside <result> of a number output is not taken as the answer", async () => {
    server.reply(cutNumber("<result>\n12"), cutNumber("<result>\n12"));
    const got = await count("How many?", { lm: wireLM({ provider: "openai", baseURL: server.url }) }).catch((e: unknown) => e);
    expect(got).toMatchObject({ code: "output-invalid", reply: "<result>\n12" });
    expect((got as Error).message).toMatch(/cut off at its token limit before <\/result>.*raise maxTokens/);
    expect(server.requests).toHaveLength(2); // asked again once
    expect(lastTold(1)).toMatch(/could not be read \(the reply was cut off at its token limit/);
  });

  it("openai: cut inside <result>, then a whole reply: the second is the answer", async () => {
    server.reply(cutNumber("<result>\n12"), cutNumber("<result>\n12345\n</result>", "stop"));
    expect(await count("How many?", { lm: wireLM({ provider: "openai", baseURL: server.url }) })).toBe(12345);
    expect(server.requests).toHaveLength(2);
  });

  it("openai: a block never closed in a reply that ended normally (finish_reason stop) is read as before", async () => {
    server.reply(cutNumber("<result>\n12345", "stop"));
    expect(await count("How many?", { lm: wireLM({ provider: "openai", baseURL: server.url }) })).toBe(12345);
    expect(server.requests).toHaveLength(1);
  });

  it("anthropic, streamed: stop_reason max_tokens inside <result> is asked again, then refused", async () => {
    const body = wireJson<AnthropicMessage>("anthropic-04-response-final.json");
    body.content = [{ type: "text", text: "<result>\nIt shipped on Mon" }];
    body.stop_reason = "max_tokens";
    server.reply({ json: body }, { json: body });
    const say = ai("say", { description: "Say where the order is.", input: { question: z.string() } });
    const s = say.stream("Where is A-1042?", { lm: wireLM({ provider: "anthropic", baseURL: server.url }) });
    const read = (async () => {
      for await (const _ of s) {
        // read as a UI would
      }
      return s;
    })();
    await expect(read).rejects.toMatchObject({ code: "output-invalid", message: expect.stringMatching(/cut off at its token limit/) });
    expect(server.requests).toHaveLength(2);
  });
});

// (the SSE forms of the cut tool call are in cut-off-tool-calls.test.ts; the streamed tool call whose JSON never closed:)
describe("streamed: a tool call whose argument fragments never close", () => {
  it("anthropic: input_json_delta stops mid-object with stop_reason tool_use: told, not run", async () => {
    const dir = mkdtempSync(join(tmpdir(), "functai-hunt4-bad-"));
    const sse = fixture("hunt4-wire/anthropic-stream-tool-use.sse").replace(
      '{"type":"input_json_delta","partial_json":"is\\"}"}',
      '{"type":"input_json_delta","partial_json":"is"}',
    );
    expect(sse).not.toBe(fixture("hunt4-wire/anthropic-stream-tool-use.sse"));
    server.reply({ sse }, finalReply("anthropic"));
    const chat = hunt4Desk(dir).conversation(CONVERSATION, { store: memoryStore(), lm: wireLM({ provider: "anthropic", baseURL: server.url }) });
    const s = chat.stream("What now?");
    const types: string[] = [];
    for await (const e of s) types.push(e.type);
    expect(await s).toBe(FINAL.anthropic);
    expect(types).not.toContain("tool_call");
    expect(ranLines(dir)).toEqual([]);
    expect(toldInSecond("anthropic")[0]).toMatch(/\(error\) .*not valid JSON/);
  });
});
