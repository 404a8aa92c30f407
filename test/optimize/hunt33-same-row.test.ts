/**
 * Hunt 33: the same row twice (a training set with a repeated question). bootstrapFewShot kept one copy as a
 * recorded run (with its tool call) and added the other as a labeled example (the bare answer): the model was
 * shown the same question twice, once looked up and once answered without looking, which teaches it both.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { ai, bootstrapFewShot, tool, type LMRequest } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

const ORDERS: Record<string, string> = { "A-1": "delivered", "B-2": "lost" };
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

describe("bootstrapFewShot: a row that is there twice", () => {
  it("its question is shown once: the kept run, not again as a labeled example", async () => {
    const rows = [
      { question: "Where is A-1?", result: "delivered" },
      { question: "Where is A-1?", result: "delivered" },
      { question: "Where is B-2?", result: "lost" },
    ];
    const teacher = scripted(Array.from({ length: 10 }, () => brain));
    const better = await bootstrapFewShot(answer, rows, { teacher, maxBootstrapped: 1, maxLabeled: 3, concurrency: 1 });
    expect(better.demos.map((d) => d.inputs.question)).toEqual(["Where is A-1?", "Where is B-2?"]);
    expect(better.demos[0]!.steps?.[0]?.toolCalls[0]?.name).toBe("lookup_order");
  });
});
