/**
 * phistory() printed a failed tool call's message (`isError`: the model is told the call failed) exactly as a
 * result (`[tool result <id>] …`): a reader could not tell that the tool threw from what it returned.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, clearHistory, phistory, tool } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

describe("phistory and a tool call that failed", () => {
  it("marks the failed call's message as an error, and a result as a result", async () => {
    clearHistory();
    const broken = tool("broken", { description: "b", input: { id: z.string() }, effects: "reads" }, () => {
      throw new Error("database down");
    });
    const fine = tool("fine", { description: "f", input: { id: z.string() }, effects: "reads" }, () => "ok");
    const f = ai("f", { description: "d", input: { q: z.string() }, tools: [broken, fine] });
    const lm = scripted([
      {
        toolCalls: [
          { name: "broken", input: { id: "1" }, id: "c1" },
          { name: "fine", input: { id: "2" }, id: "c2" },
        ],
      },
      "<result>\nsorry\n</result>",
    ]);
    await f.using({ lm })("hi");
    const text = phistory();
    expect(text).toMatch(/\[tool error c1\] .*database down/);
    expect(text).toContain("[tool result c2] ok");
    expect(text).not.toContain("[tool result c1]");
  });
});
