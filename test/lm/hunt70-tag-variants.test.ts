/**
 * Closing tags written with white space before their `>` (`</result >`,
 * `</tool_call >`, `</think >`, or a line break there), as real models
 * sometimes write them. The prompt already treats them as closing tags
 * (an input holding `</result >` is escaped, see inBlock), but the readers
 * did not:
 * - `<result>…</result >` was read as a block never closed: the answer was
 *   the body with `</result >` in it (and streamed so);
 * - two `<tool_call>` blocks closed by `</tool_call >` were read as one
 *   block never closed: the second call was lost (never run);
 * - `<think>…</think >` was read as reasoning never closed: the answer
 *   after it was lost ("holds only the model's reasoning").
 * Now each closing tag is read with white space before its `>`, the same
 * way by the whole-reply readers and the streamed text (and still never
 * inside a thought or a call's input).
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, tool } from "../../src/index.js";
import { readOutput } from "../../src/lm/prompt.js";
import { replyText } from "../../src/lm/reply-text.js";
import { fromTextResponse } from "../../src/lm/text-tools.js";
import { leadingThought } from "../../src/lm/thinking.js";
import type { LMResponse } from "../../src/lm/types.js";
import { scripted } from "../../src/testing/index.js";

const reply = (text: string): LMResponse => ({ text, toolCalls: [], finishReason: "stop", usage: { inputTokens: 1, outputTokens: 1 } });

/** What the streamed text shows for `text` sent in pieces of `size` characters. */
function streamed(text: string, size: number, textTools = false): string {
  const out: string[] = [];
  const r = replyText((d) => out.push(d), { textTools });
  for (let i = 0; i < text.length; i += size) r.push(text.slice(i, i + size));
  r.end();
  return out.join("");
}

describe("</result > (white space before >) closes the block", () => {
  for (const close of ["</result >", "</result\n>", "</RESULT  >"]) {
    const text = `<result>\nIt is at the carrier.\n${close}\nAnything else?`;
    it(`read whole: ${JSON.stringify(close)}`, () => {
      expect(readOutput(text, z.string())).toEqual({ ok: true, value: "It is at the carrier." });
      expect(readOutput(`<result>{"n": 2}${close}`, z.object({ n: z.number() }))).toEqual({ ok: true, value: { n: 2 } });
    });
    it(`streamed, however the chunks split it: ${JSON.stringify(close)}`, () => {
      for (const size of [1, 2, 3, 5, 7, 100]) expect(streamed(text, size)).toBe("It is at the carrier.");
    });
    it(`a block closed so is whole, not cut off, at the length limit: ${JSON.stringify(close)}`, () => {
      expect(readOutput(`<result>\n12345\n${close}`, z.string(), "length")).toEqual({ ok: true, value: "12345" });
    });
  }

  it("a tag with other words before its > is no closing tag (</results>, </result x>)", () => {
    expect(readOutput("<result>\na </results> b\n</result>", z.string())).toEqual({ ok: true, value: "a </results> b" });
    expect(streamed("<result>\na </results> b\n</result>", 3)).toBe("a </results> b");
  });

  it("an AI function answers with the body (not `</result >` in its answer)", async () => {
    const answer = ai("answer", { description: "Answer.", input: { question: z.string() }, output: z.string() });
    const lm = scripted(["<result>\nIt is at the carrier.\n</result >"]);
    const deltas: string[] = [];
    const s = answer.stream("Where is A-1042?", { lm });
    for await (const e of s) if (e.type === "text") deltas.push(e.delta);
    expect(await s).toBe("It is at the carrier.");
    expect(deltas.join("")).toBe("It is at the carrier.");
  });
});

describe("</tool_call > closes a call block (tools as text)", () => {
  const calls =
    '<tool_call>\n{"name": "lookup", "input": {"id": "A"}}\n</tool_call >\n<tool_call>\n{"name": "lookup", "input": {"id": "B"}}\n</tool_call >';

  it("each block is its own call: none lost", () => {
    const read = fromTextResponse(reply(`Let me look.\n${calls}`));
    expect(read.toolCalls.map((c) => c.input)).toEqual([{ id: "A" }, { id: "B" }]);
    expect(read.text).toBe("Let me look.");
  });

  it("the streamed words leave the blocks out", () => {
    for (const size of [1, 4, 9, 1000]) expect(streamed(`Let me look.\n${calls}`, size, true)).toBe("Let me look.");
  });

  it("an AI function runs both calls", async () => {
    const seen: string[] = [];
    const lookup = tool("lookup", { description: "Look up.", input: { id: z.string() }, effects: "reads" }, ({ id }) => {
      seen.push(id);
      return `${id}: shipped`;
    });
    const answer = ai("answer", { description: "Answer.", input: { question: z.string() }, output: z.string(), tools: [lookup] });
    const lm = scripted([calls, "<result>\nBoth shipped.\n</result>"], { nativeTools: false });
    expect(await answer("Where are A and B?", { lm })).toBe("Both shipped.");
    expect(seen).toEqual(["A", "B"]);
  });
});

describe("</think > ends the reasoning", () => {
  const text = "<think>\nThe user wants the status.\n</think >\n<result>\nIt is at the carrier.\n</result>";

  it("is a closed thought", () => {
    expect(leadingThought(text)).toEqual({ end: text.indexOf("\n<result>"), closed: true });
  });

  it("the answer after it is read, whole and streamed", () => {
    expect(readOutput(text, z.string())).toEqual({ ok: true, value: "It is at the carrier." });
    for (const size of [1, 2, 6, 13, 1000]) expect(streamed(text, size)).toBe("It is at the carrier.");
  });

  it("a call after it is read; a call and a result inside it are not", () => {
    const drafted =
      '<think>\n<tool_call>{"name": "lookup", "input": {"id": "X"}}</tool_call >\n<result>\nno\n</result >\n</think\n>\n<tool_call>{"name": "lookup", "input": {"id": "A"}}</tool_call >';
    expect(fromTextResponse(reply(drafted)).toolCalls.map((c) => c.input)).toEqual([{ id: "A" }]);
    const answered = "<think>\n<result>\nno\n</result >\n</think  >\n<result>\nyes\n</result >";
    expect(readOutput(answered, z.string())).toEqual({ ok: true, value: "yes" });
    for (const size of [1, 3, 1000]) expect(streamed(answered, size)).toBe("yes");
  });
});

describe("a reply that closes the reply form without opening it (`Paris\\n</result>`)", () => {
  // some models leave out the opening tag they were shown, and write only the closing one: the tag was part of the
  // answer (`Paris\n</result>` as a string output's value, and in its text events), a JSON answer not read at all
  it("the answer is what comes before the closing tag, whole and streamed", () => {
    const text = "Paris\n</result>\n";
    expect(readOutput(text, z.string())).toEqual({ ok: true, value: "Paris" });
    expect(readOutput('{"n": 2}</result >', z.object({ n: z.number() }))).toEqual({ ok: true, value: { n: 2 } });
    for (const size of [1, 3, 1000]) expect(streamed(text, size)).toBe("Paris");
  });

  it("after a reasoning block too", () => {
    const text = "<think>\nIt is Paris.\n</think>\nParis</RESULT>";
    expect(readOutput(text, z.string())).toEqual({ ok: true, value: "Paris" });
    for (const size of [1, 4, 1000]) expect(streamed(text, size)).toBe("Paris");
  });

  it("an AI function answers with the words only", async () => {
    const answer = ai("capital", { description: "The capital.", input: { country: z.string() }, output: z.string() });
    const deltas: string[] = [];
    const s = answer.stream("France", { lm: scripted(["Paris\n</result>"]) });
    for await (const e of s) if (e.type === "text") deltas.push(e.delta);
    expect(await s).toBe("Paris");
    expect(deltas.join("")).toBe("Paris");
  });
});
