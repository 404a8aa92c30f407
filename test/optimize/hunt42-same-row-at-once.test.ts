/**
 * Hunt 42: the same row twice in bootstrapFewShot's rows, run with `concurrency`. Hunt 34 made a repeat that starts
 * after its first copy passed not run at all (it can never be kept), but copies that start together both ran: a tool
 * that changes the world (a refund, an email) ran twice for one question, and only one run could be kept. A repeat
 * now waits for its earlier copy, and runs only if that copy did not pass.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { ai, bootstrapFewShot, tool, type LMRequest } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

const refunded: string[] = [];
const refund = tool("refund", { description: "Refund an order.", input: { order_id: z.string() }, effects: "changes" }, async ({ order_id }) => {
  refunded.push(order_id);
  await new Promise((r) => setTimeout(r, 5));
  return `refunded ${order_id}`;
});
const desk = ai("desk", { description: "Refund the order.", input: { request: z.string() }, tools: [refund] });
/** Refunds the order, then says so; a request for X-9 it answers wrongly (its run does not pass). */
const brain = (req: LMRequest) => {
  const last = req.messages.at(-1)!;
  if (last.role === "tool") return last.content.includes("X-9") ? "<result>\nno\n</result>" : `<result>\n${last.content}\n</result>`;
  return { toolCalls: [{ name: "refund", input: { order_id: /[A-Z]-\d+/.exec(last.content)![0] } }] };
};

describe("bootstrapFewShot with rows at once: a row there twice", () => {
  it("runs its changing tool once, and is kept once", async () => {
    refunded.length = 0;
    const rows = [
      { request: "Refund A-1", result: "refunded A-1" },
      { request: "Refund A-1", result: "refunded A-1" },
      { request: "Refund B-2", result: "refunded B-2" },
      { request: "Refund A-1", result: "refunded A-1" },
    ];
    const teacher = scripted(Array.from({ length: 40 }, () => brain));
    const better = await bootstrapFewShot(desk, rows, { teacher, maxBootstrapped: 4, maxLabeled: 4, concurrency: 8 });
    expect(refunded.filter((id) => id === "A-1")).toHaveLength(1);
    expect(refunded.filter((id) => id === "B-2")).toHaveLength(1);
    expect(better.demos.map((d) => d.inputs.request)).toEqual(["Refund A-1", "Refund B-2"]);
    expect(better.demos.every((d) => d.steps?.[0]?.toolCalls[0]?.name === "refund")).toBe(true);
  });

  it("a repeat whose earlier copy did not pass still runs (it may pass)", async () => {
    refunded.length = 0;
    const rows = [
      { request: "Refund X-9", result: "refunded X-9" },
      { request: "Refund X-9", result: "refunded X-9" },
    ];
    const teacher = scripted(Array.from({ length: 40 }, () => brain));
    const better = await bootstrapFewShot(desk, rows, { teacher, maxBootstrapped: 2, maxLabeled: 0, concurrency: 8 });
    // both ran (the first did not pass), one after the other
    expect(refunded).toEqual(["X-9", "X-9"]);
    expect(better.demos).toEqual([]);
  });

  it("a repeat waiting for its copy when the run is stopped never runs", async () => {
    const started: string[] = [];
    const hold = tool(
      "refund",
      { description: "Refund an order.", input: { order_id: z.string() }, effects: "changes" },
      async ({ order_id }, ctx) => {
        started.push(order_id);
        await new Promise<void>((_, reject) => ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason), { once: true }));
        return "never";
      },
    );
    const slowDesk = ai("desk", { description: "Refund the order.", input: { request: z.string() }, tools: [hold] });
    const rows = [
      { request: "Refund A-1", result: "refunded A-1" },
      { request: "Refund A-1", result: "refunded A-1" },
    ];
    const teacher = scripted(Array.from({ length: 40 }, () => brain));
    const controller = new AbortController();
    const run = bootstrapFewShot(slowDesk, rows, { teacher, maxBootstrapped: 2, maxLabeled: 0, concurrency: 8, signal: controller.signal });
    run.catch(() => {});
    await expect.poll(() => started.length).toBe(1);
    controller.abort(new Error("enough"));
    await expect(run).rejects.toMatchObject({ code: "turn-aborted", message: expect.stringContaining("after 0 of 2 rows") });
    expect(started).toEqual(["A-1"]);
    expect(teacher.requests).toHaveLength(1);
  });
});
