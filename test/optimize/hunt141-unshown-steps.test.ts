/**
 * Hunt 141: a written example whose step called no tool (its text, its results), or whose step held a result that
 * answers none of its calls, loaded, and the model was never shown that part: only calls make a step's messages, and
 * each call takes one result. The example said one thing and the model was quietly shown less. Such an example is
 * now refused when the state is loaded (`input-invalid`, naming the example and the step), before anything is sent.
 */
import { describe, expect, it } from "vitest";
import type { AIState, DemoStep } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { status } from "../evaluate/desk.js";
import { refusal } from "../fixtures/refused.js";

const LOOKUP: DemoStep = {
  text: "",
  toolCalls: [{ id: "c1", name: "lookup_order", input: { order_id: "A-1042" } }],
  results: [{ id: "c1", name: "lookup_order", content: '{"item":"kettle","status":"stuck at the carrier"}' }],
};

const withSteps = (...steps: DemoStep[]): AIState => ({
  instructions: status.state().instructions,
  demos: [
    { inputs: { question: "Where is B-2210?" }, outputs: { result: "delivered" } },
    { inputs: { question: "Where is A-1042?" }, outputs: { result: "stuck at the carrier" }, steps },
  ],
});

describe("a written example with a part the model would never be shown", () => {
  it("a step that calls no tool but says something is refused, naming the example and the step", () => {
    const error = refusal(() => status.withState(withSteps({ text: "Let me look that up.", toolCalls: [], results: [] }, LOOKUP)));
    expect(error.code).toBe("input-invalid");
    expect(error.message).toMatch(/example 2's step 1 calls no tool, so its text would never be shown/);
  });

  it("a step that calls no tool but holds results is refused", () => {
    const step: DemoStep = { text: "", toolCalls: [], results: [{ id: "r1", name: "lookup_order", content: "delivered" }] };
    expect(refusal(() => status.withState(withSteps(LOOKUP, step))).message).toMatch(
      /example 2's step 2 calls no tool, so its results would never be shown/,
    );
  });

  it("a result that answers none of its step's calls is refused, naming it", () => {
    const step: DemoStep = { ...LOOKUP, results: [...LOOKUP.results, { id: "c9", name: "refund", content: "refunded A-1042" }] };
    const error = refusal(() => status.withState(withSteps(step)));
    expect(error.code).toBe("input-invalid");
    expect(error.message).toMatch(/example 2's step 1 has a result "c9" \(refund\) that answers none of its calls/);
  });

  it("nothing is sent for a refused state: it is refused as it loads", () => {
    const lm = scripted(["<result>\ndelivered\n</result>"]);
    refusal(() => status.withState(withSteps({ text: "Let me look that up.", toolCalls: [], results: [] })).using({ lm }));
    expect(lm.requests).toHaveLength(0);
  });

  it("(guard) an empty step (nothing to show) and results paired by tool where ids name no call still load", async () => {
    const byTool: DemoStep = { ...LOOKUP, results: [{ id: "r1", name: "lookup_order", content: LOOKUP.results[0]!.content }] };
    const lm = scripted(["<result>\ndelivered\n</result>"]);
    await status.withState(withSteps({ text: "", toolCalls: [], results: [] }, byTool))("Where is B-2210?", { lm });
    const tool = lm.requests[0]!.messages.find((m) => m.role === "tool");
    expect(tool).toMatchObject({ role: "tool", name: "lookup_order", content: LOOKUP.results[0]!.content });
  });
});
