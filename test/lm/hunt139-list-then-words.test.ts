/**
 * hunt 139: tools offered as text, a list of calls with words after it in
 * one `<tool_call>` block: `[lookup_order(order_id="A-1042")]` then "I will
 * wait for the result." Llama writes prose after its pythonic list though
 * told not to (vllm-project/vllm#56840: vLLM's streamed reading runs the
 * calls, its whole reading takes all of it for text), and Mistral's models
 * write words after their calls too (ml-explore/mlx-lm#1448). The block was read as one call with
 * an input error (the body, list and words, is no call's JSON): no tool
 * ran, and the model was asked again, paying for a reply to a call it had
 * written plainly. Decided: the list's calls, the words after them no
 * input, as words after a call's JSON object in a block already were (the
 * block is the model's call: what it wrote in it is neither the answer nor
 * shown). A list that is not whole or not calls is still one call with an
 * input error, the model told; outside a block, a list with words after
 * it stays the answer's text (read strictly: pythonic-calls.ts). With
 * tools offered natively, the check that refuses a call left in the text
 * reads blocks with the same reader: such a pythonic block, read as one
 * call with no name, was no offered tool's, and the reply was the answer.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { readOutput } from "../../src/lm/prompt.js";
import { chatCompletion, textSse } from "../providers/fixtures/hunt51-wire.js";
import { openai } from "../../src/providers/openai.js";
import { ask } from "../providers/fixtures/lookup-order.js";
import { failure } from "../providers/server.js";
import { chunkedText, readText, textToolsDesk } from "./fixtures.js";

const { local, seen, answer, lm } = textToolsDesk();
const ANSWER = "<result>\nIt has shipped.\n</result>";

const BLOCKS: Record<string, string> = {
  "Llama's pythonic list": '<tool_call>\n[lookup_order(order_id="A-1042")]\nI will wait for the result.\n</tool_call>',
  "Mistral's JSON list":
    '<tool_call>\n[{"name": "lookup_order", "arguments": {"order_id": "A-1042"}}]\nLet me check that order for you.\n</tool_call>',
  "a pythonic string holding brackets": '<tool_call>\n[lookup_order(order_id="A-1042 ]) (")]\nI will wait.\n</tool_call>',
};

/** The order a block's call asks for (a string holding brackets kept whole). */
const orderOf = (block: string): string => /A-1042[^"]*/.exec(block)![0];

/** The second request gives the model its call's result, and does not tell it its call was unreadable. */
function toldResult(): void {
  const told = JSON.stringify(local.server.requests[1]!.body.messages);
  expect(told).toContain('<tool_result name=\\"lookup_order\\"');
  expect(told).toContain("shipped");
  expect(told).not.toMatch(/not valid JSON|not a JSON object/);
}

describe("a list of calls, then words, in one <tool_call> block: the list's calls run", () => {
  for (const [name, block] of Object.entries(BLOCKS)) {
    it(`${name}, whole: the call runs once, then the model is asked once more, for the answer`, async () => {
      seen.length = 0;
      const model = { model: "llama3.1:8b", usage: [40, 22] } as const;
      local.server.reply({ json: chatCompletion(block, model) }, { json: chatCompletion(ANSWER, model) });
      await expect(answer("Where is A-1042?", { lm: lm() })).resolves.toBe("It has shipped.");
      expect(seen).toEqual([{ order_id: orderOf(block) }]);
      expect(local.server.requests).toHaveLength(2);
      toldResult();
    });

    it(`${name}, streamed: the same, and the words are shown to none`, async () => {
      seen.length = 0;
      local.server.reply({ sse: textSse(block, 6) }, { sse: textSse(ANSWER, 6) });
      const turn = answer.stream("Where is A-1042?", { lm: lm() });
      const shown: string[] = [];
      for await (const e of turn) if (e.type === "text") shown.push(e.delta);
      expect(await turn).toBe("It has shipped.");
      expect(shown.join("")).toBe("It has shipped.");
      expect(seen).toEqual([{ order_id: orderOf(block) }]);
      expect(local.server.requests).toHaveLength(2);
      toldResult();
    });
  }

  it("left unclosed, the reply ending after the words: the list's calls too", () => {
    const read = readText('<tool_call>\n[lookup_order(order_id="A-1042"), lookup_order(order_id="B-2210")]\nI will wait for the results.');
    expect(read.toolCalls.map(({ name, input, inputError }) => ({ name, input, inputError }))).toEqual([
      { name: "lookup_order", input: { order_id: "A-1042" }, inputError: undefined },
      { name: "lookup_order", input: { order_id: "B-2210" }, inputError: undefined },
    ]);
  });

  it("a list and then a block opened after the words and never closed: the calls of both", () => {
    const read = readText(
      '<tool_call>\n[lookup_order(order_id="A-1042")]\nAnd the other:\n<tool_call>\n{"name": "lookup_order", "arguments": {"order_id": "B-2210"}}\n</tool_call>',
    );
    expect(read.toolCalls.map((c) => c.input)).toEqual([{ order_id: "A-1042" }, { order_id: "B-2210" }]);
  });
});

describe("tools offered natively: such a block left in the text is the server's unread call, never the answer", () => {
  // (the check that refuses a call left in the text reads blocks with the same reader, lm/text-tools.ts blockCalls:
  // the block read as one call with no name, it was no offered tool's, and the reply, call and all, was the answer)
  for (const [name, block] of Object.entries(BLOCKS)) {
    it(`${name}: provider-response, whole and streamed`, async () => {
      const native = openai({ model: "llama3.1:8b", apiKey: "none", baseURL: `${local.server.url}/v1`, maxRetries: 0 });
      for (const [reply, options] of [
        [{ json: chatCompletion(`I'll look it up.\n${block}`, { model: "llama3.1:8b", usage: [40, 22] }) }, {}],
        [{ sse: textSse(block, 7) }, { onText: () => {} }],
      ] as const) {
        local.server.reply(reply);
        const e = await failure(native.generate(ask, options));
        expect(e.code).toBe("provider-response");
        expect(e.message).toContain('calling "lookup_order"');
      }
    });
  }
});

describe("still an input error, the model told (guard)", () => {
  const BROKEN: Record<string, string> = {
    "a list cut short, words after": '<tool_call>\n[lookup_order(order_id="A-1042"\nI will wait.\n</tool_call>',
    "a call written as an expression, words after": "<tool_call>\n[lookup_order(order_id=A-1042)]\nI will wait.\n</tool_call>",
    "a list of no calls, words after": "<tool_call>\n[1, 2]\nI will wait.\n</tool_call>",
  };
  for (const [name, block] of Object.entries(BROKEN)) {
    it(name, () => {
      const [call, ...more] = readText(block).toolCalls;
      expect(more).toEqual([]);
      expect(call?.inputError).toBeTypeOf("string");
    });
  }

  it("outside a block, a pythonic list with words after it is the answer's text, no call", () => {
    const read = readText('[lookup_order(order_id="A-1042")]\nI will wait for the result.');
    expect(read.toolCalls).toEqual([]);
  });
});

describe("property: however the chunks fall, the stream shows what the whole reply reads as the answer", () => {
  /** The answer's text as the whole reply is read: a reply with calls shows its words, one without is the answer. */
  const wholeText = (text: string): string => {
    const reply = readText(text);
    const read = readOutput(reply.toolCalls.length > 0 ? reply.text : text, z.string());
    return read.ok ? String(read.value) : "";
  };
  it("a list then words in a block, closed or not, an answer after it or not", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("", "Let me look.\n"),
        fc.constantFrom(...Object.values(BLOCKS).map((b) => b.slice("<tool_call>".length, -"</tool_call>".length))),
        fc.constantFrom("</tool_call>", ""),
        fc.constantFrom("", "\n<result>\nShipped.\n</result>"),
        fc.array(fc.nat(), { maxLength: 8 }),
        (before, body, close, after, cuts) => {
          const text = `${before}<tool_call>${body}${close}${close === "" ? "" : after}`;
          expect(
            readText(text).toolCalls.every((c) => c.inputError === undefined && c.name === "lookup_order"),
            text,
          ).toBe(true);
          expect(chunkedText(text, cuts), text).toBe(wholeText(text));
          expect(chunkedText(text, cuts)).not.toContain("lookup_order");
        },
      ),
      { numRuns: 1000 },
    );
  });
});
