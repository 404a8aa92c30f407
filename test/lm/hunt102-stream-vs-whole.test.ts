/**
 * hunt 102: tools offered as text, the answer's streamed text (`text`
 * events) against the reply read whole.
 *
 * A call block the model wrote inside its `<result>` block, then more words
 * (`<result>\nLet me check.\n<tool_call>{…}</tool_call>\nI'll tell you
 * once I know.\n</result>`): the stream stopped showing words at the call,
 * while the reply read whole kept the words after it, as it keeps the words
 * after a call anywhere else (the call is taken out, the words are the
 * model's). The stream now shows them too. A closed `<tool_call>` block
 * whose body is no call's JSON (`<tool_call>\n\n</tool_call>`, the model's
 * empty call) is read whole as a call (the model is told it wrote no
 * JSON), but the stream showed its tags as the answer's text; it now shows
 * only the words around it. A fenced call in the block (```` ```json ````
 * around the call, as models fence JSON) showed its fence. Read whole, a
 * call between two code blocks lost the first one's closing fence and the
 * next one's opening fence (read as a fence around the call).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { readOutput } from "../../src/lm/prompt.js";
import { chunkedText, readText, streamedText } from "./fixtures.js";

/** The answer's text as the whole reply is read: a reply with calls shows its words, one without is the answer. */
const wholeText = (text: string): string => {
  const reply = readText(text);
  const answer = readOutput(reply.toolCalls.length > 0 ? reply.text : text, z.string());
  return answer.ok ? String(answer.value) : "";
};

const CALL_JSON = '{"name": "lookup_order", "input": {"order_id": "A-1042"}}';
const CALL = `<tool_call>\n${CALL_JSON}\n</tool_call>`;

describe("a call block inside the <result> block, words after it", () => {
  const reply = `<result>\nLet me check that order.\n${CALL}\nI'll tell you its status once I have it.\n</result>`;

  it("streams the words on both sides of the call, as the reply reads whole", () => {
    expect(readText(reply).toolCalls).toEqual([{ id: "call_1", name: "lookup_order", input: { order_id: "A-1042" } }]);
    const words = "Let me check that order.\n\nI'll tell you its status once I have it.";
    expect(wholeText(reply)).toBe(words);
    for (const size of [1, 3, 8, reply.length]) expect(streamedText(reply, size)).toBe(words);
  });

  it("a call whose input holds </result> does not close the block", () => {
    const held = `<result>\nSaving your note.\n<tool_call>\n{"name": "save_note", "input": {"text": "end it with </result>"}}\n</tool_call>\nDone.\n</result>`;
    expect(readText(held).toolCalls.map((c) => c.input)).toEqual([{ text: "end it with </result>" }]);
    expect(wholeText(held)).toBe("Saving your note.\n\nDone.");
    for (const size of [1, 4, held.length]) expect(streamedText(held, size)).toBe("Saving your note.\n\nDone.");
  });
});

describe("a closed <tool_call> block whose body is no call's JSON, inside the <result> block", () => {
  for (const body of ["\n\n", "\nlookup_order A-1042\n"]) {
    const reply = `<result>\nLet me check that order.\n<tool_call>${body}</tool_call>\n</result>`;
    it(JSON.stringify(body), () => {
      // read whole it is a call the model is told it wrote no JSON in
      const [call] = readText(reply).toolCalls;
      expect(call!.inputError).toBeDefined();
      for (const size of [1, 6, reply.length]) expect(streamedText(reply, size)).toBe("Let me check that order.");
    });
  }
});

describe("a fenced call inside the <result> block", () => {
  it("shows neither the call nor its fence", () => {
    const reply = `<result>\nLet me check that order.\n\x60\x60\x60json\n${CALL}\n\x60\x60\x60\n</result>`;
    expect(readText(reply).toolCalls).toHaveLength(1);
    for (const size of [1, 2, 9, reply.length]) expect(streamedText(reply, size)).toBe("Let me check that order.");
  });
});

describe("a call between two code blocks, read whole", () => {
  // the first block's closing fence and the next one's opening fence were read as a fence around the call, and dropped
  const code = "\x60\x60\x60python\nprint(order.status)\n\x60\x60\x60";
  const data = '\x60\x60\x60json\n{"status": "shipped"}\n\x60\x60\x60';
  const calls = [
    ["a <tool_call> block", CALL],
    ["Llama's <function=…>", '<function=lookup_order>{"order_id": "A-1042"}</function>'],
  ];
  for (const [name, call] of calls) {
    it(`${name}: both code blocks are the answer's, whole and streamed`, () => {
      const reply = `<result>\n${code}\n${call}\n${data}\n</result>`;
      const { toolCalls, text } = readText(reply);
      expect(toolCalls).toHaveLength(1);
      expect(text).toBe(`<result>\n${code}\n\n${data}\n</result>`);
      for (const size of [1, 7, reply.length]) expect(streamedText(reply, size)).toBe(`${code}\n\n${data}`);
    });
  }
});

describe("property: any chunking of a reply shows what the reply reads whole", () => {
  // one call form per reply, as a model writes its calls, bare or fenced
  const forms = [
    [
      CALL,
      `\x60\x60\x60json\n${CALL}\n\x60\x60\x60`,
      "<tool_call>\n\n</tool_call>",
      `<tool_call>\n\x60\x60\x60json\n${CALL_JSON}\n\x60\x60\x60\n</tool_call>`,
    ],
    ["<tool_call>\n<function=lookup_order>\n<parameter=order_id>\nA-1042\n</parameter>\n</function>\n</tool_call>"],
    [
      '<function=lookup_order>{"order_id": "A-1042"}</function>',
      '\x60\x60\x60\n<function=lookup_order>{"order_id": "A-1042"}</function>\n\x60\x60\x60',
    ],
    ['<tool_calls>[{"name": "lookup_order", "arguments": {"order_id": "A-1042"}}]</tool_calls>'],
  ];
  // (a reply cut off inside its last call)
  const cutCalls = ['<tool_call>\n{"name": "lookup_order", "input": {"order_id": "A-10', '<function=lookup_order>{"order_id": "A-1', "<tool_call>\n"];
  const words = [
    "Let me check that order.",
    "A-1042 has shipped.",
    "It's `lookup_order` I need.",
    'She said "soon".',
    "a < b",
    '{"status": "shipped"}',
    '\x60\x60\x60json\n{"status": "shipped"}\n\x60\x60\x60',
    "</result>",
    "<result>",
    "<RESULT>",
    " ",
  ];
  const leads = [
    "",
    "<result>\n",
    "<think>\nThe user asks where A-1042 is. I should call lookup_order.\n</think>\n\n",
    "<think>\nDraft: <result>shipped</result>, but check first.\n</think>\n<result>\n",
    "The user asks where A-1042 is. I should call lookup_order.\n</think>\n\n",
  ];

  it("holds for replies made of words, result tags, reasoning, fences and calls of one form", () => {
    const reply = fc
      .tuple(
        fc.constantFrom(...leads),
        fc.constantFrom(...forms),
        fc.array(fc.oneof(fc.constantFrom(...words), fc.nat(3)), { maxLength: 8 }),
        fc.constantFrom("\n", "\n\n"),
        fc.constantFrom("", "\n</result>", ...cutCalls.map((c) => `\n${c}`)),
      )
      .map(([lead, form, pieces, sep, end]) => lead + pieces.map((p) => (typeof p === "number" ? form[p % form.length]! : p)).join(sep) + end);
    fc.assert(
      fc.property(reply, fc.array(fc.nat(500), { maxLength: 12 }), (text, cuts) => {
        expect(chunkedText(text, cuts)).toBe(wholeText(text));
      }),
      { numRuns: 3000 },
    );
  });
});
