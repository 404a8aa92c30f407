/**
 * A model whose calls of one reply share an id (a local server that gives every call "call_0"): a run that called a
 * misspelt tool and the right one in one reply, then answered from the right one's result, is a passing run. Its
 * example kept the right call but the misspelt call's result ("there is no tool named …", an error), so the model
 * was shown lookup_order failing and an answer made from nothing. Each call's result is the one it was answered
 * with, in order, when ids repeat; and withState checks a call against its own result, not the first of its id.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { ai, bootstrapFewShot, tool, type LMRequest, type Message } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

const lookup = tool("lookup_order", { description: "The order's status.", input: { order_id: z.string() }, effects: "reads" }, ({ order_id }) => ({
  status: `${order_id} shipped`,
}));
const answer = ai("answer", { description: "Say the order's status.", input: { question: z.string() }, tools: [lookup] });
const lastContent = (r: LMRequest): string => (r.messages.at(-1) as Extract<Message, { role: "tool" }>).content;

describe("a recorded run whose calls of one reply share an id", () => {
  it("keeps each kept call's own result, not the dropped call's", async () => {
    const teacher = scripted([
      {
        toolCalls: [
          { id: "call_0", name: "lookup_ordr", input: { order_id: "A-1" } },
          { id: "call_0", name: "lookup_order", input: { order_id: "A-1" } },
        ],
      },
      (r: LMRequest) => `<result>${(JSON.parse(lastContent(r)) as { status: string }).status}</result>`,
    ]);
    const better = await bootstrapFewShot(answer, [{ question: "Where is A-1?", result: "A-1 shipped" }], { teacher, maxLabeled: 0 });
    expect(better.demos[0]!.steps).toEqual([
      {
        text: "",
        toolCalls: [{ id: "call_0", name: "lookup_order", input: { order_id: "A-1" } }],
        results: [{ id: "call_0", name: "lookup_order", content: '{"status":"A-1 shipped"}' }],
      },
    ]);
    // as the model is shown it: lookup_order answered with its status
    const lm = scripted(["<result>B-2 shipped</result>"]);
    await better.using({ lm })("Where is B-2?");
    const shown = lm.requests[0]!.messages.filter((m) => m.role === "tool");
    expect(shown).toMatchObject([{ name: "lookup_order", content: '{"status":"A-1 shipped"}' }]);
    expect(shown[0]).not.toHaveProperty("isError");
  });

  it("withState checks each call against its own result: a refused first call does not excuse a stale second one", () => {
    const step = {
      text: "",
      toolCalls: [
        { id: "call_0", name: "lookup_order", input: { order_id: 7 } },
        { id: "call_0", name: "lookup_order", input: { order: "A-1" } },
      ],
      results: [
        { id: "call_0", name: "lookup_order", content: "Error: invalid input", isError: true },
        { id: "call_0", name: "lookup_order", content: '{"status":"A-1 shipped"}' },
      ],
    };
    const state = {
      instructions: "Say the order's status.",
      demos: [{ inputs: { question: "Where is A-1?" }, outputs: { result: "A-1 shipped" }, steps: [step] }],
    };
    expect(() => answer.withState(state)).toThrow(
      /example 1 does not fit answer's signature \(step 1 calls lookup_order with an input the tool no longer takes/,
    );
  });
});
