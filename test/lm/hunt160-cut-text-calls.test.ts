/**
 * hunt 160: tools as text, a reply cut off (its length limit) inside the JSON
 * of a `<tool_call>` block it never closed. The call never ran, but the model
 * was told "not valid JSON" (that it wrote the call wrong), where the reply
 * was cut off: told so, it writes the same long call again, to be cut again.
 * It is now told the reply was cut off, as for a cut call whose JSON happens
 * to be whole, and as the native readers tell it (providers' cut-off test).
 * A call in the cut block that is wrong in another way keeps its own why.
 * Through the tool loop, text-tools-cut-off.test.ts pins what the model is
 * told next.
 */
import { describe, expect, it } from "vitest";
import { readText } from "./fixtures.js";

describe("tools as text: the length limit cuts the JSON of the last, unclosed block", () => {
  for (const [form, text] of [
    ["a <tool_call> block", 'Let me check.\n<tool_call>\n{"name": "lookup_order", "input": {"order_id": "A-10'],
    ["a fenced <tool_call> block", '<tool_call>\n```json\n{"name": "lookup_order", "input": {"order_id": "A-10'],
    ["Llama's <function=…> tag", '<function=lookup_order>{"order_id": "A-10'],
    [
      "a second call in the block",
      '<tool_call>\n{"name": "lookup_order", "input": {"order_id": "A-1"}}\n{"name": "lookup_order", "input": {"order_id": "A-10',
    ],
  ] as const) {
    it(`${form}: its call says it was cut off, not that its JSON is wrong`, () => {
      const read = readText(text, "length");
      const last = read.toolCalls.at(-1)!;
      expect(last.name).toBe("lookup_order");
      expect(last.inputError).toMatch(/cut off/);
      expect(last.inputError).not.toMatch(/not valid JSON/);
      expect(read.toolCalls.slice(0, -1).map((c) => c.inputError)).toEqual(read.toolCalls.length === 2 ? [undefined] : []);
    });
  }

  it("a call in Qwen3-Coder's tags, cut: it keeps its own why (the form to write it in) (guard)", () => {
    const read = readText("<tool_call>\n<function=lookup_order>\n<parameter=order_id>\nA-10", "length");
    expect(read.toolCalls[0]!.inputError).toMatch(/<parameter=/);
  });

  it("the same block, the reply ended as it should (the closing tag left out): read as the model wrote it (guard)", () => {
    expect(readText('<tool_call>\n{"name": "lookup_order", "input": {"order_id": "A-10', "stop").toolCalls[0]!.inputError).toMatch(/not valid JSON/);
  });
});
