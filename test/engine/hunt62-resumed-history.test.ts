/**
 * DESIGN "The journal": resuming gives a request it made before its recorded
 * reply, so nothing is paid twice. That holds only when the history a resumed
 * turn rebuilds from its records is the history it had: a tool's result the
 * model read must read the same when replayed from its `done` record.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, tool, Waiting, type LMRequest, type Plugin } from "../../src/index.js";
import { memoryStore, scripted } from "../../src/testing/index.js";

const toolText = (request: LMRequest | undefined, name: string): string | undefined =>
  request?.messages.find((m) => m.role === "tool" && m.name === name)?.content;

/** A desk whose reading tool returns `value` (one whose JSON is a string), then a refund a person approves. */
function desk(value: () => unknown, plugins: Plugin[] = []) {
  const REFUNDS: string[] = [];
  const when = tool("when", { description: "When the order shipped.", input: { order_id: z.string() }, effects: "reads" }, () => value());
  const refund = tool("refund", { description: "Refund.", input: { order_id: z.string() }, effects: "changes" }, ({ order_id }) => {
    REFUNDS.push(order_id);
    return `refunded ${order_id}`;
  });
  const fn = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [when, refund], plugins });
  return { fn, REFUNDS };
}

/**
 * The desk's turn: "when", then a refund that waits for a person; approved
 * from another handle, the resumed request must be the one sent before
 * (the recorded second reply found, its refund run), and only the third paid.
 */
async function waitApproveResume(fn: ReturnType<typeof desk>["fn"], REFUNDS: string[]): Promise<void> {
  const store = memoryStore();
  const lm = scripted([
    { toolCalls: [{ name: "when", input: { order_id: "A-1" } }] },
    { toolCalls: [{ name: "refund", input: { order_id: "A-1" } }] },
    "refunded",
  ]);
  await expect(fn.conversation("sam", { store, lm, approve: "changes" }).send("Refund A-1.")).rejects.toBeInstanceOf(Waiting);
  expect(lm.requests).toHaveLength(2);
  const before = toolText(lm.requests[1], "when");
  expect(before).toBeTypeOf("string");
  const turn = (await fn.conversation("sam", { store, lm }).turns()).at(-1)!;
  expect(await turn.approve({ by: "maria" })).toBe("refunded");
  expect(toolText(lm.requests[2], "when")).toBe(before);
  expect(lm.requests).toHaveLength(3);
  expect(REFUNDS).toEqual(["A-1"]);
}

describe("a tool output whose JSON is a string (a Date, a URL), replayed on resume", () => {
  for (const [what, value] of [
    ["a Date", () => new Date(Date.UTC(2026, 0, 2, 3, 4, 5))],
    ["a URL", () => new URL("https://shop.example/track/A-1")],
    ["a boxed String", () => new String("shipped")],
  ] as const) {
    it(`${what}: the resumed request is the one sent before, and its recorded reply is not paid again`, async () => {
      const { fn, REFUNDS } = desk(value);
      await waitApproveResume(fn, REFUNDS);
    });
  }

  it("a Date a toolResult plugin puts in place of the output: the same, and not paid again", async () => {
    const dated: Plugin = {
      name: "dated",
      version: "1",
      hooks: { toolResult: (r) => (r.name === "when" ? { output: new Date(Date.UTC(2026, 0, 2)) } : undefined) },
    };
    const { fn, REFUNDS } = desk(() => "soon", [dated]);
    await waitApproveResume(fn, REFUNDS);
  });
});
