/**
 * hunt 160: a `<tool_call>` block at the end of a model's reasoning, the
 * reply itself no call and no words.
 *
 * Hunt 153 refused such a reply where the call was written in a model's call
 * tokens (Kimi's, DeepSeek's, DSML). The `<tool_call>` block is the form
 * Qwen3 and Hermes models write, and the one functai asks for with tools as
 * text: a Qwen3 that leaves `</think>` out before its call has the server's
 * reasoning parser keep the block in `reasoning_content`, and a server with no
 * reasoning parser leaves `<think>…` unclosed in the text, the block after a
 * blank line. Either way the reply read as empty: the model was asked again
 * (a second request paid for), then the turn failed output-invalid, "the
 * reply is empty", the call never named. It is now refused at once
 * (provider-response), naming the call, as hunt 153's forms are.
 *
 * Thinking is still not a call: a block drafted in the reasoning and thought
 * on after, or one beside a reply that holds its own call, is read as before.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, tool } from "../../src/index.js";
import { completion } from "./fixtures/hunt51-wire.js";
import { ask } from "./fixtures/lookup-order.js";
import { modelsOver, streamed } from "./fixtures/models.js";
import { reasonedReplies } from "./fixtures/reasoned-replies.js";
import { type MockServer, eachTestServer, failure } from "./server.js";

let server: MockServer;
eachTestServer((s) => (server = s));
const MODEL = "Qwen/Qwen3-8B";
const { gpt } = modelsOver(() => server, { gpt: MODEL, apiKey: "none", maxRetries: 0 });
const replies = (reasoning: string, content: string | null) => reasonedReplies(MODEL, reasoning, content);

const CALL = '<tool_call>\n{"name": "lookup_order", "arguments": {"order_id": "A-1042"}}\n</tool_call>';
const THOUGHT = "The customer asks about A-1042. I should look the order up first.\n\n";

describe("a <tool_call> block the reasoning ends in, the reply no call and no words: refused, never an empty answer", () => {
  for (const [name, reasoning, content] of [
    ["in reasoning_content, content null", THOUGHT + CALL, null],
    ["in reasoning_content, content white space", `${THOUGHT}${CALL}\n`, "\n\n"],
    ["in reasoning_content, the block never closed", THOUGHT + CALL.replace("</tool_call>", ""), null],
    ["in the text, <think> never closed", "", `<think>\n${THOUGHT}${CALL}`],
    ["in the text, <think> closed after the call", "", `<think>\n${THOUGHT}${CALL}\n</think>\n\n`],
  ] as const) {
    it(`${name}: provider-response naming the call, whole and streamed, tools offered natively or as text`, async () => {
      for (const nativeTools of [true, false]) {
        for (const [i, reply] of replies(reasoning, content).entries()) {
          server.reply(reply);
          const e = await failure(gpt({ nativeTools }).generate(ask, i === 0 ? {} : streamed));
          expect(e.code, e.message).toBe("provider-response");
          expect(e.message).toContain('<tool_call> calling "lookup_order"');
          expect(e.message).toContain("reasoning");
        }
      }
    });
  }

  it("through the tool loop, tools as text: the turn fails provider-response after one request, the tool never run", async () => {
    const seen: unknown[] = [];
    const lookup = tool("lookup_order", { description: "The order's status.", input: { order_id: z.string() }, effects: "reads" }, (input) => {
      seen.push(input);
      return { status: "shipped" };
    });
    const answer = ai("answer", { description: "Answer the customer's question.", input: { question: z.string() }, tools: [lookup] });
    const reply = replies("", `<think>\n${THOUGHT}${CALL}`)[0]!;
    // (asked again, the same reply would come: it is there to be taken, should the turn ask)
    server.reply(reply, reply);
    const e = await failure(answer("Where is A-1042?", { lm: gpt({ nativeTools: false }) }));
    expect(e.code, e.message).toBe("provider-response");
    expect(server.requests.length).toBe(1);
    expect(seen).toEqual([]);
  });
});

// (a block drafted in a <think> block, the call after it: hunt 61's think-blocks test)
describe("a block the reasoning drafted is thinking (guard)", () => {
  it("drafted (the block closed or not), then thought on after, the <think> never closed: the reply's text, no call", async () => {
    const AFTER = "\nNo: the order number is wrong, ask first.";
    for (const content of [`<think>\n${THOUGHT}${CALL}${AFTER}`, `<think>\n${THOUGHT}${CALL.replace("</tool_call>", "")}${AFTER}`]) {
      for (const [i, reply] of replies("", content).entries()) {
        server.reply(reply);
        const got = await gpt().generate(ask, i === 0 ? {} : streamed);
        expect(got.text).toBe(content);
        expect(got.toolCalls).toEqual([]);
      }
    }
  });

  it("drafted in reasoning_content, a call in the reply's own text, tools as text, through the tool loop: only the text's call runs, once (guard)", async () => {
    const seen: unknown[] = [];
    const lookup = tool("lookup_order", { description: "The order's status.", input: { order_id: z.string() }, effects: "reads" }, (input) => {
      seen.push(input);
      return { status: "shipped" };
    });
    const answer = ai("answer", { description: "Answer the customer's question.", input: { question: z.string() }, tools: [lookup] });
    const [reply] = replies(THOUGHT + CALL, `Let me look.\n${CALL.replace("A-1042", "A-1043")}`);
    server.reply(reply!, { json: completion({ content: "<result>\nA-1043 has shipped.\n</result>" }, "stop", MODEL) });
    await expect(answer("Where is A-1043?", { lm: gpt({ nativeTools: false }) })).resolves.toBe("A-1043 has shipped.");
    expect(seen).toEqual([{ order_id: "A-1043" }]);
  });

  it("a call of no offered tool the reasoning ends in, tools offered natively: the reply's text, no call", async () => {
    server.reply(replies(THOUGHT + CALL.replace("lookup_order", "send_email"), null)[0]!);
    const got = await gpt().generate(ask);
    expect(got.text).toBe("");
    expect(got.toolCalls).toEqual([]);
  });
});
