/**
 * hunt 105: tools offered as text, the call tags a model names in prose and
 * the code fences around its calls.
 *
 * A `<tool_call>` tag named in prose before a real call (`I will answer
 * with a <tool_call> block.` then the block) was read from the named tag to
 * the real block's closing tag: the real call got an input error and never
 * ran, and the words after the named tag were eaten. The named tag is now
 * text and the call after it is read.
 *
 * Fences were not paired: the closing fence of an earlier code block, a
 * call, then the opening fence of a later block (both plain ```) were read
 * as a fence around the call, and both fences were dropped from the text,
 * which then showed the code blocks broken. Only a fence that opens (the
 * code before it has as many opening fences as closing ones) and the fence
 * that closes it are taken with the call.
 *
 * Both hold for the reply read whole and for its streamed text alike.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { readOutput } from "../../src/lm/prompt.js";
import { replyText } from "../../src/lm/reply-text.js";
import { blockCalls } from "../../src/lm/text-tools.js";
import { chatCompletion } from "../providers/fixtures/hunt51-wire.js";
import { readText, streamedText, textToolsDesk } from "./fixtures.js";

/** The answer's text as the whole reply is read: a reply with calls shows its words, one without is the answer. */
const wholeText = (text: string): string => {
  const reply = readText(text);
  const answer = readOutput(reply.toolCalls.length > 0 ? reply.text : text, z.string());
  return answer.ok ? String(answer.value) : "";
};

const CALL = '<tool_call>\n{"name": "lookup_order", "input": {"order_id": "A-1042"}}\n</tool_call>';
const CALL_B = '<tool_call>{"name":"lookup_order","arguments":{"order_id":"B-2210"}}</tool_call>';
const A = { name: "lookup_order", input: { order_id: "A-1042" } };
const B = { name: "lookup_order", input: { order_id: "B-2210" } };
const FENCE = "\x60\x60\x60";

/** The calls read whole, without their ids. */
const callsOf = (text: string) => readText(text).toolCalls.map(({ id: _, ...call }) => call);

describe("a <tool_call> tag named in prose before a real call", () => {
  const replies: [string, string, object[]][] = [
    [`I will answer with a <tool_call> block.\n${CALL}`, "I will answer with a <tool_call> block.", [A]],
    [`The <tool_call> tag wraps a call, so here is mine:\n${CALL_B}`, "The <tool_call> tag wraps a call, so here is mine:", [B]],
    [`${CALL}\nNext, another <tool_call> block for B-2210:\n${CALL_B}`, "Next, another <tool_call> block for B-2210:", [A, B]],
    [`Two <tool_call> blocks, one per <tool_call>:\n${CALL}\n${CALL_B}`, "Two <tool_call> blocks, one per <tool_call>:", [A, B]],
  ];
  for (const [reply, words, calls] of replies) {
    it(`${JSON.stringify(reply.slice(0, 50))}: the real calls are read, the named tag is text`, () => {
      expect(callsOf(reply)).toEqual(calls);
      expect(readText(reply).text).toBe(words);
      expect(blockCalls(reply).calls.map((c) => c.inputError)).toEqual(calls.map(() => undefined));
      for (const size of [1, 4, reply.length]) expect(streamedText(reply, size)).toBe(words);
    });
  }

  it("inside the <result> block: the words on both sides are the answer's, the call is read", () => {
    const reply = `<result>\nI will look it up with a <tool_call> block.\n${CALL}\nI'll tell you once I know.\n</result>`;
    expect(callsOf(reply)).toEqual([A]);
    const words = "I will look it up with a <tool_call> block.\n\nI'll tell you once I know.";
    expect(wholeText(reply)).toBe(words);
    for (const size of [1, 5, reply.length]) expect(streamedText(reply, size)).toBe(words);
  });

  it("a named tag before an empty block: the block is the call the model is told about, the words stay", () => {
    const reply = "I will answer with a <tool_call> block.\n<tool_call>\n\n</tool_call>";
    const [call, ...more] = readText(reply).toolCalls;
    expect(more).toEqual([]);
    expect(call!.input).toBe("");
    expect(readText(reply).text).toBe("I will answer with a <tool_call> block.");
  });

  it("a call whose input holds the tag, after the tag named in prose, is one call, its input whole", () => {
    const reply =
      'Saving it as a <tool_call> block:\n<tool_call>\n{"name": "save_note", "input": {"text": "wrap calls in <tool_call> tags"}}\n</tool_call>';
    expect(callsOf(reply)).toEqual([{ name: "save_note", input: { text: "wrap calls in <tool_call> tags" } }]);
    expect(readText(reply).text).toBe("Saving it as a <tool_call> block:");
  });

  describe("end to end", () => {
    const { local, seen, answer, lm } = textToolsDesk();
    const completion = (content: string) => chatCompletion(content, { model: "llama3.1:8b", usage: [120, 30] });

    it("the tool runs with the model's input; the answer is the next reply's", async () => {
      seen.length = 0;
      local.server.reply(
        { json: completion(`I will answer with a <tool_call> block.\n${CALL}`) },
        { json: completion("<result>\nA-1042 has shipped.\n</result>") },
      );
      await expect(answer("Where is A-1042?", { lm: lm() })).resolves.toBe("A-1042 has shipped.");
      expect(seen).toEqual([{ order_id: "A-1042" }]);
      expect(JSON.stringify(local.server.requests[1]!.body)).not.toContain("could not be read");
    });
  });
});

describe("both tags named in prose or in code, no call", () => {
  const mentions = [
    "Wrap each call in <tool_call> and </tool_call> tags.",
    "Write `<tool_call>` and `</tool_call>` around each call.",
    "<result>\nEach call goes between <tool_call></tool_call> tags, one per call.\n</result>",
  ];
  for (const text of mentions) {
    it(`${JSON.stringify(text.slice(0, 40))} is text, and a call the model then writes is one`, () => {
      expect(readText(text)).toMatchObject({ text, toolCalls: [] });
      expect(blockCalls(text).calls).toEqual([]);
      for (const size of [1, 5, text.length]) expect(streamedText(text, size)).toBe(wholeText(text));
      expect(wholeText(text)).toBe(text.replace(/<\/?result>/g, "").trim());
      const calling = text.endsWith("</result>") ? `${text.slice(0, -"\n</result>".length)}\n${CALL}` : `${text}\n${CALL}`;
      expect(callsOf(calling)).toEqual([A]);
      for (const size of [1, 5, calling.length]) expect(streamedText(calling, size)).toBe(wholeText(calling));
    });
  }

  it("streamed, the words after a tag named in prose are shown as they come, not held to the reply's end", () => {
    let shown = "";
    const reply = replyText((delta) => (shown += delta), { textTools: true });
    reply.push("<result>\nWrap each call in <tool_call> and </tool_call> tags.");
    reply.push(" Each block holds one call's JSON.\n");
    expect(shown).toBe("Wrap each call in <tool_call> and </tool_call> tags. Each block holds one call's JSON.");
    reply.push("Then wait for its <tool_result>.\n</result>");
    reply.end();
    expect(shown).toBe("Wrap each call in <tool_call> and </tool_call> tags. Each block holds one call's JSON.\nThen wait for its <tool_result>.");
  });

  describe("end to end", () => {
    const { local, seen, answer, lm } = textToolsDesk();
    const completion = (content: string) => chatCompletion(content, { model: "llama3.1:8b", usage: [120, 30] });

    it("an answer that explains the tags is the answer, no call", async () => {
      seen.length = 0;
      const said = "Wrap each call in <tool_call> and </tool_call> tags.";
      local.server.reply({ json: completion(`<result>\n${said}\n</result>`) });
      await expect(answer("How do you call a tool?", { lm: lm() })).resolves.toBe(said);
      expect(local.server.requests).toHaveLength(1);
    });
  });
});

describe("a block the model never closed before opening the next", () => {
  const reply =
    '<tool_call>\n{"name": "lookup_order", "input": {"order_id": "A-1042"}}\n<tool_call>\n{"name": "lookup_order", "input": {"order_id": "B-2210"}}\n</tool_call>';
  it("both calls are read (the second was dropped, never run and never told)", () => {
    expect(callsOf(reply)).toEqual([A, B]);
    expect(callsOf(`Checking both.\n${reply}\n${CALL}`)).toEqual([A, B, A]);
    for (const size of [1, 6, reply.length]) expect(streamedText(`Checking both.\n${reply}`, size)).toBe("Checking both.");
  });
});

describe("fences are paired: only a fence that opens, and the one closing it, are taken with a call", () => {
  const code = `${FENCE}python\nprint(order.status)\n${FENCE}`;
  const data = `${FENCE}\n{"status": "shipped"}\n${FENCE}`;
  it("a call between a code block's closing fence and the next plain block's opening fence keeps both", () => {
    for (const inResult of [false, true]) {
      const body = `${code}\n${CALL}\n${data}`;
      const reply = inResult ? `<result>\n${body}\n</result>` : body;
      expect(callsOf(reply)).toEqual([A]);
      const words = `${code}\n\n${data}`;
      expect(readText(reply).text).toBe(inResult ? `<result>\n${words}\n</result>` : words);
      for (const size of [1, 3, 8, reply.length]) expect(streamedText(reply, size)).toBe(words);
    }
  });

  it("after a code block, a fenced call loses its own fence only", () => {
    const reply = `${code}\n${CALL}\n${FENCE}\n${CALL_B}\n${FENCE}`;
    expect(callsOf(reply)).toEqual([A, B]);
    expect(readText(reply).text).toBe(`${code}`);
    for (const size of [1, 6, reply.length]) expect(streamedText(reply, size)).toBe(code);
  });

  it("a Llama <function=…> call between two plain code blocks keeps their fences", () => {
    const call = '<function=lookup_order>{"order_id": "A-1042"}</function>';
    const reply = `<result>\n${code}\n${call}\n${data}\n</result>`;
    expect(callsOf(reply)).toEqual([A]);
    for (const size of [1, 7, reply.length]) expect(streamedText(reply, size)).toBe(`${code}\n\n${data}`);
  });

  it("streamed, a fence after a call that then names a language opens a code block: the fence before the call is kept", () => {
    // (streamed, the closing fence was taken, with the one before the call, as a fence around the call before its `json` came)
    const reply = `<result>\n${FENCE}\n${CALL}\n${FENCE}json\n{"status": "shipped"}\n${FENCE}\n</result>`;
    expect(callsOf(reply)).toEqual([A]);
    const words = `${FENCE}\n\n${FENCE}json\n{"status": "shipped"}\n${FENCE}`;
    expect(wholeText(reply)).toBe(words);
    for (const size of [1, 2, 3]) expect(streamedText(reply, size)).toBe(words);
  });

  it("a fence the preamble leaves open is closed by the one before the call: the call is not fenced", () => {
    const reply = `Here is the data:\n${FENCE}\n{"status": "shipped"}\n<result>\n${FENCE}\n${CALL}\n${FENCE}\nDone.\n</result>`;
    expect(callsOf(reply)).toEqual([A]);
    for (const size of [1, 5, reply.length]) expect(streamedText(reply, size)).toBe(wholeText(reply));
    expect(wholeText(reply)).toBe(`${FENCE}\n\n${FENCE}\nDone.`);
  });
});

describe("property: calls among prose tags, code blocks and fenced calls", () => {
  const calls = [
    [CALL, A],
    [CALL_B, B],
    [`${FENCE}json\n${CALL}\n${FENCE}`, A],
    [`${FENCE}\n${CALL_B}\n${FENCE}`, B],
    ['<function=lookup_order>{"order_id": "B-2210"}</function>', B],
    [`${FENCE}\n<function=lookup_order>{"order_id": "A-1042"}</function>\n${FENCE}`, A],
    ['<tool_calls>[{"name": "lookup_order", "arguments": {"order_id": "A-1042"}}]</tool_calls>', A],
  ] as const;
  const words = [
    "Let me check that order.",
    "I will answer with a <tool_call> block.",
    "Each <tool_call> holds one call; I write a <tool_call> per order.",
    "Llama writes the <function=lookup_order> tag.",
    "The plural <tool_calls> tag holds a list.",
    "Wrap each call in <tool_call> and </tool_call> tags.",
    `${FENCE}python\nprint(order.status)\n${FENCE}`,
    `${FENCE}\n{"status": "shipped"}\n${FENCE}`,
    `${FENCE}json\n{"status": "shipped"}\n${FENCE}`,
    "a < b",
  ];

  it("every call written is read with its input, the other pieces' fences are all kept, and it streams as it reads", () => {
    const piece = fc.oneof(fc.constantFrom(...words), fc.nat(calls.length - 1));
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.array(piece, { minLength: 1, maxLength: 7 }),
        fc.constantFrom("\n", "\n\n", " "),
        fc.integer({ min: 1, max: 9 }),
        (inResult, pieces, sep, size) => {
          const body = pieces.map((p) => (typeof p === "number" ? calls[p]![0] : p)).join(sep);
          const reply = inResult ? `<result>\n${body}\n</result>` : body;
          const written = pieces.flatMap((p) => (typeof p === "number" ? [calls[p]![1]] : []));
          // (the <tool_call> blocks are read before the calls in a model's own tags: a reply mixing forms has its calls in that order)
          const byOrder = (calls: readonly { input: unknown }[]) => calls.map((c) => JSON.stringify(c)).sort();
          expect(byOrder(callsOf(reply))).toEqual(byOrder(written));
          expect(readText(reply).toolCalls.every((c) => c.inputError === undefined)).toBe(true);
          const fences = (text: string): number => text.split(FENCE).length - 1;
          const kept = pieces.map((p) => (typeof p === "number" ? 0 : fences(p))).reduce((a, b) => a + b, 0);
          expect(fences(readText(reply).text)).toBe(kept);
          expect(streamedText(reply, size)).toBe(wholeText(reply));
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe("property: any chunking shows what the reply reads whole, with stray fences and named tags", () => {
  const pieces = [
    CALL,
    `${FENCE}\n${CALL}\n${FENCE}`,
    '<function=lookup_order>{"order_id": "A-1042"}</function>',
    '<tool_call>\n{"name": "lookup_order", "input": {"order_id": "A-10',
    "<tool_call>\n\n</tool_call>",
    FENCE,
    `${FENCE}json`,
    "I will answer with a <tool_call> block.",
    "Write `<tool_call>` and `</tool_call>` around it.",
    "the <function=lookup_order> tag",
    "Let me check.",
    "<result>",
    "</result>",
    "`",
    " ",
  ];

  it("holds for replies made of these pieces, cut anywhere", () => {
    const reply = fc.array(fc.constantFrom(...pieces), { maxLength: 10 }).chain((ps) => fc.constantFrom("\n", " ").map((sep) => ps.join(sep)));
    fc.assert(
      fc.property(reply, fc.integer({ min: 1, max: 11 }), (text, size) => {
        expect(streamedText(text, size)).toBe(wholeText(text));
      }),
      { numRuns: 3000 },
    );
  });
});

describe("a reply holding the character that marks where calls were", () => {
  it("keeps every noncharacter the model wrote, whole and streamed; the call is read", () => {
    const text = `Keep \uFDD0 and \uFDD1 here.\n<tool_call>{"name":"lookup","arguments":{"q":"x"}}</tool_call>\n\`\`\`\ncode \uFDD0\n\`\`\``;
    const reply = readText(text);
    expect(callsOf(text)).toEqual([{ name: "lookup", input: { q: "x" } }]);
    expect(reply.text).toContain("Keep \uFDD0 and \uFDD1 here.");
    expect(reply.text).toContain("code \uFDD0");
    for (const size of [1, 3, text.length]) expect(streamedText(text, size)).toBe(reply.text);
  });
});
