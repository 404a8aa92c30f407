/**
 * hunt 139: Llama 3.x's parallel calls in its own JSON form, one object
 * after another with `;` between: `{"name": "lookup_order", "parameters":
 * {…}}; {"name": "lookup_order", "parameters": {…}}` (Llama 3.3 70B writes
 * them so: ai-dynamo/dynamo#9536, whose parser read only the first; vLLM's
 * llama3_json parser reads them all). One such call as the whole reply is
 * read (json-calls.ts, hunt 92), but two were no JSON, so with tools
 * offered as text the calls were the answer's text and no tool ran, and
 * with tools offered natively the reply was not told apart from an answer
 * (the check refuses one such call as the server's unread call). Now each
 * object is a call, and a reply that is anything more (words after the
 * last, a piece of no JSON between) is what it was.
 */
import { describe, expect, it } from "vitest";
import { textSse } from "../providers/fixtures/hunt51-wire.js";
import { llamaServer, lookupDesk, refusedAsText } from "../providers/fixtures/llama-text-calls.js";
import { readText } from "./fixtures.js";

const llama = llamaServer("meta-llama/Llama-3.3-70B-Instruct");
const { gpt, whole } = llama;

const call = (order: string) => JSON.stringify({ name: "lookup_order", parameters: { order_id: order } });
const TWO: Record<string, string> = {
  "`; ` between": `${call("A-1042")}; ${call("A-1043")}`,
  "`;` between, no space": `${call("A-1042")};${call("A-1043")}`,
  "after <|python_tag|>, a `;` after the last too": `<|python_tag|>${call("A-1042")};\n${call("A-1043")};`,
};

const { seen, answer } = lookupDesk();
const ANSWER = "<result>\nBoth have shipped.\n</result>";

describe("tools offered as text: calls with `;` between, as the whole reply, are those calls", () => {
  for (const [name, content] of Object.entries(TWO)) {
    it(`${name}, whole: both run, in order, then the answer`, async () => {
      seen.length = 0;
      llama.server().reply(whole(content), whole(ANSWER));
      await expect(answer("Where are A-1042 and A-1043?", { lm: gpt({ nativeTools: false }) })).resolves.toBe("Both have shipped.");
      expect(seen).toEqual([{ order_id: "A-1042" }, { order_id: "A-1043" }]);
    });

    it(`${name}, streamed: both run, and nothing of them is shown`, async () => {
      seen.length = 0;
      llama.server().reply({ sse: textSse(content, 6) }, { sse: textSse(ANSWER, 6) });
      const turn = answer.stream("Where are A-1042 and A-1043?", { lm: gpt({ nativeTools: false }) });
      const shown: string[] = [];
      for await (const e of turn) if (e.type === "text") shown.push(e.delta);
      expect(await turn).toBe("Both have shipped.");
      expect(shown.join("")).toBe("Both have shipped.");
      expect(seen).toEqual([{ order_id: "A-1042" }, { order_id: "A-1043" }]);
    });
  }

  it("anything more is no call list, the reply's text as before (guard)", () => {
    for (const text of [
      `${call("A-1042")}; ${call("A-1043")} Let me check both.`,
      `${call("A-1042")}; and then {"name": "lookup_order"`,
      `${call("A-1042")} ${call("A-1043")}`,
      `${call("A-1042")};; ${call("A-1043")}`,
    ]) {
      const read = readText(text);
      expect(read.toolCalls, text).toEqual([]);
      expect(read.text).toBe(text);
    }
  });
});

describe("tools offered natively: such calls left in the text are refused, never the answer", () => {
  refusedAsText(TWO, llama);
});
