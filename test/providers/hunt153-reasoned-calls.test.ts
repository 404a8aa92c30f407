/**
 * hunt 153: a tool call in a model's call tokens at the end of its
 * reasoning (`reasoning_content`), the reply itself no call and no words.
 *
 * Kimi K2 Thinking may leave `</think>` out before its calls; a server's
 * reasoning parser then keeps the call section in the reasoning and the tool
 * parser never sees it (vybestack/llxprt-code#749, vllm-project/vllm#32216).
 * The OpenAI reader kept reasoning only beside calls, so such a reply read as
 * an empty one: the model was asked again (a second request paid for), then
 * the turn refused output-invalid, "the reply is empty", the call never
 * named. It is now refused at once (provider-response), naming the call and
 * what to set, with tools offered natively or as text (refuseReasonedCall in
 * providers/common.ts). Not read as a call: the server split the reply
 * wrongly, as hunt 144 refuses the calls a server left in the text with
 * native tools.
 *
 * So too where a server with no reasoning parser leaves the reasoning in
 * the text (`<think>…` then the section, closed or not, nothing after it):
 * read past the reasoning, the reply was as empty.
 *
 * Thinking is not a call: reasoning that names the tokens, that drafts a
 * call and thinks on, that ends in a call of no offered tool (tools offered
 * natively), or that ends in a call while the reply gives words (its
 * answer), is read as before.
 */
import { describe, expect, it } from "vitest";
import { ai, tool } from "../../src/index.js";
import { z } from "zod";
import { reasonedReplies } from "./fixtures/reasoned-replies.js";
import { ask } from "./fixtures/lookup-order.js";
import { modelsOver, streamed } from "./fixtures/models.js";
import { type MockServer, eachTestServer, failure } from "./server.js";

let server: MockServer;
eachTestServer((s) => (server = s));
const MODEL = "moonshotai/Kimi-K2-Thinking";
const { gpt } = modelsOver(() => server, { gpt: MODEL, apiKey: "none", maxRetries: 0 });

const KIMI =
  '<|tool_calls_section_begin|> <|tool_call_begin|> functions.lookup_order:0 <|tool_call_argument_begin|> {"order_id": "A-1042"} <|tool_call_end|> <|tool_calls_section_end|>';
const THOUGHT = "The customer asks about A-1042. I should look the order up first. ";

/** The reply whose reasoning is `reasoning` and content `content`, whole and streamed (see reasonedReplies). */
const replies = (reasoning: string, content: string | null, field?: string) => reasonedReplies(MODEL, reasoning, content, field);

describe("a call the reasoning ends in, the reply no call and no words: refused, never an empty answer", () => {
  for (const [name, reasoning, content, field] of [
    ["the section after the thinking, content null", THOUGHT + KIMI, null],
    ["the section alone, content empty", KIMI, ""],
    ["under vLLM's `reasoning`", THOUGHT + KIMI, null, "reasoning"],
    [
      "DeepSeek V3.2's DSML, content white space",
      `${THOUGHT}\n\n<｜DSML｜function_calls>\n<｜DSML｜invoke name="lookup_order">\n<｜DSML｜parameter name="order_id" string="true">A-1042</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>`,
      "\n\n",
    ],
  ] as const) {
    it(`${name}: provider-response naming the call, whole and streamed`, async () => {
      for (const [i, reply] of replies(reasoning, content, field).entries()) {
        server.reply(reply);
        const e = await failure(gpt().generate(ask, i === 0 ? {} : streamed));
        expect(e.code).toBe("provider-response");
        expect(e.message).toContain('calling "lookup_order"');
        expect(e.message).toContain("reasoning");
      }
    });
  }

  it("through the tool loop, tools offered natively or as text: the turn fails provider-response at once, the tool never run", async () => {
    const seen: unknown[] = [];
    const lookup = tool("lookup_order", { description: "The order's status.", input: { order_id: z.string() }, effects: "reads" }, (input) => {
      seen.push(input);
      return { status: "shipped" };
    });
    const answer = ai("answer", { description: "Answer the customer's question.", input: { question: z.string() }, tools: [lookup] });
    for (const nativeTools of [true, false]) {
      const before = server.requests.length;
      server.reply(replies(THOUGHT + KIMI, null)[0]!, replies(THOUGHT + KIMI, null)[0]!);
      const e = await failure(answer("Where is A-1042?", { lm: gpt({ nativeTools }) }));
      expect(e.code, e.message).toBe("provider-response");
      expect(e.message).toContain('calling "lookup_order"');
      // (not asked again: the same reply would come)
      expect(server.requests.length - before).toBe(1);
    }
    expect(seen).toEqual([]);
  });
});

describe("a reply that is only its <think> block, ending in a call: refused the same", () => {
  for (const [name, content] of [
    ["never closed", `<think>\n${THOUGHT}${KIMI}`],
    ["closed after the call", `<think>\n${THOUGHT}${KIMI}</think>\n\n`],
  ] as const) {
    it(`${name}: provider-response naming the call, whole and streamed, tools offered natively or as text`, async () => {
      for (const [i, reply] of replies("", content).entries()) {
        server.reply(reply);
        const e = await failure(gpt().generate(ask, i === 0 ? {} : streamed));
        expect(e.code, e.message).toBe("provider-response");
        expect(e.message).toContain('calling "lookup_order"');
      }
      server.reply(replies("", content)[0]!);
      const e = await failure(gpt({ nativeTools: false }).generate({ ...ask, tools: [] }));
      expect(e.code, e.message).toBe("provider-response");
    });
  }

  it("the <think> block ending in a call, then the answer: the reply's text (guard)", async () => {
    const content = `<think>\n${THOUGHT}${KIMI}</think>\n\nOrder A-1042 has shipped.`;
    server.reply(replies("", content)[0]!);
    const got = await gpt().generate(ask);
    expect(got.text).toBe(content);
    expect(got.toolCalls).toEqual([]);
  });
});

describe("reasoning that is thinking is read as before (guard)", () => {
  const CASES: Record<string, [string, string | null, { text: string }]> = {
    "the tokens named in prose": [
      "Kimi marks a call with <|tool_call_begin|>; no call is needed here.",
      "It has shipped.",
      { text: "It has shipped." },
    ],
    "a call drafted, then more thinking": [
      `${THOUGHT}${KIMI} Wait, the order number is in the question already; no lookup needed.`,
      null,
      { text: "" },
    ],
    "a call of no offered tool": [THOUGHT + KIMI.replace("lookup_order", "send_email"), null, { text: "" }],
    "a call at the end, and words in the reply": [THOUGHT + KIMI, "Order A-1042 has shipped.", { text: "Order A-1042 has shipped." }],
  };
  it("a reply cut off by its length limit as its reasoning ends in a call: read as one cut off is, not refused", async () => {
    const reply = replies(THOUGHT + KIMI, null)[0]! as { json: { choices: { finish_reason: string }[] } };
    reply.json.choices[0]!.finish_reason = "length";
    server.reply(reply);
    const got = await gpt().generate(ask);
    expect(got.finishReason).toBe("length");
    expect(got.text).toBe("");
  });

  for (const [name, [reasoning, content, want]] of Object.entries(CASES)) {
    it(`${name}: the reply's text, no call`, async () => {
      for (const [i, reply] of replies(reasoning, content).entries()) {
        server.reply(reply);
        const got = await gpt().generate(ask, i === 0 ? {} : streamed);
        expect(got.text).toBe(want.text);
        expect(got.toolCalls).toEqual([]);
      }
    });
  }
});
