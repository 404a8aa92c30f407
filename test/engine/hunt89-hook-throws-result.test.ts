/**
 * Hunt 89: a `toolCall` hook, a `toolRun` hook or an approve function that throws before the tool runs failed the
 * turn (`plugin-failed`, as it should) but left the stream with the call's `tool_call` and no `tool_result`: a UI that
 * shows calls by those two events showed it running for ever (the `failed` event names the path, not the
 * invocation). So too the step's other calls, shown and decided, that never ran because this one failed. Every call
 * whose `tool_call` was shown now gets an error `tool_result` before the turn fails; what the call rejects with is
 * unchanged. (Hunt 86 did the same for a throwing `toolResult` hook.)
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { FunctaiError, ai, memoryStore, tool, type Plugin, type TurnEvent } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { events } from "../fixtures/stream-events.js";

const invocations = (seen: TurnEvent[], type: "tool_call" | "tool_result") =>
  seen.filter((e) => e.type === type).map((e) => (e as { invocation: number }).invocation);

/** Each `tool_call` got its `tool_result`, an error naming `says`, before the turn's `failed`. */
function expectEnded(seen: TurnEvent[], calls: number[], says: string): void {
  expect(invocations(seen, "tool_call")).toEqual(calls);
  expect(invocations(seen, "tool_result").sort()).toEqual(calls);
  for (const r of seen.filter((e) => e.type === "tool_result")) expect(r).toMatchObject({ error: expect.stringContaining(says) });
  const failedAt = seen.findIndex((e) => e.type === "failed");
  expect(seen[failedAt]).toMatchObject({ error: { code: "plugin-failed" } });
  for (const [i, e] of seen.entries()) if (e.type === "tool_result") expect(i).toBeLessThan(failedAt);
}

const throwing = (hook: "toolCall" | "toolRun"): Plugin =>
  ({
    name: "guard",
    version: "1",
    hooks: {
      [hook]: () => {
        throw new Error("policy service down");
      },
    },
  }) as Plugin;

function refundDesk() {
  const refunds: number[] = [];
  const refund = tool("refund", { description: "Refunds.", input: { amount: z.number() }, effects: "changes" }, ({ amount }) => {
    refunds.push(amount);
    return { refunded: amount };
  });
  const desk = ai("desk", { description: "Help.", input: { q: z.string() }, tools: [refund] });
  return { desk, refunds };
}

describe("a hook or approve function that throws before the tool runs: the stream still ends the call", () => {
  it("a toolCall hook: an error tool_result, then the turn fails plugin-failed, nothing ran", async () => {
    const { desk, refunds } = refundDesk();
    const lm = scripted([{ toolCalls: [{ name: "refund", input: { amount: 39 } }] }, "never"]);
    const { seen, error } = await events(desk.stream("Refund A-1", { lm, plugins: [throwing("toolCall")] }));
    expectEnded(seen, [1], "policy service down");
    expect((error as FunctaiError).code).toBe("plugin-failed");
    expect(refunds).toEqual([]);
    expect(lm.requests).toHaveLength(1);
  });

  it("an approve function, in a conversation", async () => {
    const { desk, refunds } = refundDesk();
    const lm = scripted([{ toolCalls: [{ name: "refund", input: { amount: 39 } }] }, "never"]);
    const approve = (): boolean => {
      throw new Error("manager app down");
    };
    const chat = desk.conversation("c1", { store: memoryStore(), lm, approve });
    const { seen, error } = await events(chat.stream("Refund A-1"));
    expectEnded(seen, [1], "manager app down");
    expect(error).toBeInstanceOf(FunctaiError);
    expect((error as FunctaiError).code).toBe("plugin-failed");
    expect(refunds).toEqual([]);
  });

  it("a toolRun hook that throws before calling run", async () => {
    const { desk, refunds } = refundDesk();
    const lm = scripted([{ toolCalls: [{ name: "refund", input: { amount: 39 } }] }, "never"]);
    const { seen, error } = await events(desk.stream("Refund A-1", { lm, plugins: [throwing("toolRun")] }));
    expectEnded(seen, [1], "policy service down");
    expect((error as FunctaiError).code).toBe("plugin-failed");
    expect(refunds).toEqual([]);
  });

  it("the step's other call, shown and decided before the hook threw on the next, gets its result too", async () => {
    const { desk, refunds } = refundDesk();
    const lm = scripted([
      {
        toolCalls: [
          { name: "refund", input: { amount: 5 } },
          { name: "refund", input: { amount: 39 } },
        ],
      },
      "never",
    ]);
    const picky: Plugin = {
      name: "guard",
      version: "1",
      hooks: {
        toolCall: (call) => {
          if ((call.input as { amount: number }).amount > 10) throw new Error("policy service down");
        },
      },
    };
    const { seen, error } = await events(desk.stream("Refund both", { lm, plugins: [picky] }));
    expectEnded(seen, [1, 2], "policy service down");
    expect((error as FunctaiError).code).toBe("plugin-failed");
    expect(refunds).toEqual([]);
  });
});
