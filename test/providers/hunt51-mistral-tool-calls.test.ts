/**
 * A Mistral model offered tools natively through an OpenAI-compatible server
 * that does not read its calls (vLLM started without
 * `--enable-auto-tool-choice --tool-call-parser mistral`) answers a call as
 * text: `[TOOL_CALLS]` then a JSON list of `{ name, arguments }` (tokenizer
 * v3 to v7), or `[TOOL_CALLS]name[ARGS]{…}` (v11 and later). That text was
 * read as the answer, the tool never run. It is now refused
 * (`provider-response`) naming the fix, as hunt 44 did for `<tool_call>`
 * blocks; only where it names an offered tool.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, tool } from "../../src/index.js";
import type { LMRequest, ToolSpec } from "../../src/lm/types.js";
import { openai } from "../../src/providers/openai.js";
import { completion, textSse } from "./fixtures/hunt51-wire.js";
import { type MockServer, eachTestServer, failure } from "./server.js";

const lookup: ToolSpec = {
  name: "lookup_order",
  description: "The order's status.",
  parameters: { type: "object", properties: { order_id: { type: "string" } }, required: ["order_id"] },
};
const ask = (tools: ToolSpec[] = [lookup]): LMRequest => ({ messages: [{ role: "user", content: "Where is A-1042?" }], tools });

let server: MockServer;
eachTestServer((s) => (server = s));
const mistral = () => openai({ model: "mistralai/Mistral-Small-3.2-24B-Instruct-2506", apiKey: "none", baseURL: `${server.url}/v1`, maxRetries: 0 });

const V3 = '[TOOL_CALLS] [{"name": "lookup_order", "arguments": {"order_id": "A-1042"}}]';
const V3_ID = '[TOOL_CALLS][{"name": "lookup_order", "arguments": {"order_id": "A-1042"}, "id": "a1B2c3D4e"}]';
const V11 = '[TOOL_CALLS]lookup_order[ARGS]{"order_id": "A-1042"}';

const refusedAsUnread = (message: string) => {
  expect(message).toContain("lookup_order");
  expect(message).toContain("--tool-call-parser mistral");
  expect(message).toContain("nativeTools: false");
};

describe("a Mistral tool call written as text beside natively offered tools is refused", () => {
  for (const [label, content] of [
    ["a JSON list (tokenizer v3)", V3],
    ["a JSON list with ids", V3_ID],
    ["name[ARGS]{…} (tokenizer v11)", V11],
    ["two calls, v11", `${V11}[TOOL_CALLS]lookup_order[ARGS]{"order_id": "B-2210"}`],
    ["after some words", `Let me look that up.\n${V3}`],
  ] as const) {
    it(`whole: ${label}`, async () => {
      server.reply({ json: completion({ content }) });
      const e = await failure(mistral().generate(ask()));
      expect(e.code).toBe("provider-response");
      refusedAsUnread(e.message);
    });
  }

  it("streamed", async () => {
    server.reply({ sse: textSse(V3) });
    const e = await failure(mistral().generate(ask(), { onText: () => {} }));
    expect(e.code).toBe("provider-response");
    refusedAsUnread(e.message);
  });

  it("end to end: the tool does not run and the text is never the answer", async () => {
    let ran = 0;
    const lookupOrder = tool("lookup_order", { description: "The order's status.", input: { order_id: z.string() }, effects: "reads" }, () => {
      ran++;
      return { status: "shipped" };
    });
    const answer = ai("answer", { description: "Answer the customer.", input: { question: z.string() }, tools: [lookupOrder] });
    server.reply({ json: completion({ content: V3 }) });
    const e = await failure(answer("Where is A-1042?", { lm: mistral() }));
    expect(e.code).toBe("provider-response");
    expect(ran).toBe(0);
  });
});

/**
 * The same calls with no marker at all: vLLM drops special tokens from the
 * text by default (`skip_special_tokens`), `[TOOL_CALLS]` among them, so a
 * Mistral model's call comes as the bare JSON list; Llama 3.1 and 3.3 write
 * theirs as a bare JSON object (`{"name", "parameters"}`) where no
 * `llama3_json` parser reads it. A reply that is nothing but such a call
 * naming an offered tool was the answer (shown below for `ai()`), the tool
 * never run.
 */
describe("a reply that is only a call's JSON, naming an offered tool, is refused too", () => {
  for (const [label, content, advice] of [
    ["Mistral's list, its marker dropped", '[{"name": "lookup_order", "arguments": {"order_id": "A-1042"}}]', "mistral"],
    ["Llama 3.1's object", '{"name": "lookup_order", "parameters": {"order_id": "A-1042"}}', "llama3_json"],
    ["fenced", '```json\n{"name": "lookup_order", "arguments": {"order_id": "A-1042"}}\n```', "--tool-call-parser"],
  ] as const) {
    it(label, async () => {
      server.reply({ json: completion({ content }) });
      const e = await failure(mistral().generate(ask()));
      expect(e.code).toBe("provider-response");
      expect(e.message).toContain("lookup_order");
      expect(e.message).toContain(advice);
      expect(e.message).toContain("nativeTools: false");
    });
  }

  it("end to end: it is no longer the answer", async () => {
    const lookupOrder = tool("lookup_order", { description: "The order's status.", input: { order_id: z.string() }, effects: "reads" }, () => ({
      status: "shipped",
    }));
    const answer = ai("answer", { description: "Answer the customer.", input: { question: z.string() }, tools: [lookupOrder] });
    server.reply({ json: completion({ content: '[{"name": "lookup_order", "arguments": {"order_id": "A-1042"}}]' }) });
    const e = await failure(answer("Where is A-1042?", { lm: mistral() }));
    expect(e.code).toBe("provider-response");
  });
});

describe("what is still text", () => {
  const cases: [string, string, ToolSpec[]][] = [
    ["no tools offered", V3, []],
    ["a call of no offered tool", V3.replace("lookup_order", "send_email"), [lookup]],
    ["v11, a call of no offered tool", V11.replace("lookup_order", "send_email"), [lookup]],
    ["the marker named in prose", "Mistral models mark calls with [TOOL_CALLS]; the order has shipped.", [lookup]],
    ["the marker followed by no JSON", "[TOOL_CALLS] lookup_order A-1042", [lookup]],
    ["JSON that names no offered tool", '{"name": "send_email", "arguments": {"to": "a@b.c"}}', [lookup]],
    ["JSON with a name but no arguments (an answer)", '{"name": "lookup_order"}', [lookup]],
    ["a call's JSON inside words", 'I would call {"name": "lookup_order", "arguments": {"order_id": "A-1042"}} but I will not.', [lookup]],
    ["bare JSON with no tools offered", '[{"name": "lookup_order", "arguments": {}}]', []],
  ];
  for (const [label, content, tools] of cases) {
    it(label, async () => {
      server.reply({ json: completion({ content }) });
      const res = await mistral().generate(ask(tools));
      expect(res.text).toBe(content);
      expect(res.toolCalls).toEqual([]);
    });
  }
});
