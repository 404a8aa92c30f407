/**
 * hunt 61: a scripted model with tools offered as text (`nativeTools: false`)
 * writes each scripted call as a `<tool_call>` block. An input whose text
 * holds `</tool_call>` (a tool that writes XML, HTML or a prompt) must reach
 * the tool as scripted, as it does with native tools: written raw, the tag in
 * the input ended the block early, the call was read as broken JSON and the
 * tool never ran.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, tool } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

const NOTE = 'Wrap calls as <tool_call>{"name": "x"}</tool_call> and close with </TOOL_CALL >.';

function setup() {
  const saved: string[] = [];
  const save = tool("save_note", { description: "Saves a note.", input: { text: z.string() }, effects: "reads" }, ({ text }) => {
    saved.push(text);
    return "saved";
  });
  const writer = ai("writer", { description: "Writes a note.", input: { topic: z.string() }, output: z.string(), tools: [save] });
  return { saved, writer };
}

describe("scripted, tools as text: a call's input holding the block's closing tag", () => {
  for (const nativeTools of [true, false]) {
    it(`reaches the tool as scripted (nativeTools: ${nativeTools})`, async () => {
      const { saved, writer } = setup();
      const lm = scripted([{ toolCalls: [{ name: "save_note", input: { text: NOTE } }] }, "Saved."], { nativeTools });
      await expect(writer("tool calls", { lm })).resolves.toBe("Saved.");
      expect(saved).toEqual([NOTE]);
    });
  }

  it("the block it writes reads back as the same call, streamed or not", async () => {
    const lm = scripted([{ toolCalls: [{ name: "save_note", input: { text: NOTE } }] }], { nativeTools: false, chunks: 5 });
    const pieces: string[] = [];
    const reply = await lm.generate({ messages: [{ role: "user", content: "<topic>\nx\n</topic>" }], tools: [] }, { onText: (d) => pieces.push(d) });
    expect(pieces.join("")).toBe(reply.text);
    // one block, closed once, at the end
    expect(reply.text.match(/<\/tool_call>/gi)).toHaveLength(1);
    expect(reply.text.endsWith("</tool_call>")).toBe(true);
  });
});
