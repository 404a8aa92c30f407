/**
 * A model offered tools natively that writes its call as text, Hermes' way
 * (`<tool_call>{"name": …, "arguments": …}</tool_call>` in `content`, no
 * `tool_calls`): Qwen and Hermes models on vLLM started without
 * `--enable-auto-tool-choice --tool-call-parser hermes`, or on an Ollama
 * model whose template does not read tools. The server did not read the
 * call; the text is no answer. It was read as one: `answer("…")` returned
 * the `<tool_call>` block as the customer's answer, and the tool never ran.
 * Now it is refused (`provider-response`), naming the server's setting and
 * `nativeTools: false` (which reads such blocks: shown working below).
 * Only a block whose JSON names an offered tool counts: the tag named in
 * prose, or a call of no offered tool, is text as before.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, tool } from "../../src/index.js";
import type { LMRequest, ToolSpec } from "../../src/lm/types.js";
import { anthropic } from "../../src/providers/anthropic.js";
import { openai } from "../../src/providers/openai.js";
import { type MockServer, eachTestServer, failure } from "./server.js";

const lookup: ToolSpec = {
  name: "lookup_order",
  description: "The order's status.",
  parameters: { type: "object", properties: { order_id: { type: "string" } }, required: ["order_id"] },
};
const ask = (tools: ToolSpec[] = [lookup]): LMRequest => ({
  messages: [{ role: "user", content: "<question>\nWhere is A-1042?\n</question>" }],
  tools,
});

let server: MockServer;
eachTestServer((s) => (server = s));
const local = (nativeTools = true) => openai({ model: "Qwen/Qwen3-8B", apiKey: "none", baseURL: `${server.url}/v1`, maxRetries: 0, nativeTools });
const claude = () => anthropic({ model: "claude-haiku-4-5", apiKey: "test-key", baseURL: server.url, maxRetries: 0 });

const HERMES = '<tool_call>\n{"name": "lookup_order", "arguments": {"order_id": "A-1042"}}\n</tool_call>';
const QWEN3 = `<think>\nThe user wants the order's status. I should call lookup_order.\n</think>\n\n${HERMES}`;

/** vLLM's whole completion, its tool parser off: the call left in content. */
const vllmWhole = (content: string, tool_calls: unknown[] = []) => ({
  id: "chatcmpl-9f2",
  object: "chat.completion",
  created: 1764400000,
  model: "Qwen/Qwen3-8B",
  choices: [
    {
      index: 0,
      message: { role: "assistant", content, tool_calls, reasoning_content: null },
      logprobs: null,
      finish_reason: "stop",
      stop_reason: null,
    },
  ],
  usage: { prompt_tokens: 40, completion_tokens: 22, total_tokens: 62 },
});
/** The same, streamed in pieces of `size` characters. */
const vllmSse = (content: string, size = 7): string => {
  const chunk = (delta: unknown, finish_reason: string | null) =>
    `data: ${JSON.stringify({ id: "chatcmpl-9f1", object: "chat.completion.chunk", created: 1764400000, model: "Qwen/Qwen3-8B", choices: [{ index: 0, delta, logprobs: null, finish_reason }] })}\n\n`;
  const pieces: string[] = [];
  for (let i = 0; i < content.length; i += size) pieces.push(chunk({ content: content.slice(i, i + size) }, null));
  return `${chunk({ role: "assistant", content: "" }, null)}${pieces.join("")}${chunk({}, "stop")}data: [DONE]\n\n`;
};

const refusedAsUnread = (message: string) => {
  expect(message).toContain("lookup_order");
  expect(message).toContain("--tool-call-parser");
  expect(message).toContain("nativeTools: false");
};

describe("openai: a tool call written as text beside natively offered tools is refused, never the answer", () => {
  for (const [label, content] of [
    ["Hermes' block", HERMES],
    ["after Qwen3's thinking", QWEN3],
    ["two blocks", `${HERMES}\n${HERMES.replace("A-1042", "B-2210")}`],
    ["the closing tag left out", HERMES.replace("\n</tool_call>", "")],
  ] as const) {
    it(`whole: ${label}`, async () => {
      server.reply({ json: vllmWhole(content) });
      const e = await failure(local().generate(ask()));
      expect(e.code).toBe("provider-response");
      refusedAsUnread(e.message);
    });
  }

  it("streamed", async () => {
    server.reply({ sse: vllmSse(QWEN3) });
    const e = await failure(local().generate(ask(), { onText: () => {} }));
    expect(e.code).toBe("provider-response");
    refusedAsUnread(e.message);
  });

  it("end to end: the call fails, the tool does not run, and the block is never the answer", async () => {
    let ran = 0;
    const lookupOrder = tool("lookup_order", { description: "The order's status.", input: { order_id: z.string() }, effects: "reads" }, () => {
      ran++;
      return { status: "shipped" };
    });
    const answer = ai("answer", { description: "Answer the customer.", input: { question: z.string() }, tools: [lookupOrder] });
    server.reply({ json: vllmWhole(HERMES) });
    const e = await failure(answer("Where is A-1042?", { lm: local() }));
    expect(e.code).toBe("provider-response");
    expect(ran).toBe(0);
  });

  it("the advice works: with nativeTools: false the same block is read as the call, and the tool runs", async () => {
    const seen: unknown[] = [];
    const lookupOrder = tool("lookup_order", { description: "The order's status.", input: { order_id: z.string() }, effects: "reads" }, (input) => {
      seen.push(input);
      return { status: "shipped" };
    });
    const answer = ai("answer", { description: "Answer the customer.", input: { question: z.string() }, tools: [lookupOrder] });
    server.reply({ json: vllmWhole(HERMES) }, { json: vllmWhole("<result>\nIt has shipped.\n</result>") });
    expect(await answer("Where is A-1042?", { lm: local(false) })).toBe("It has shipped.");
    expect(seen).toEqual([{ order_id: "A-1042" }]);
  });
});

describe("what is still text", () => {
  const cases: [string, string, ToolSpec[]][] = [
    ["no tools offered", HERMES, []],
    ["the tag named in prose", "I would write <tool_call> blocks if I could call tools; the answer is: shipped.", [lookup]],
    ["a block naming no offered tool", HERMES.replace("lookup_order", "send_email"), [lookup]],
    ["a block that holds no JSON", "<tool_call>lookup_order A-1042</tool_call>", [lookup]],
  ];
  for (const [label, content, tools] of cases) {
    it(label, async () => {
      server.reply({ json: vllmWhole(content) });
      const res = await local().generate(ask(tools));
      expect(res.text).toBe(content);
      expect(res.toolCalls).toEqual([]);
    });
  }

  it("a reply with native tool calls (the parser read some) is read as it is", async () => {
    const call = { id: "chatcmpl-tool-1", type: "function", function: { name: "lookup_order", arguments: '{"order_id": "A-1042"}' } };
    server.reply({ json: { ...vllmWhole(HERMES, [call]), choices: [{ ...vllmWhole(HERMES, [call]).choices[0], finish_reason: "tool_calls" }] } });
    const res = await local().generate(ask());
    expect(res.toolCalls).toEqual([{ id: "chatcmpl-tool-1", name: "lookup_order", input: { order_id: "A-1042" } }]);
  });
});

describe("anthropic: the same from an Anthropic-compatible server", () => {
  it("a text block holding the call is refused", async () => {
    server.reply({
      json: {
        id: "msg_01",
        type: "message",
        role: "assistant",
        model: "Qwen/Qwen3-8B",
        content: [{ type: "text", text: HERMES }],
        stop_reason: "end_turn",
        stop_sequence: null,
        usage: { input_tokens: 40, output_tokens: 22 },
      },
    });
    const e = await failure(claude().generate(ask()));
    expect(e.code).toBe("provider-response");
    refusedAsUnread(e.message);
  });
});
