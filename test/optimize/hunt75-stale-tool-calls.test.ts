/**
 * Hunt 75: a saved state's worked examples keep their tool calls as the model made them. After a tool's input schema
 * changed (a field renamed, a type narrowed), `withState` loaded such an example silently, and every request showed
 * the model, as a call that worked, one the tool now refuses: the model copied it, and each live call was refused
 * first (a step paid for nothing). DESIGN's optimize section is silent, so such an example is refused
 * (`input-invalid`, naming the example, the step and the tool), as one calling a tool the function no longer has
 * already was. A call the recording answered with an error is kept: it shows a refusal and what came after.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { ai, tool, type AIState } from "../../src/index.js";
import { parseState } from "../../src/optimize/demo.js";
import { scripted } from "../../src/testing/index.js";

/** The order tool as it is now: it takes `order_id` (it took `id` when the state was saved). */
const lookupOrder = tool(
  "lookup_order",
  { description: "The order's status.", input: { order_id: z.string().regex(/^[A-Z]-\d+$/) }, effects: "reads" },
  ({ order_id }) => `${order_id}: at the carrier`,
);
const answer = ai("answer", { description: "Answer the question; look the order up first.", input: { question: z.string() }, tools: [lookupOrder] });

/** A state saved when the tool took `{ id }`: its one example calls it so. */
const saved = (input: unknown, isError?: boolean): AIState => ({
  instructions: "Answer the question; look the order up first.",
  demos: [
    { inputs: { question: "Where is A-1?" }, outputs: { result: "At the carrier." } },
    {
      inputs: { question: "Where is A-2?" },
      outputs: { result: "At the carrier." },
      steps: [
        {
          text: "",
          toolCalls: [{ id: "c1", name: "lookup_order", input }],
          results: [
            { id: "c1", name: "lookup_order", content: isError ? "Error: invalid input" : "A-2: at the carrier", ...(isError ? { isError } : {}) },
          ],
        },
      ],
    },
  ],
});

const signature = { inputSchema: answer.definition.inputSchema, tools: [lookupOrder] };

describe("worked examples whose tool calls the tool no longer takes", () => {
  it("are refused when the state is read, naming the example, the step and the tool", () => {
    const refused = (() => {
      try {
        parseState("answer", saved({ id: "A-2" }), signature);
      } catch (e) {
        return e;
      }
    })();
    expect(refused).toMatchObject({ code: "input-invalid" });
    expect(String((refused as Error).message)).toMatch(/example 2 .*step 1 calls lookup_order with an input the tool no longer takes.*order_id/);
  });

  it("a value the narrowed schema refuses (the right key, a wrong format) is refused too", () => {
    expect(() => parseState("answer", saved({ order_id: "a2" }), signature)).toThrow(/example 2 .*lookup_order .*no longer takes/);
  });

  it("a call that fits loads, and so does one the recording answered with an error (it shows a refusal)", () => {
    expect(parseState("answer", saved({ order_id: "A-2" }), signature).state.demos).toHaveLength(2);
    expect(parseState("answer", saved({ id: "A-2" }, true), signature).state.demos).toHaveLength(2);
  });

  it("names alone (no schemas) check only the names, as before", () => {
    expect(
      parseState("answer", saved({ id: "A-2" }), { inputSchema: answer.definition.inputSchema, tools: ["lookup_order"] }).state.demos,
    ).toHaveLength(2);
  });

  it("answer.withState refuses the stale example before any model call", async () => {
    const lm = scripted(["<result>\nAt the carrier.\n</result>"]);
    const loaded = (() => {
      try {
        return answer.withState(saved({ id: "A-2" })).using({ lm });
      } catch (e) {
        return e;
      }
    })();
    expect(loaded).toMatchObject({ code: "input-invalid" });
    expect(lm.requests).toHaveLength(0);
  });
});
