/**
 * hunt 97: tools offered as text, calls written in a model's own tags
 * without the `<tool_call>` block it was asked for.
 *
 * Llama 3.1's custom tool form, which Llama 4 writes too (llama.cpp reads it
 * as `<function=(\w+)>` + JSON + `</function>`, anywhere in the reply; vLLM's
 * llama3_user_defined_custom parser the same):
 * `<function=lookup_order>{"order_id": "A-1042"}</function>`, no wrapper.
 * Hunyuan-A13B's plural block, a JSON list of calls (vLLM's hunyuan_a13b
 * parser): `<tool_calls>[{"name": …, "arguments": {…}}, …]</tool_calls>`.
 * Neither was read: the reply was taken for the answer, its tags the
 * customer's text, and the tool never ran. Both are now calls, read whole
 * and streamed alike; the tags only named in prose or in code are not.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { readOutput } from "../../src/lm/prompt.js";
import { blockCalls } from "../../src/lm/text-tools.js";
import { chatCompletion } from "../providers/fixtures/hunt51-wire.js";
import { readText, streamedText, textToolsDesk } from "./fixtures.js";

/** The answer's text as the whole reply is read: a reply with calls shows its words, one without is the answer. */
const wholeText = (text: string): string => {
  const reply = readText(text);
  const answer = readOutput(reply.toolCalls.length > 0 ? reply.text : text, z.string());
  return answer.ok ? String(answer.value) : "";
};

const A = '<function=lookup_order>{"order_id": "A-1042"}</function>';
const B = '<function=lookup_order>{"order_id": "B-2210"}</function>';
const HUNYUAN =
  '<tool_calls>[{"name": "lookup_order", "arguments": {"order_id": "A-1042"}}, {"name": "lookup_order", "arguments": {"order_id": "B-2210"}}]</tool_calls>';
const both = [
  { id: "call_1", name: "lookup_order", input: { order_id: "A-1042" } },
  { id: "call_2", name: "lookup_order", input: { order_id: "B-2210" } },
];

describe("Llama's <function=…>{…}</function> without a <tool_call> block", () => {
  it("is a call of the tool it names, its JSON the input, words before it the reply's text", () => {
    expect(readText(A)).toMatchObject({ text: "", toolCalls: [both[0]], finishReason: "tool_calls" });
    expect(readText(`${A}\n${B}`).toolCalls).toEqual(both);
    expect(readText(`Let me look that order up.\n\n${A}`)).toMatchObject({ text: "Let me look that order up.", toolCalls: [both[0]] });
    expect(readText(`Checking both orders:${A}${B}`)).toMatchObject({ text: "Checking both orders:", toolCalls: both });
    // fenced, as models fence JSON: the fence is no more the model's words than the call is
    expect(readText(`\x60\x60\x60\n${A}\n${B}\n\x60\x60\x60`)).toMatchObject({ text: "", toolCalls: both });
  });

  it("inside a <tool_call> block, its JSON is the input (it was told it wrote no JSON)", () => {
    const { toolCalls } = readText(`<tool_call>\n${A}\n</tool_call>`);
    expect(toolCalls).toEqual([both[0]]);
  });

  it("cut off by the length limit: a call that does not run, never the answer", () => {
    const reply = readText('<function=lookup_order>{"order_id": "A-10', "length");
    expect(reply.text).toBe("");
    expect(reply.toolCalls).toHaveLength(1);
    expect(reply.toolCalls[0]).toMatchObject({ name: "lookup_order" });
    expect(reply.toolCalls[0]!.inputError).toBeDefined();
  });

  it("a body that is not valid JSON is a call the model is told about", () => {
    const [call] = readText('<function=lookup_order>{"order_id": A-1042}</function>').toolCalls;
    expect(call).toMatchObject({ name: "lookup_order" });
    expect(call!.inputError).toMatch(/not valid JSON/);
  });
});

describe("Hunyuan's <tool_calls>[…]</tool_calls>, a JSON list of calls", () => {
  it("is each call of the list, in order", () => {
    expect(readText(HUNYUAN)).toMatchObject({ text: "", toolCalls: both, finishReason: "tool_calls" });
    expect(readText(`<think>\nThe user asks about two orders.\n</think>\n${HUNYUAN}`).toolCalls).toEqual(both);
  });

  it("one object rather than a list is one call", () => {
    const one = '<tool_calls>\n{"name": "lookup_order", "arguments": {"order_id": "A-1042"}}\n</tool_calls>';
    expect(readText(one).toolCalls).toEqual([both[0]]);
  });
});

describe("streamed, the text shown is the reply's text as it is read whole", () => {
  const replies = [
    A,
    `${A}\n${B}`,
    `Let me look that order up.\n\n${A}`,
    HUNYUAN,
    `I'll check both.\n${HUNYUAN}`,
    `<result>\nLet me look that up.\n${A}`,
    `<result>\nChecking both orders.\n${HUNYUAN}`,
    '<result>\nChecking.\n<function=lookup_order>{"order_id": "A-10',
  ];
  for (const reply of replies) {
    it(JSON.stringify(reply.slice(0, 40)), () => {
      expect(readText(reply).toolCalls.length).toBeGreaterThan(0);
      for (const size of [1, 3, 7, reply.length]) expect(streamedText(reply, size)).toBe(wholeText(reply));
    });
  }
});

describe("the tags only named in prose or in code are no call", () => {
  const mentions = [
    'Llama 4 writes its calls as `<function=get_weather>{"city": "Paris"}</function>`, with no wrapper.',
    "Some models write the plural tag <tool_calls> with a JSON list inside.",
    "Write <function=name>{args}</function> to call a tool.",
    '```python\nreply = \'<function=lookup_order>{"order_id": "A-1042"}</function>\'\n```',
    '<result>\nLlama writes `<function=lookup_order>{"order_id": "A-1042"}</function>`.\n</result>',
    "<result>\nThe `<tool_calls>[{...}]</tool_calls>` form holds a list.\n</result>",
  ];
  for (const text of mentions) {
    it(`${JSON.stringify(text.slice(0, 40))}, and a call the model then writes is one`, () => {
      expect(readText(text).toolCalls).toEqual([]);
      expect(blockCalls(text).calls).toEqual([]);
      for (const size of [1, 5, text.length]) expect(streamedText(text, size)).toBe(wholeText(text));
      // the same reply, the model then calling: only the call written is read
      const calling = text.endsWith("</result>") ? `${text.slice(0, -"\n</result>".length)}\n${A}` : `${text}\n${A}`;
      expect(readText(calling).toolCalls).toEqual([both[0]]);
      for (const size of [1, 5, calling.length]) expect(streamedText(calling, size)).toBe(wholeText(calling));
    });
  }

  it("property: a tag in inline code or a string, amid any words, is no call, and streams as it reads", () => {
    const word = fc.stringMatching(/^[A-Za-z ,.]{0,12}$/);
    const tag = fc.constantFrom(A, HUNYUAN, '<function=x>{"a": 1}');
    const quote = fc.constantFrom("`", '"', "'");
    fc.assert(
      fc.property(word, tag, quote, word, fc.integer({ min: 1, max: 9 }), (before, t, q, after, size) => {
        const text = `${before}${q}${t}${q}${after}`;
        expect(readText(text).toolCalls).toEqual([]);
        expect(streamedText(`<result>\n${text}\n</result>`, size)).toBe(text.trim());
        // written after the words, not named, it is a call
        expect(readText(`${text}\n${t}`).toolCalls.length).toBeGreaterThan(0);
      }),
    );
  });
});

describe("property: any mix of calls, mentions and words streams as it reads whole", () => {
  it("holds for replies made of the pieces models write", () => {
    const piece = fc.constantFrom(
      A,
      B,
      HUNYUAN,
      '<function=lookup_order>{"order_id": "A-10',
      '<tool_calls>[{"name": "lookup_order", "arguments": {"order_id": "A-1',
      "Let me check.",
      " ",
      "\n",
      "`",
      "'",
      '"',
      "\n</result>",
      "the <function=name> tag",
      "the <tool_calls> tag",
      "{args}",
      "[1, 2]",
      "a < b",
    );
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.array(piece, { maxLength: 10 }),
        fc.constantFrom(A, HUNYUAN),
        fc.integer({ min: 1, max: 9 }),
        (inBlock, pieces, call, size) => {
          // (the reply ends with a call the model wrote: whatever came before, it is read)
          const words = `${inBlock ? "<result>\n" : ""}${pieces.join("")}`;
          const text = `${words}\n${call}`;
          expect(readText(text).toolCalls.length).toBeGreaterThan(0);
          const shown = streamedText(text, size);
          // (a call inside the `<result>` block is no part of the words shown there; the words around it are, as the reply reads whole)
          expect(shown).toBe(wholeText(text));
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe("blockCalls (what the native-tools refusal reads) tells them apart the same way", () => {
  it("reads both forms as calls, and not a mention", () => {
    expect(blockCalls(`I'll look that up.\n${A}`).calls.map((c) => [c.name, c.input])).toEqual([["lookup_order", { order_id: "A-1042" }]]);
    expect(blockCalls(HUNYUAN).calls.map((c) => c.name)).toEqual(["lookup_order", "lookup_order"]);
    expect(blockCalls("Llama writes `<function=lookup_order>{}</function>`.").calls).toEqual([]);
  });
});

describe("end to end, tools as text", () => {
  const { local, seen, answer, lm } = textToolsDesk();
  const completion = (content: string) => chatCompletion(content, { model: "meta-llama/Llama-4-Scout-17B-16E-Instruct", usage: [120, 30] });

  it("Llama 4's unwrapped call runs the tool; the answer is the next reply's", async () => {
    seen.length = 0;
    local.server.reply({ json: completion(A) }, { json: completion("<result>\nA-1042 has shipped.\n</result>") });
    await expect(answer("Where is A-1042?", { lm: lm() })).resolves.toBe("A-1042 has shipped.");
    expect(seen).toEqual([{ order_id: "A-1042" }]);
  });
});
