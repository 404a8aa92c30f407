/**
 * Tools offered as text (`nativeTools: false`): odd but real model output.
 * Two calls in one `<tool_call>` block, a call's JSON followed by words, a
 * call fenced as code, a `<result>` never closed followed by a call. Each
 * call runs and gets its result; the call's text is never shown as `text`
 * events nor taken as the answer.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, type LMRequest } from "../../src/index.js";
import { fromTextResponse } from "../../src/lm/text-tools.js";
import type { LMResponse } from "../../src/lm/types.js";
import { scripted } from "../../src/testing/index.js";
import { deskTools } from "./fixtures.js";

/** Streams one call whose first reply is `first` (then the answer "final"); what the tools did and what was shown. */
async function run(first: string, chunks: number) {
  const t = deskTools();
  const desk = ai("desk", { description: "Help.", input: { q: z.string() }, tools: [t.findOrder] });
  let results = "";
  const lm = scripted(
    [
      first,
      (request: LMRequest) => {
        results = request.messages.at(-1)!.content;
        return "<result>\nfinal\n</result>";
      },
    ],
    { nativeTools: false, chunks },
  );
  const s = desk.stream("go", { lm });
  const texts: string[] = [];
  const replies: string[] = [];
  for await (const e of s) {
    if (e.type === "text") texts.push(e.delta);
    if (e.type === "reply") replies.push(e.text);
  }
  return { result: await s, text: texts.join(""), replies, lookups: t.LOOKUPS, results, requests: lm.requests.length };
}

const A1 = '{"name": "find_order", "input": {"order_id": "A-1"}}';
const B2 = '{"name": "find_order", "input": {"order_id": "B-2"}}';
const resultOf = (id: string, order: string) =>
  `<tool_result name="find_order" id="${id}">\n${JSON.stringify({ order_id: order, item: "kettle", paid: 39 })}\n</tool_result>`;

describe("tools as text: odd but real <tool_call> output", () => {
  it("two calls in one block both run, and each gets its result", async () => {
    for (const sep of ["\n", ",\n"]) {
      const r = await run(`<tool_call>\n${A1}${sep}${B2}\n</tool_call>`, 5);
      expect(r.lookups).toEqual(["A-1", "B-2"]);
      expect(r.results).toBe(`${resultOf("call_1", "A-1")}\n${resultOf("call_2", "B-2")}`);
      expect(r.result).toBe("final");
      expect(r.text).toBe("final");
    }
  });

  it("a call's JSON followed by words in its block runs; the words are no part of its input", async () => {
    const r = await run(`<tool_call>\n${A1}\nI will wait for the result.\n</tool_call>`, 4);
    expect(r.lookups).toEqual(["A-1"]);
    expect(r.results).toBe(resultOf("call_1", "A-1"));
    expect(r.text).toBe("final");
  });

  it("a call fenced as code runs; the fence left empty is not shown as text nor kept as the reply's text", async () => {
    for (const fence of ["```", "```xml"]) {
      const r = await run(`Let me look.\n${fence}\n<tool_call>\n${A1}\n</tool_call>\n\`\`\``, 3);
      expect(r.lookups).toEqual(["A-1"]);
      expect(r.replies[0]).toBe("Let me look.");
      expect(r.text).toBe("Let me look.final");
    }
    const two = await run(`Let me look.\n\`\`\`\n<tool_call>\n${A1}\n</tool_call>\n<tool_call>\n${B2}\n</tool_call>\n\`\`\``, 4);
    expect(two.lookups).toEqual(["A-1", "B-2"]);
    expect(two.results).toBe(`${resultOf("call_1", "A-1")}\n${resultOf("call_2", "B-2")}`);
    expect(two.replies[0]).toBe("Let me look.");
    expect(two.text).toBe("Let me look.final");
  });

  it("a <result> never closed, then a call: the call runs and its text is never shown as text events", async () => {
    for (const chunks of [1, 3, 7, 1000]) {
      for (const close of ["\n</tool_call>", ""]) {
        const r = await run(`<result>\nLet me check.\n<tool_call>\n${A1}${close}`, chunks);
        expect(r.lookups).toEqual(["A-1"]);
        expect(r.results).toBe(resultOf("call_1", "A-1"));
        expect(r.text).toBe("Let me check.final");
        expect(r.result).toBe("final");
      }
    }
  });

  it("guard: an answer that only names the tag (no call's JSON after it) streams whole, as it is read", async () => {
    for (const chunks of [1, 2, 5]) {
      for (const answer of ["Write <tool_call> then the JSON.", "It ends in <tool_call>", "It ends in <tool"]) {
        const r = await run(`<result>\n${answer}\n</result>`, chunks);
        expect(r.result).toBe(answer);
        expect(r.text).toBe(answer);
      }
    }
  });
});

describe("fromTextResponse: a block with more than one call", () => {
  const reply = (text: string, finishReason: LMResponse["finishReason"] = "stop"): LMResponse => ({
    text,
    toolCalls: [],
    finishReason,
    usage: { inputTokens: 1, outputTokens: 1 },
  });

  it("a second call cut off by the length limit is still a call, one that does not run", () => {
    const read = fromTextResponse(reply(`<tool_call>\n${A1}\n{"name": "find_order", "inp`, "length"));
    expect(read.toolCalls.map((c) => [c.id, c.name, c.inputError === undefined])).toEqual([
      ["call_1", "find_order", true],
      ["call_2", "find_order", false],
    ]);
    expect(read.text).toBe("");
  });

  it("a body that does not begin with a whole JSON object is still one call the model is told about", () => {
    const read = fromTextResponse(reply('<tool_call>\nfind_order {"order_id": "A-1"}\n</tool_call>'));
    expect(read.toolCalls).toHaveLength(1);
    expect(read.toolCalls[0]!.inputError).toMatch(/not valid JSON/);
  });
});

describe("tools as text: a call whose input holds the reply form's tag", () => {
  it("the call runs with its input; no piece of it is shown as text events", async () => {
    const t = deskTools();
    const note = '<tool_call>\n{"name": "note", "input": {"text": "wrap it in <result> tags"}}\n</tool_call>';
    const desk = ai("desk", { description: "Help.", input: { q: z.string() }, tools: [t.note] });
    for (const chunks of [1, 4, 1000]) {
      const lm = scripted([`Noting.\n${note}`, "<result>\nfinal\n</result>"], { nativeTools: false, chunks });
      const s = desk.stream("go", { lm });
      const texts: string[] = [];
      for await (const e of s) if (e.type === "text") texts.push(e.delta);
      expect(await s).toBe("final");
      expect(texts.join("")).toBe("Noting.final");
    }
    expect(t.NOTES).toEqual(["wrap it in <result> tags", "wrap it in <result> tags", "wrap it in <result> tags"]);
  });
});
