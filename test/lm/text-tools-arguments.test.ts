/**
 * Tools as text: a call written in OpenAI's wire form, `arguments` as a
 * JSON string (models that learnt that form write it in text too), is read
 * as the object it holds; before, the tool was given the string and its
 * input was refused. A string that is not JSON is a call that could not be read.
 */
import { describe, expect, it } from "vitest";
import { fromTextResponse } from "../../src/lm/text-tools.js";
import type { LMResponse } from "../../src/lm/types.js";

const reply = (text: string): LMResponse => ({ text, toolCalls: [], finishReason: "stop", usage: { inputTokens: 1, outputTokens: 1 } });

describe("a text tool call's arguments as a JSON string", () => {
  it("is read as the object it holds", () => {
    const read = fromTextResponse(reply('<tool_call>{"name": "lookup_order", "arguments": "{\\"order_id\\": \\"A-1042\\"}"}</tool_call>'));
    expect(read.toolCalls).toEqual([{ id: "call_1", name: "lookup_order", input: { order_id: "A-1042" } }]);
  });

  it("an object given as arguments, or as input, is taken as it is", () => {
    const read = fromTextResponse(reply('<tool_call>{"name": "a", "arguments": {"x": 1}}</tool_call><tool_call>{"name": "b", "input": {"y": 2}}</tool_call>'));
    expect(read.toolCalls.map((c) => [c.name, c.input])).toEqual([["a", { x: 1 }], ["b", { y: 2 }]]);
  });

  it("a string that is not JSON is a call that could not be read, the model told why", () => {
    const [call] = fromTextResponse(reply('<tool_call>{"name": "lookup_order", "arguments": "order A-1042"}</tool_call>')).toolCalls;
    expect(call).toMatchObject({ name: "lookup_order", input: "order A-1042", inputError: expect.stringMatching(/arguments are not valid JSON/) });
  });
});
