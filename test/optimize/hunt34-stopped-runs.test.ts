/**
 * Hunt 34: bootstrapFewShot stopped by its signal lost the runs that had passed (each one paid for, with its tool
 * calls). The `turn-aborted` error now carries `demos`: the recorded runs that passed before the stop, as
 * `better.demos` would hold them (in row order, at most `maxBootstrapped`), so `fn.withState({ …, demos })` keeps them.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { ai, bootstrapFewShot, FunctaiError, tool, type Demo, type LMRequest } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

const lookupOrder = tool(
  "lookup_order",
  { description: "The order's status.", input: { order_id: z.string() }, effects: "reads" },
  ({ order_id }) => ({ status: order_id === "A-1" ? "delivered" : "lost" }),
);
const answer = ai("answer", { description: "Say the order's status.", input: { question: z.string() }, tools: [lookupOrder] });
const brain = (req: LMRequest) => {
  const last = req.messages.at(-1)!;
  if (last.role === "tool") return `<result>\n${JSON.parse(last.content).status}\n</result>`;
  return { toolCalls: [{ name: "lookup_order", input: { order_id: /[A-Z]-\d+/.exec(last.content)![0] } }] };
};

describe("bootstrapFewShot stopped by its signal keeps the runs that passed", () => {
  it("the turn-aborted error carries the recorded runs found before the stop; withState takes them", async () => {
    const rows = [
      { question: "Where is A-1?", result: "delivered" },
      { question: "Where is B-2?", result: "wrong" },
      { question: "Where is C-3?", result: "lost" },
      { question: "Where is D-4?", result: "lost" },
    ];
    const controller = new AbortController();
    const teacher = scripted(Array.from({ length: 20 }, () => brain));
    const run = bootstrapFewShot(answer, rows, {
      teacher,
      concurrency: 1,
      maxBootstrapped: 4,
      signal: controller.signal,
      onProgress: (p) => {
        if (p.done === 3) controller.abort(new Error("enough"));
      },
    });
    const e = (await run.then(
      () => null,
      (error: unknown) => error,
    )) as FunctaiError & { demos?: Demo[] };
    expect(e).toBeInstanceOf(FunctaiError);
    expect(e.code).toBe("turn-aborted");
    expect(e.message).toMatch(/after 3 of 4 rows/);
    expect(e.demos?.map((d) => d.inputs.question)).toEqual(["Where is A-1?", "Where is C-3?"]);
    expect(e.demos?.[0]?.steps?.[0]?.toolCalls[0]?.name).toBe("lookup_order");
    const kept = answer.withState({ ...answer.state(), demos: e.demos! });
    expect(kept.demos).toHaveLength(2);
  });
});
