/**
 * Tools offered as text: the keys a model puts its input under. Llama 3.x
 * models write `{"name": …, "parameters": {…}}` (their own tool-calling
 * form); that input was dropped and the tool run with `{}`. An input under
 * a key nobody reads is not run as `{}` either: the model is told.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, tool } from "../../src/index.js";
import { fromTextResponse } from "../../src/lm/text-tools.js";
import type { LMResponse } from "../../src/lm/types.js";
import { scripted } from "../../src/testing/index.js";

const reply = (text: string): LMResponse => ({ text, toolCalls: [], finishReason: "stop", usage: { inputTokens: 0, outputTokens: 0 } }) as LMResponse;
const calls = (body: string) => fromTextResponse(reply(`<tool_call>\n${body}\n</tool_call>`)).toolCalls;

describe("the keys of a tool call written as text", () => {
  it('reads "parameters" (Llama\'s form) as the input', () => {
    expect(calls('{"name": "lookup_order", "parameters": {"order_id": "A-1042"}}')).toEqual([
      { id: "call_1", name: "lookup_order", input: { order_id: "A-1042" } },
    ]);
  });

  it("still reads input, and arguments as an object or as a JSON string; no key at all is an empty input", () => {
    expect(calls('{"name": "t", "input": {"a": 1}}')[0]!.input).toEqual({ a: 1 });
    expect(calls('{"name": "t", "arguments": {"a": 1}}')[0]!.input).toEqual({ a: 1 });
    expect(calls('{"name": "t", "arguments": "{\\"a\\": 1}"}')[0]!.input).toEqual({ a: 1 });
    expect(calls('{"name": "t"}')[0]).toEqual({ id: "call_1", name: "t", input: {} });
  });

  it("an input under a key nobody reads is a call whose input could not be read, not an empty input", () => {
    const [call] = calls('{"name": "t", "args": {"a": 1}}');
    expect(call!.name).toBe("t");
    expect(call!.inputError).toMatch(/"args"/);
  });

  it("end to end: a tool whose inputs are all optional runs with the input the model gave under parameters", async () => {
    const seen: unknown[] = [];
    const search = tool("search", { description: "Search.", input: { q: z.string().optional() }, effects: "reads" }, (input) => {
      seen.push(input);
      return "found";
    });
    const f = ai("f", { description: "Find it.", input: { question: z.string() }, tools: [search] });
    const lm = scripted(['<tool_call>\n{"name": "search", "parameters": {"q": "kettle"}}\n</tool_call>', "<result>\nfound\n</result>"], {
      nativeTools: false,
    });
    expect(await f("kettle?", { lm })).toBe("found");
    expect(seen).toEqual([{ q: "kettle" }]);
  });
});
