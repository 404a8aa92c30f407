/**
 * A text output's description and limits (`z.string().describe(…)`, `.max(…)`) were never shown to the model:
 * the system message gives the schema of typed outputs only, so a model was asked for a text it was not
 * told the form of (and the reply was then refused by the limit it was never told). A plain `z.string()`
 * is written as before, byte for byte.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai } from "../../src/index.js";
import { readOutput, systemMessage } from "../../src/lm/prompt.js";
import { scripted } from "../../src/testing/index.js";

describe("a text output with a description or limits", () => {
  it("the system message tells the model its description", async () => {
    const lm = scripted(["<result>\nPARIS\n</result>"]);
    const f = ai("capital", {
      description: "Name the capital.",
      input: { country: z.string() },
      output: z.string().describe("one word, in capitals"),
    });
    expect(await f.using({ lm })("France")).toBe("PARIS");
    const system = lm.requests[0]!.messages[0]!.content;
    expect(system).toContain("one word, in capitals");
  });

  it("and its limits; it is still read as plain text", () => {
    const output = z.string().max(5);
    const system = systemMessage("f", "d", output);
    expect(system).toContain('"maxLength":5');
    expect(system).toContain("plain text");
    expect(readOutput("<result>\nhello\n</result>", output)).toEqual({ ok: true, value: "hello" });
  });

  it("a plain text output's system message is unchanged", () => {
    expect(systemMessage("f", "d", z.string())).toBe("Function: f\n\nd\n\nReply in exactly this form:\n<result>\n...\n</result>");
  });
});
