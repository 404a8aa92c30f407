/**
 * hunt 92: tools offered as text, calls written in forms the reader missed
 * or misread.
 *
 * Qwen3-Coder writes its calls in its own form inside the `<tool_call>`
 * block it was asked for (`<function=lookup_order>` with one
 * `<parameter=…>` tag per argument, as its chat template taught it). The
 * block was read as a call with no name, so the model was told only
 * `there is no tool named ""`: nothing about what was wrong, and it wrote
 * the same call again. The call now names its tool and the model is told
 * to write the JSON form (the values are bare text whose types only the
 * tool's schema would tell, so they are not guessed). Streamed, such a
 * call after words in the `<result>` block was shown as the answer's text.
 *
 * A reply whose reasoning names the `<tool_call>` tag, then calls as a
 * pythonic list (Llama's form): streamed, its text was read as the call
 * (nothing shown), while the reply itself was read as no call, its list
 * the answer. Both now read the list as the call: the tag the reasoning
 * named is no block of the reply's.
 */
import { describe, expect, it } from "vitest";
import { chatCompletion } from "../providers/fixtures/hunt51-wire.js";
import { readText, streamedText, textToolsDesk } from "./fixtures.js";

const completion = (content: string) => chatCompletion(content, { model: "Qwen/Qwen3-Coder-30B-A3B-Instruct", usage: [120, 30] });

const QWEN3_CODER = "<tool_call>\n<function=lookup_order>\n<parameter=order_id>\nA-1042\n</parameter>\n</function>\n</tool_call>";
const JSON_CALL = '<tool_call>\n{"name": "lookup_order", "input": {"order_id": "A-1042"}}\n</tool_call>';

describe("Qwen3-Coder's <function=…> form in a <tool_call> block", () => {
  const { local, seen, answer, lm } = textToolsDesk();

  it("is a call of the tool it names that does not run, saying which form to write", () => {
    const [call, ...more] = readText(QWEN3_CODER).toolCalls;
    expect(more).toEqual([]);
    expect(call).toMatchObject({ id: "call_1", name: "lookup_order", input: QWEN3_CODER.slice("<tool_call>\n".length, -"\n</tool_call>".length) });
    expect(call!.inputError).toMatch(/not JSON: write \{"name": …, "input": \{…\}\}/);
  });

  it("streamed after words, inside the reply form's block or with its closing tag left out: only the words are shown, as the reply is read", () => {
    for (const reply of [`<result>\nLet me look that up.\n${QWEN3_CODER}`, `Let me look that up.\n${QWEN3_CODER.replace("\n</tool_call>", "")}`]) {
      const whole = readText(reply);
      expect(whole.toolCalls.map((c) => c.name)).toEqual(["lookup_order"]);
      for (const size of [1, 4, reply.length]) expect(streamedText(reply, size)).toBe("Let me look that up.");
    }
  });

  it("end to end: the model is told its input for lookup_order was not read, not that the tool does not exist; the JSON call then runs", async () => {
    seen.length = 0;
    local.server.reply(
      { json: completion(QWEN3_CODER) },
      { json: completion(JSON_CALL) },
      { json: completion("<result>\nA-1042 has shipped.\n</result>") },
    );
    await expect(answer("Where is A-1042?", { lm: lm() })).resolves.toBe("A-1042 has shipped.");
    expect(seen).toEqual([{ order_id: "A-1042" }]);
    const told = JSON.stringify(local.server.requests[1]!.body);
    expect(told).toContain("the input for lookup_order could not be read");
    expect(told).not.toContain("no tool named");
  });
});

describe("a pythonic call after reasoning that named the <tool_call> tag", () => {
  const reply =
    "<think>\nThe user asks where order A-1042 is. The instructions show a <tool_call> block, but a list of calls works too.\n</think>\n\n" +
    '[lookup_order(order_id="A-1042")]';

  it("is read as the call, as its streamed text reads it (no text shown)", () => {
    const { toolCalls, finishReason } = readText(reply);
    expect(toolCalls).toEqual([{ id: "call_1", name: "lookup_order", input: { order_id: "A-1042" } }]);
    expect(finishReason).toBe("tool_calls");
    for (const size of [1, 7, reply.length]) expect(streamedText(reply, size)).toBe("");
  });
});
