/**
 * hunt 139: a Llama call written with the markers Llama puts around it, on
 * a server that shows its special tokens in the text.
 *
 * Llama 3.1 opens a call with `<|python_tag|>`; Llama 4 wraps its call
 * (pythonic or JSON) in `<|python_start|>` … `<|python_end|>`, and vLLM
 * leaves those in the text ("Llama 4 model sometime will output those
 * tokens", which its llama4_pythonic parser strips; a reply with them as
 * content: vllm-project/vllm#16214). With tools offered as text, Llama
 * 4's marked call was the answer's text and the tool never ran (Llama
 * 3.1's was read, hunt 92). With tools offered natively, a call left in
 * the text after either marker was not told apart from an answer: the
 * reply, call and all, was the result (the check refuses the same call
 * without its marker as the server's unread call, hunt 51). Both now read
 * the call inside the markers.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, tool } from "../../src/index.js";
import { textSse } from "./fixtures/hunt51-wire.js";
import { ask } from "./fixtures/lookup-order.js";
import { llamaServer, lookupDesk, refusedAsText } from "./fixtures/llama-text-calls.js";

const llama = llamaServer("meta-llama/Llama-4-Scout-17B-16E-Instruct");
const { gpt, whole } = llama;

const MARKED: Record<string, string> = {
  "Llama 4's pythonic list": '<|python_start|>[lookup_order(order_id="A-1042")]<|python_end|>',
  "Llama 4's JSON": '<|python_start|>{"name": "lookup_order", "parameters": {"order_id": "A-1042"}}<|python_end|>',
  "Llama 3.1's JSON": '<|python_tag|>{"name": "lookup_order", "parameters": {"order_id": "A-1042"}}',
};

describe("tools offered natively: a marked call left in the text is refused, never the answer", () => {
  refusedAsText(MARKED, llama);

  it("one naming no offered tool is the answer's text, as without its marker (guard)", async () => {
    const content = MARKED["Llama 4's pythonic list"]!.replace("lookup_order", "send_email");
    llama.server().reply(whole(content));
    const reply = await gpt().generate(ask);
    expect(reply.text).toBe(content);
    expect(reply.toolCalls).toEqual([]);
  });
});

describe("tools offered as text: a marked call as the whole reply is that call", () => {
  const { seen, answer } = lookupDesk();
  const ANSWER = "<result>\nIt has shipped.\n</result>";

  for (const [name, content] of Object.entries(MARKED)) {
    it(`${name}, whole: the tool runs, then the answer`, async () => {
      seen.length = 0;
      llama.server().reply(whole(content), whole(ANSWER));
      await expect(answer("Where is A-1042?", { lm: gpt({ nativeTools: false }) })).resolves.toBe("It has shipped.");
      expect(seen).toEqual([{ order_id: "A-1042" }]);
    });

    it(`${name}, streamed: the tool runs, and nothing of the call is shown`, async () => {
      seen.length = 0;
      llama.server().reply({ sse: textSse(content, 5) }, { sse: textSse(ANSWER, 5) });
      const turn = answer.stream("Where is A-1042?", { lm: gpt({ nativeTools: false }) });
      const shown: string[] = [];
      for await (const e of turn) if (e.type === "text") shown.push(e.delta);
      expect(await turn).toBe("It has shipped.");
      expect(shown.join("")).toBe("It has shipped.");
      expect(seen).toEqual([{ order_id: "A-1042" }]);
    });
  }

  it("Llama 4's marked list whose input holds <result>, streamed: held as the call it is, never shown from that tag on", async () => {
    const saved: unknown[] = [];
    const saveNote = tool("save_note", { description: "Saves a note.", input: { text: z.string() }, effects: "changes" }, (input) => {
      saved.push(input);
      return { saved: true };
    });
    const notes = ai("notes", { description: "Do what the user asks with their notes.", input: { ask: z.string() }, tools: [saveNote] });
    const call = '<|python_start|>[save_note(text="Wrap the answer in <result> tags.")]<|python_end|>';
    llama.server().reply({ sse: textSse(call, 4) }, { sse: textSse("<result>\nSaved.\n</result>", 4) });
    const turn = notes.stream("Note: wrap the answer in <result> tags.", { lm: gpt({ nativeTools: false }) });
    const shown: string[] = [];
    for await (const e of turn) if (e.type === "text") shown.push(e.delta);
    expect(await turn).toBe("Saved.");
    expect(shown.join("")).toBe("Saved.");
    expect(saved).toEqual([{ text: "Wrap the answer in <result> tags." }]);
  });
});
