/**
 * Hunt 148: a written example's result that names another tool than the call it answers (paired by id, or by
 * position where neither id nor name pairs it) loaded, and was shown to the model under the call's name: the example
 * said `refund` returned it, the model was told `lookup_order` did. Such an example is now refused when the state is
 * loaded (`input-invalid`, naming the example, the step, the result and the call), before anything is sent.
 */
import { describe, expect, it } from "vitest";
import type { AIState, DemoStep } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { status } from "../evaluate/desk.js";
import { refusal } from "../fixtures/refused.js";

const CALL = { id: "c1", name: "lookup_order", input: { order_id: "A-1042" } };
const CONTENT = '{"item":"kettle","status":"stuck at the carrier"}';

const withStep = (step: DemoStep): AIState => ({
  instructions: status.state().instructions,
  demos: [{ inputs: { question: "Where is A-1042?" }, outputs: { result: "stuck at the carrier" }, steps: [step] }],
});

describe("a written example's result naming another tool than its call", () => {
  it("paired by id, it is refused, naming the result and the call", () => {
    const step: DemoStep = { text: "", toolCalls: [CALL], results: [{ id: "c1", name: "refund", content: CONTENT }] };
    const error = refusal(() => status.withState(withStep(step)));
    expect(error.code).toBe("input-invalid");
    expect(error.message).toMatch(/example 1's step 1 has a result "c1" of refund answering its call "c1" of lookup_order/);
  });

  it("paired by position (its id and name pair it with no call), it is refused too, and nothing is sent", () => {
    const lm = scripted(["<result>\ndelivered\n</result>"]);
    const step: DemoStep = { text: "", toolCalls: [CALL], results: [{ id: "r9", name: "refund", content: CONTENT }] };
    expect(refusal(() => status.withState(withStep(step)).using({ lm })).message).toMatch(/result "r9" of refund answering its call "c1" of lookup_order/);
    expect(lm.requests).toHaveLength(0);
  });

  it("(guard) results with their calls' names load, by id or by name, in any order, and are shown under them", async () => {
    const second = { id: "c2", name: "lookup_order", input: { order_id: "B-2210" } };
    const step: DemoStep = {
      text: "",
      toolCalls: [CALL, second],
      results: [{ id: "x", name: "lookup_order", content: "delivered" }, { id: "c1", name: "lookup_order", content: CONTENT }],
    };
    const lm = scripted(["<result>\ndelivered\n</result>"]);
    await status.withState(withStep(step))("Where is B-2210?", { lm });
    const tools = lm.requests[0]!.messages.filter((m) => m.role === "tool");
    expect(tools).toMatchObject([
      { name: "lookup_order", content: CONTENT },
      { name: "lookup_order", content: "delivered" },
    ]);
  });
});
