/**
 * Tools offered as text: a `<tool_call>` block the reply never closes (the
 * reply hit its length limit inside it, or the model left the closing tag
 * out) is a tool call, never part of the answer.
 */
import { describe, expect, it } from "vitest";
import { fromTextResponse } from "../../src/lm/text-tools.js";
import type { FinishReason, LMResponse } from "../../src/lm/types.js";
import { localCompletion as completion, textToolsDesk } from "./fixtures.js";

const reply = (text: string, finishReason: FinishReason = "stop"): LMResponse => ({ text, toolCalls: [], finishReason, usage: { inputTokens: 1, outputTokens: 1 } });

const { local, seen, answer, lm } = textToolsDesk();

describe("tools as text: a <tool_call> block never closed", () => {

  it("cut off by the length limit: not the answer; the model is told its call was cut off, and asked again", async () => {
    seen.length = 0;
    local.server.reply(
      { json: completion('Let me check.\n<tool_call>\n{"name": "lookup_order", "input": {"order_id": "A-10', "length") },
      { json: completion('<tool_call>\n{"name": "lookup_order", "input": {"order_id": "A-1042"}}\n</tool_call>') },
      { json: completion("<result>\nA-1042 has shipped.\n</result>") },
    );
    expect(await answer("Where is A-1042?", { lm: lm() })).toBe("A-1042 has shipped.");
    expect(seen).toEqual([{ order_id: "A-1042" }]);
    const second = local.server.requests[1]!.body.messages as { role: string; content: string }[];
    // (told it was cut off, hunt 160: told "not valid JSON", a model writes the same long call again)
    expect(second.at(-1)!.content).toMatch(/<tool_result[^>]*>\nError: the input for lookup_order could not be read[\s\S]*cut off/);
    expect(second.at(-1)!.content).not.toMatch(/not valid JSON/);
  });

  it("the closing tag left out of a whole call (the reply ended as it should): the call runs", () => {
    const read = fromTextResponse(reply('Let me check.\n<tool_call>\n{"name": "lookup_order", "input": {"order_id": "A-1042"}}\n'));
    expect(read.toolCalls).toEqual([{ id: "call_1", name: "lookup_order", input: { order_id: "A-1042" } }]);
    expect(read.text).toBe("Let me check.");
    expect(read.finishReason).toBe("tool_calls");
  });

  it("a whole-looking call in a block the length limit cut is not taken as whole", () => {
    const read = fromTextResponse(reply('<tool_call>\n{"name": "lookup_order", "input": {"order_id": "A-1042"}}', "length"));
    expect(read.toolCalls).toHaveLength(1);
    expect(read.toolCalls[0]).toMatchObject({ name: "lookup_order" });
    expect(read.toolCalls[0]!.inputError).toMatch(/cut off/);
  });

  it("closed blocks before the cut one are read as they are", () => {
    const text = '<tool_call>\n{"name": "lookup_order", "input": {"order_id": "A-1042"}}\n</tool_call>\n<tool_call>\n{"name": "lookup_order", "inp';
    const read = fromTextResponse(reply(text, "length"));
    expect(read.toolCalls.map((c) => [c.id, c.inputError === undefined])).toEqual([
      ["call_1", true],
      ["call_2", false],
    ]);
    expect(read.toolCalls[0]!.input).toEqual({ order_id: "A-1042" });
  });
});

describe("tools as text: a block whose JSON is not a call", () => {
  it("null, a list or a bare string is a call that could not be read, saying so (not 'not valid JSON', nor a TypeError's words)", () => {
    for (const body of ["null", '["lookup_order"]', '"lookup_order"']) {
      const read = fromTextResponse(reply(`<tool_call>\n${body}\n</tool_call>`));
      expect(read.toolCalls).toHaveLength(1);
      expect(read.toolCalls[0]!.inputError).toMatch(/not a JSON object/);
      expect(read.toolCalls[0]!.inputError).not.toMatch(/Cannot read|not valid JSON/);
    }
  });
});
