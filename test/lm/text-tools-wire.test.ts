/**
 * Tools offered as text, on the wire: the real `openai` SDK against a local
 * OpenAI-compatible server (as a local model without native tool calling
 * runs behind Ollama or llama.cpp), its calls read back from the reply's
 * `<tool_call>` blocks.
 */
import { describe, expect, it } from "vitest";
import { localCompletion, textToolsDesk } from "./fixtures.js";

/** A whole chat completion whose message says `content`, as a compatible server sends it. */
const completion = (content: string) => localCompletion(content);

const { local, seen, answer, lm } = textToolsDesk();

describe("tools as text on an OpenAI-compatible server", () => {

  it("a call whose JSON the model fenced (```json … ```) inside <tool_call> runs, as a fenced <result> is read", async () => {
    seen.length = 0;
    local.server.reply(
      { json: completion('<tool_call>\n```json\n{"name": "lookup_order", "input": {"order_id": "A-1042"}}\n```\n</tool_call>') },
      { json: completion("<result>\nA-1042 has shipped.\n</result>") },
    );
    expect(await answer("Where is A-1042?", { lm: lm() })).toBe("A-1042 has shipped.");
    expect(seen).toEqual([{ order_id: "A-1042" }]);
    const sent = local.server.requests[1]!.body.messages as { role: string; content: string }[];
    expect(sent.at(-1)!.content).toContain('{"status":"shipped"}');
    expect(sent.at(-1)!.content).not.toContain("could not be read");
  });
});
