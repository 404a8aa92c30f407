/**
 * A hand-written worked example may give its results ids other than its calls' (`results: [{ id: "r1" }]` for
 * a call `c1`). demoMessages said results pair with calls by id, "else in order", but only paired by id: such
 * a result was dropped and the model was shown the call as failed, "(no result was recorded)".
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, tool } from "../../src/index.js";
import { demoMessages } from "../../src/optimize/demo-messages.js";
import { scripted } from "../../src/testing/index.js";

describe("an example's results whose ids are not its calls'", () => {
  it("pair with the calls in order", () => {
    const messages = demoMessages(
      {
        inputs: { q: "a" },
        outputs: { result: "x" },
        steps: [
          {
            text: "",
            toolCalls: [
              { id: "c1", name: "look", input: { id: "1" } },
              { id: "c2", name: "look", input: { id: "2" } },
            ],
            results: [
              { id: "c2", name: "look", content: "second" },
              { id: "r1", name: "look", content: "first" },
            ],
          },
        ],
      },
      1,
    );
    const tools = messages.filter((m) => m.role === "tool");
    expect(tools.map((m) => m.content)).toEqual(["first", "second"]);
    expect(tools.some((m) => "isError" in m && m.isError)).toBe(false);
  });

  it("the model is shown the result, not a failed call", async () => {
    const lm = scripted(["<result>\nok\n</result>"]);
    const t = tool("look", { description: "l", input: { id: z.string() }, effects: "reads" }, () => "x");
    const f = ai("f", { description: "d", input: { q: z.string() }, tools: [t] });
    const g = f.withState({
      instructions: "d",
      demos: [
        {
          inputs: { q: "a" },
          outputs: { result: "x" },
          steps: [{ text: "", toolCalls: [{ id: "c1", name: "look", input: { id: "1" } }], results: [{ id: "r1", name: "look", content: "found" }] }],
        },
      ],
    });
    await g.using({ lm })({ q: "b" });
    const shown = lm.requests[0]!.messages.find((m) => m.role === "tool")!;
    expect(shown).toEqual({ role: "tool", toolCallId: expect.stringMatching(/^example_1_call_1_/), name: "look", content: "found" });
  });
});
