/**
 * hunt 81: tools offered as text, a model's `<tool_call>` block whose JSON
 * has a trailing comma, or is written with single quotes (a Python dict, as
 * small local models write it), was refused as "not valid JSON"; with single
 * quotes the call's name was not even found, so the model was told
 * `there is no tool named ""`, which says nothing of what was wrong: it
 * wrote the same call again, paying reply after reply until the step limit.
 * Such a block is read as the object it plainly is (its trailing commas
 * left out, its single-quoted strings, True, False and None read as
 * Python's); anything that still cannot be read is refused as before, the
 * model told the tool's name and that its JSON is not valid.
 */
import { describe, expect, it } from "vitest";
import { fromTextResponse } from "../../src/lm/text-tools.js";
import { chatCompletion } from "../providers/fixtures/hunt51-wire.js";
import { textToolsDesk } from "./fixtures.js";

const completion = (content: string) => chatCompletion(content, { model: "llama3.1:8b", usage: [120, 14] });

const { local, seen, answer, lm } = textToolsDesk();
const read = (text: string) => fromTextResponse({ text, toolCalls: [], finishReason: "stop", usage: { inputTokens: 1, outputTokens: 1 } });

describe("a <tool_call> block whose JSON is loosely written", () => {
  for (const [what, body] of [
    ["single quotes", "{'name': 'lookup_order', 'input': {'order_id': 'A-1042'}}"],
    ["trailing commas", '{"name": "lookup_order", "input": {"order_id": "A-1042",},}'],
  ] as const) {
    it(`${what}: the tool runs once, and the model is told its result, not that the tool does not exist`, async () => {
      seen.length = 0;
      local.server.reply(
        { json: completion(`<tool_call>\n${body}\n</tool_call>`) },
        { json: completion("<result>\nA-1042 has shipped.\n</result>") },
      );
      await expect(answer("Where is A-1042?", { lm: lm() })).resolves.toBe("A-1042 has shipped.");
      expect(seen).toEqual([{ order_id: "A-1042" }]);
      expect(local.server.requests).toHaveLength(2);
      expect(JSON.stringify(local.server.requests[1]!.body)).not.toMatch(/no tool named|could not be read/);
    });
  }

  it("Python's words and JSON's both read; what is still not an object is refused, naming the tool", () => {
    const loose = read(
      "<tool_call>\n{'name': 'lookup_order', 'input': {'order_id': 'A-1042', 'rush': True, 'note': None, 'gift': false,}}\n</tool_call>",
    );
    expect(loose.toolCalls).toEqual([{ id: "call_1", name: "lookup_order", input: { order_id: "A-1042", rush: true, note: null, gift: false } }]);
    for (const body of ["{'name': 'lookup_order', 'input': {'order_id': A-1042}}", "{'name': 'lookup_order', 'input': {'order_id': 'A-1042'}"]) {
      const [call] = read(`<tool_call>\n${body}\n</tool_call>`).toolCalls;
      expect(call).toMatchObject({ name: "lookup_order", input: body });
      expect(call!.inputError).toMatch(/not valid JSON/);
    }
  });
});
