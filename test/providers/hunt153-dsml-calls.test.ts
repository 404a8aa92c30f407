/**
 * hunt 153: tool calls in DeepSeek V3.2's DSML markup, which an
 * OpenAI-compatible server showed in the text and did not read as calls
 * (lm/marked-calls.ts).
 *
 * DeepSeek V3.2 writes its calls as
 * `<｜DSML｜function_calls><｜DSML｜invoke name="NAME"><｜DSML｜parameter
 * name="KEY" string="true|false">VALUE</｜DSML｜parameter>…</｜DSML｜invoke>
 * </｜DSML｜function_calls>` (a value `string="true"` is text as it is, any
 * other JSON; V4 names the section `tool_calls`): vLLM reads it with its
 * deepseek_v32 (deepseek_v4) tool parser, and without one shows it as the
 * reply's text. Hunt 144 read DeepSeek's older call tokens, not this: with
 * tools offered natively such a reply was the answer, the tool never run; it
 * is now refused (provider-response) naming the parser. With tools offered as
 * text it was the answer's text, markup and all: it is now read as the calls
 * it is, each parameter its value, the words before it the reply's.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, tool } from "../../src/index.js";
import { textSse } from "./fixtures/hunt51-wire.js";
import { ask } from "./fixtures/lookup-order.js";
import { llamaServer, lookupDesk, refusedAsText } from "./fixtures/llama-text-calls.js";

const parameter = (key: string, value: string, string = true) => `<｜DSML｜parameter name="${key}" string="${string}">${value}</｜DSML｜parameter>`;
const invoke = (name: string, ...parameters: string[]) => `<｜DSML｜invoke name="${name}">\n${parameters.join("\n")}\n</｜DSML｜invoke>`;
const section = (...invokes: string[]) => `\n\n<｜DSML｜function_calls>\n${invokes.join("\n")}\n</｜DSML｜function_calls>`;
const DSML = section(invoke("lookup_order", parameter("order_id", "A-1042")));

const FORMS: Record<string, string> = {
  "DeepSeek V3.2's DSML": DSML,
  "DSML after words": `Let me look that up.${DSML}`,
  "DSML in V4's tool_calls section": DSML.replaceAll("function_calls>", "tool_calls>"),
  "DSML with plain bars": DSML.replaceAll("｜", "|"),
  'DSML whose value is JSON (string="false")': section(invoke("lookup_order", parameter("order_id", '"A-1042"', false))),
};

describe("tools offered natively: a call in DSML left in the text is refused, never the answer", () => {
  const over = llamaServer("deepseek-ai/DeepSeek-V3.2");
  refusedAsText(FORMS, over);

  it("the refusal names the markup and the parser to start the server with", async () => {
    over.server().reply(over.whole(DSML));
    const e = await over
      .gpt()
      .generate(ask)
      .then(
        () => undefined,
        (x: unknown) => x as Error,
      );
    expect(e?.message).toContain("<｜DSML｜invoke>");
    expect(e?.message).toContain("--tool-call-parser deepseek_v32");
  });

  it("DSML calling no offered tool, or named in prose, is the answer's text (guard)", async () => {
    for (const content of [
      DSML.replace("lookup_order", "send_email"),
      "DeepSeek opens its calls with <｜DSML｜function_calls>; the order has shipped.",
    ]) {
      over.server().reply(over.whole(content));
      const reply = await over.gpt().generate(ask);
      expect(reply.text).toBe(content);
      expect(reply.toolCalls).toEqual([]);
    }
  });
});

describe("tools offered as text: a call in DSML is that call", () => {
  const over = llamaServer("deepseek-ai/DeepSeek-V3.2");
  const { seen, answer } = lookupDesk();
  const ANSWER = "<result>\nIt has shipped.\n</result>";

  for (const [name, content] of Object.entries(FORMS)) {
    it(`${name}, whole and streamed: the tool runs, then the answer; nothing of the markup is shown`, async () => {
      seen.length = 0;
      over.server().reply(over.whole(content), over.whole(ANSWER));
      await expect(answer("Where is A-1042?", { lm: over.gpt({ nativeTools: false }) })).resolves.toBe("It has shipped.");
      over.server().reply({ sse: textSse(content, 5) }, { sse: textSse(ANSWER, 5) });
      const turn = answer.stream("Where is A-1042?", { lm: over.gpt({ nativeTools: false }) });
      const shown: string[] = [];
      for await (const e of turn) if (e.type === "text") shown.push(e.delta);
      expect(await turn).toBe("It has shipped.");
      const words = content.startsWith("Let me") ? "Let me look that up." : "";
      expect(shown.join("")).toBe(`${words}It has shipped.`);
      expect(seen).toEqual([{ order_id: "A-1042" }, { order_id: "A-1042" }]);
    });
  }

  it("two calls, values of each kind: text as it is (spaces kept), numbers, booleans and lists as JSON", async () => {
    const sent: unknown[] = [];
    const ship = tool(
      "ship",
      {
        description: "Ships items.",
        input: { note: z.string(), quantity: z.number(), gift: z.boolean(), items: z.array(z.string()) },
        effects: "reads",
      },
      (input) => {
        sent.push(input);
        return { shipped: true };
      },
    );
    const desk = ai("desk", { description: "Do what the user asks.", input: { ask: z.string() }, tools: [ship] });
    const call = (note: string, quantity: number) =>
      invoke(
        "ship",
        parameter("note", note),
        parameter("quantity", String(quantity), false),
        parameter("gift", "true", false),
        parameter("items", '["mug", "tea"]', false),
      );
    over.server().reply(over.whole(section(call(" Fragile: 2 < 3 ", 2), call("Next day", 1))), over.whole("<result>\nDone.\n</result>"));
    await expect(desk("Ship two parcels.", { lm: over.gpt({ nativeTools: false }) })).resolves.toBe("Done.");
    expect(sent).toEqual([
      { note: " Fragile: 2 < 3 ", quantity: 2, gift: true, items: ["mug", "tea"] },
      { note: "Next day", quantity: 1, gift: true, items: ["mug", "tea"] },
    ]);
  });

  it('a value string="false" that is no JSON: not run, the model told which parameter, and the answer after', async () => {
    seen.length = 0;
    const wrong = section(invoke("lookup_order", parameter("order_id", "A-1042", false)));
    over.server().reply(over.whole(wrong), over.whole(ANSWER));
    await expect(answer("Where is A-1042?", { lm: over.gpt({ nativeTools: false }) })).resolves.toBe("It has shipped.");
    expect(seen).toEqual([]);
    expect(JSON.stringify(over.server().requests[1]!.body.messages)).toContain('its parameter \\"order_id\\" is not JSON');
  });

  it("a call cut off by the length limit: not run, the model told it was cut off", async () => {
    seen.length = 0;
    const cut = DSML.slice(0, DSML.indexOf("A-1042") + 3);
    const stopped = over.whole(cut);
    (stopped.json.choices[0] as { finish_reason: string }).finish_reason = "length";
    over.server().reply(stopped, over.whole(ANSWER));
    await expect(answer("Where is A-1042?", { lm: over.gpt({ nativeTools: false }) })).resolves.toBe("It has shipped.");
    expect(seen).toEqual([]);
    expect(JSON.stringify(over.server().requests[1]!.body.messages)).toContain("was cut off before this call's input was complete");
  });
});
