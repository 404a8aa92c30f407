/**
 * hunt 153: words a model wrote between its calls inside a section of call
 * tokens (lm/marked-calls.ts), with tools offered as text.
 *
 * Hunt 144 read the calls of a Kimi K2 or DeepSeek section and dropped
 * everything else in it. In the output servers pass on that is white space
 * (OpenRouter's spaced tokens), but a model may write words between two
 * calls (`…<|tool_call_end|> Then the refund. <|tool_call_begin|>…`): they
 * were lost unseen, neither shown nor kept in the reply the model is sent
 * back. They are now the reply's words, as the words before a section are.
 * A gap that still holds a token (a call cut before its arguments) is no
 * words: shown, it put the model's tokens before the user.
 */
import { describe, expect, it } from "vitest";
import { textSse } from "./fixtures/hunt51-wire.js";
import { llamaServer, lookupDesk } from "./fixtures/llama-text-calls.js";

const ANSWER = "<result>\nIt has shipped.\n</result>";
const kimi = (order: string, i: number) =>
  `<|tool_call_begin|>functions.lookup_order:${i}<|tool_call_argument_begin|>{"order_id": "${order}"}<|tool_call_end|>`;
const deepseek = (order: string) =>
  `<｜tool▁call▁begin｜>function<｜tool▁sep｜>lookup_order\n\`\`\`json\n{"order_id": "${order}"}\n\`\`\`<｜tool▁call▁end｜>`;
const dsml = (order: string) =>
  `<｜DSML｜invoke name="lookup_order">\n<｜DSML｜parameter name="order_id" string="true">${order}</｜DSML｜parameter>\n</｜DSML｜invoke>`;

const WORDS = "Then the second order.";
const SECTIONS: Record<string, string> = {
  "Kimi K2's section": `<|tool_calls_section_begin|>${kimi("A-1042", 0)} ${WORDS} ${kimi("B-2210", 1)}<|tool_calls_section_end|>`,
  "DeepSeek's section": `<｜tool▁calls▁begin｜>${deepseek("A-1042")}\n${WORDS}\n${deepseek("B-2210")}<｜tool▁calls▁end｜>`,
  "DeepSeek V3.2's DSML section": `<｜DSML｜function_calls>\n${dsml("A-1042")}\n${WORDS}\n${dsml("B-2210")}\n</｜DSML｜function_calls>`,
};

describe("words between a section's calls are the reply's words", () => {
  const over = llamaServer("moonshotai/Kimi-K2-Instruct");
  const { seen, answer } = lookupDesk();

  for (const [name, content] of Object.entries(SECTIONS)) {
    it(`${name}, whole and streamed: both calls run, the words shown and sent back with the calls`, async () => {
      seen.length = 0;
      over.server().reply(over.whole(content), over.whole(ANSWER));
      await expect(answer("Where are A-1042 and B-2210?", { lm: over.gpt({ nativeTools: false }) })).resolves.toBe("It has shipped.");
      const sent = over.server().requests[1]!.body.messages as { role: string; content: string }[];
      expect(sent.find((m) => m.role === "assistant")?.content).toContain(WORDS);
      over.server().reply({ sse: textSse(content, 6) }, { sse: textSse(ANSWER, 6) });
      const turn = answer.stream("Where are A-1042 and B-2210?", { lm: over.gpt({ nativeTools: false }) });
      const shown: string[] = [];
      for await (const e of turn) if (e.type === "text") shown.push(e.delta);
      expect(await turn).toBe("It has shipped.");
      expect(shown.join("")).toBe(`${WORDS}It has shipped.`);
      expect(seen).toEqual([{ order_id: "A-1042" }, { order_id: "B-2210" }, { order_id: "A-1042" }, { order_id: "B-2210" }]);
    });
  }

  it("a gap holding a token (a Kimi call cut before its arguments) is no words: nothing of it shown (guard)", async () => {
    seen.length = 0;
    const cut = `<|tool_calls_section_begin|>${kimi("A-1042", 0)}<|tool_call_begin|>functions.lookup_order:1`;
    const stopped = over.whole(cut);
    (stopped.json.choices[0] as { finish_reason: string }).finish_reason = "length";
    over.server().reply(stopped, over.whole(ANSWER));
    const turn = answer.stream("Where are A-1042 and B-2210?", { lm: over.gpt({ nativeTools: false }) });
    const shown: string[] = [];
    for await (const e of turn) if (e.type === "text") shown.push(e.delta);
    expect(await turn).toBe("It has shipped.");
    expect(shown.join("")).toBe("It has shipped.");
  });
});
