/**
 * Hunt 34: the same row twice in the training rows, both runs passing. bootstrapFewShot kept both as recorded runs:
 * the model was shown one question twice (two of `maxBootstrapped` slots spent on it, another row's run left out),
 * and hunt 33 already leaves such a repeat out as a labeled example. A repeat is kept once, at its first place, and
 * the slot goes to the next row that passes; a repeat that starts after its first copy passed is not run (paid for) at all.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { ai, bootstrapFewShot, tool, type LMRequest } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

const ORDERS: Record<string, string> = { "A-1": "delivered", "B-2": "lost", "C-3": "late" };
const lookupOrder = tool(
  "lookup_order",
  { description: "The order's status.", input: { order_id: z.string() }, effects: "reads" },
  ({ order_id }) => ({ status: ORDERS[order_id] ?? "unknown" }),
);
const answer = ai("answer", { description: "Say the order's status.", input: { question: z.string() }, tools: [lookupOrder] });
const brain = (req: LMRequest) => {
  const last = req.messages.at(-1)!;
  if (last.role === "tool") return `<result>\n${JSON.parse(last.content).status}\n</result>`;
  return { toolCalls: [{ name: "lookup_order", input: { order_id: /[A-Z]-\d+/.exec(last.content)![0] } }] };
};
const asked = (lm: ReturnType<typeof scripted>) =>
  lm.requests.filter((r) => r.messages.at(-1)!.role === "user").map((r) => r.messages.at(-1)!.content);

describe("bootstrapFewShot: a row that is there twice, both runs passing", () => {
  const rows = [
    { question: "Where is A-1?", result: "delivered" },
    { question: "Where is A-1?", result: "delivered" },
    { question: "Where is B-2?", result: "lost" },
    { question: "Where is C-3?", result: "late" },
  ];

  it("is kept once as a recorded run; the next passing row takes the other slot", async () => {
    const teacher = scripted(Array.from({ length: 20 }, () => brain));
    const better = await bootstrapFewShot(answer, rows, { teacher, maxBootstrapped: 2, maxLabeled: 2, concurrency: 1 });
    expect(better.demos.map((d) => d.inputs.question)).toEqual(["Where is A-1?", "Where is B-2?"]);
    expect(better.demos.every((d) => d.steps?.[0]?.toolCalls[0]?.name === "lookup_order")).toBe(true);
    // run in order, the repeat started after its first copy had passed: it was not asked again
    expect(asked(teacher).filter((q) => q.includes("A-1"))).toHaveLength(1);
  });

  it("with rows at once, both copies may run, and one is kept", async () => {
    const teacher = scripted(Array.from({ length: 20 }, () => brain));
    const better = await bootstrapFewShot(answer, rows, { teacher, maxBootstrapped: 3, maxLabeled: 3, concurrency: 8 });
    expect(better.demos.map((d) => d.inputs.question)).toEqual(["Where is A-1?", "Where is B-2?", "Where is C-3?"]);
  });
});
