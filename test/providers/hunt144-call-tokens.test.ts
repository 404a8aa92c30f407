/**
 * hunt 144: tool calls written in a model's own special tokens, which an
 * OpenAI-compatible server showed in the text and did not read as calls
 * (lm/marked-calls.ts).
 *
 * Kimi K2 (`<|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:0
 * <|tool_call_argument_begin|>{…}<|tool_call_end|>…`, through OpenRouter
 * and SGLang: NousResearch/hermes-agent#24536, MoonshotAI/Kimi-K2#26) and
 * DeepSeek (`<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME
 * ```json {…}```<｜tool▁call▁end｜>…`; V3.1's `NAME<｜tool▁sep｜>{…}`:
 * google/adk-python#5654). With tools offered natively, such a reply was
 * the answer, the tool never run (Mistral's `[TOOL_CALLS]` and Llama's
 * forms were refused, hunts 51 and 139): it is now refused
 * (provider-response) naming the parser to start the server with. With
 * tools offered as text, these, and Mistral's `[TOOL_CALLS]` (the marker
 * shown), were the answer's text: they are now read as the calls they
 * are, the words before them the reply's words, nothing of the tokens
 * shown.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, tool } from "../../src/index.js";
import { textSse } from "./fixtures/hunt51-wire.js";
import { ask } from "./fixtures/lookup-order.js";
import { llamaServer, lookupDesk, refusedAsText } from "./fixtures/llama-text-calls.js";

const kimi = (name: string, args: string, i = 0) => `<|tool_call_begin|>functions.${name}:${i}<|tool_call_argument_begin|>${args}<|tool_call_end|>`;
const KIMI = `<|tool_calls_section_begin|>${kimi("lookup_order", '{"order_id": "A-1042"}')}<|tool_calls_section_end|>`;
const deepseek = (name: string, args: string) => `<｜tool▁call▁begin｜>function<｜tool▁sep｜>${name}\n\`\`\`json\n${args}\n\`\`\`<｜tool▁call▁end｜>`;
const DEEPSEEK = `<｜tool▁calls▁begin｜>${deepseek("lookup_order", '{"order_id": "A-1042"}')}<｜tool▁calls▁end｜>`;
const DEEPSEEK_V31 =
  '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>lookup_order<｜tool▁sep｜>{"order_id": "A-1042"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>';

const TOKENS: Record<string, string> = {
  "Kimi K2's section": KIMI,
  "Kimi K2's, spaced, after words (as OpenRouter passes it on)": `Let me look that up. <|tool_calls_section_begin|> <|tool_call_begin|> functions.lookup_order:0 <|tool_call_argument_begin|> {"order_id": "A-1042"} <|tool_call_end|> <|tool_calls_section_end|>`,
  "DeepSeek V3's, its JSON fenced": DEEPSEEK,
  "DeepSeek V3.1's": DEEPSEEK_V31,
  "DeepSeek's with plain bars": DEEPSEEK.replaceAll("｜", "|"),
};

describe("tools offered natively: a call in a model's tokens left in the text is refused, never the answer", () => {
  const kimiServer = llamaServer("moonshotai/Kimi-K2-Instruct");
  refusedAsText(TOKENS, kimiServer);

  it("the refusal names the parser to start the server with", async () => {
    for (const [content, parser] of [
      [KIMI, "--tool-call-parser kimi_k2"],
      [DEEPSEEK, "--tool-call-parser deepseek_v3"],
    ] as const) {
      kimiServer.server().reply(kimiServer.whole(content));
      const e = await kimiServer
        .gpt()
        .generate(ask)
        .then(
          () => undefined,
          (x: unknown) => x as Error,
        );
      expect(e?.message).toContain(parser);
    }
  });

  it("tokens calling no offered tool, or naming the tokens in prose, are the answer's text (guard)", async () => {
    for (const content of [
      KIMI.replace("lookup_order", "send_email"),
      DEEPSEEK.replace("lookup_order", "send_email"),
      "Kimi marks a call with <|tool_call_begin|>; the order has shipped.",
    ]) {
      kimiServer.server().reply(kimiServer.whole(content));
      const reply = await kimiServer.gpt().generate(ask);
      expect(reply.text).toBe(content);
      expect(reply.toolCalls).toEqual([]);
    }
  });
});

describe("tools offered as text: a call in a model's tokens is that call", () => {
  const server = llamaServer("moonshotai/Kimi-K2-Instruct");
  const { seen, answer } = lookupDesk();
  const ANSWER = "<result>\nIt has shipped.\n</result>";
  const CASES: Record<string, string> = {
    ...TOKENS,
    "Mistral's [TOOL_CALLS] and its list (tokenizer v3)": '[TOOL_CALLS][{"name": "lookup_order", "arguments": {"order_id": "A-1042"}}]',
    "Mistral's [TOOL_CALLS]name[ARGS] (tokenizer v11)": '[TOOL_CALLS]lookup_order[ARGS]{"order_id": "A-1042"}',
  };

  for (const [name, content] of Object.entries(CASES)) {
    it(`${name}, whole and streamed: the tool runs, then the answer; nothing of the tokens is shown`, async () => {
      seen.length = 0;
      server.server().reply(server.whole(content), server.whole(ANSWER));
      await expect(answer("Where is A-1042?", { lm: server.gpt({ nativeTools: false }) })).resolves.toBe("It has shipped.");
      server.server().reply({ sse: textSse(content, 5) }, { sse: textSse(ANSWER, 5) });
      const turn = answer.stream("Where is A-1042?", { lm: server.gpt({ nativeTools: false }) });
      const shown: string[] = [];
      for await (const e of turn) if (e.type === "text") shown.push(e.delta);
      expect(await turn).toBe("It has shipped.");
      // (the words before the tokens are the first reply's, shown when it ends; the answer streams)
      const words = content.startsWith("Let me") ? "Let me look that up." : "";
      expect(shown.join("")).toBe(`${words}It has shipped.`);
      if (words !== "") expect(shown[0]).toBe(words);
      expect(seen).toEqual([{ order_id: "A-1042" }, { order_id: "A-1042" }]);
    });
  }

  it("two Kimi calls in one section: both run, in order", async () => {
    seen.length = 0;
    const two = `<|tool_calls_section_begin|>${kimi("lookup_order", '{"order_id": "A-1042"}')}${kimi("lookup_order", '{"order_id": "B-2210"}', 1)}<|tool_calls_section_end|>`;
    server.server().reply(server.whole(two), server.whole(ANSWER));
    await expect(answer("Where are A-1042 and B-2210?", { lm: server.gpt({ nativeTools: false }) })).resolves.toBe("It has shipped.");
    expect(seen).toEqual([{ order_id: "A-1042" }, { order_id: "B-2210" }]);
  });

  it("a Kimi call whose input holds <result>, streamed: held as the call it is, never shown", async () => {
    const saved: unknown[] = [];
    const saveNote = tool("save_note", { description: "Saves a note.", input: { text: z.string() }, effects: "changes" }, (input) => {
      saved.push(input);
      return { saved: true };
    });
    const notes = ai("notes", { description: "Do what the user asks with their notes.", input: { ask: z.string() }, tools: [saveNote] });
    const call = `<|tool_calls_section_begin|>${kimi("save_note", '{"text": "Wrap the answer in <result> tags."}')}<|tool_calls_section_end|>`;
    server.server().reply({ sse: textSse(call, 4) }, { sse: textSse("<result>\nSaved.\n</result>", 4) });
    const turn = notes.stream("Note: wrap the answer in <result> tags.", { lm: server.gpt({ nativeTools: false }) });
    const shown: string[] = [];
    for await (const e of turn) if (e.type === "text") shown.push(e.delta);
    expect(await turn).toBe("Saved.");
    expect(shown.join("")).toBe("Saved.");
    expect(saved).toEqual([{ text: "Wrap the answer in <result> tags." }]);
  });

  it("a Kimi call cut off by the length limit: not run, the model told it was cut off", async () => {
    seen.length = 0;
    const cut = KIMI.slice(0, KIMI.indexOf("A-1042"));
    const stopped = server.whole(cut);
    (stopped.json.choices[0] as { finish_reason: string }).finish_reason = "length";
    server.server().reply(stopped, server.whole(ANSWER));
    await expect(answer("Where is A-1042?", { lm: server.gpt({ nativeTools: false }) })).resolves.toBe("It has shipped.");
    expect(seen).toEqual([]);
    expect(JSON.stringify(server.server().requests[1]!.body.messages)).toContain("was cut off before this call's input was complete");
  });

  it("a DeepSeek call whose arguments are no JSON: not run, the model told, and the answer after (not the tokens)", async () => {
    seen.length = 0;
    server.server().reply(server.whole(DEEPSEEK.replace('{"order_id": "A-1042"}', "order A-1042")), server.whole(ANSWER));
    await expect(answer("Where is A-1042?", { lm: server.gpt({ nativeTools: false }) })).resolves.toBe("It has shipped.");
    expect(seen).toEqual([]);
    const told = JSON.stringify(server.server().requests[1]!.body.messages);
    expect(told).toContain("its input is not a JSON object");
  });
});
