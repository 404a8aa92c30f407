/**
 * A toolResult hook that throws (a broken redactor): the call fails `plugin-failed`, as it should, but the stream
 * never sent a `tool_result` for the call that started, so a UI that shows calls by their `tool_call` and
 * `tool_result` showed it running for ever (the `failed` event names only the plugin and the path). Every call whose
 * `tool_call` was shown now gets its `tool_result` (the tool's own outcome, as the journal keeps it) before the turn
 * fails.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, memoryStore, tool, type Plugin, type TurnEvent } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

const broken: Plugin = {
  name: "redactor",
  version: "1",
  hooks: {
    toolResult: () => {
      throw new Error("bad pattern");
    },
  },
};

async function events(s: AsyncIterable<TurnEvent> & PromiseLike<unknown>): Promise<TurnEvent[]> {
  const seen: TurnEvent[] = [];
  for await (const e of s) seen.push(e);
  await Promise.resolve(s).then(
    () => undefined,
    () => undefined,
  );
  return seen;
}

const starts = (seen: TurnEvent[]) => seen.filter((e) => e.type === "tool_call").map((e) => (e as { invocation: number }).invocation);
const results = (seen: TurnEvent[]) => seen.filter((e) => e.type === "tool_result");

describe("a toolResult hook that throws: the stream still ends each call it started", () => {
  it("a tool that failed: its tool_result carries the tool's error, then the turn fails plugin-failed", async () => {
    const lookup = tool("lookup", { description: "Looks up.", input: { id: z.string() }, effects: "reads" }, () => {
      throw new Error("database down");
    });
    const desk = ai("desk", { description: "Help.", input: { q: z.string() }, tools: [lookup] });
    const lm = scripted([{ toolCalls: [{ name: "lookup", input: { id: "A-1" } }] }, "never"]);
    const seen = await events(desk.stream("Where is A-1?", { lm, plugins: [broken] }));
    expect(starts(seen)).toEqual([1]);
    expect(results(seen)).toMatchObject([{ type: "tool_result", invocation: 1, name: "lookup", error: expect.stringContaining("database down") }]);
    const toolResultAt = seen.findIndex((e) => e.type === "tool_result");
    const failedAt = seen.findIndex((e) => e.type === "failed");
    expect(seen[failedAt]).toMatchObject({ type: "failed", error: { code: "plugin-failed" } });
    expect(toolResultAt).toBeLessThan(failedAt);
    expect(lm.requests).toHaveLength(1);
  });

  it("a tool that answered: its tool_result carries its output, in a conversation too", async () => {
    const refunds: number[] = [];
    const refund = tool("refund", { description: "Refunds.", input: { amount: z.number() }, effects: "changes" }, ({ amount }) => {
      refunds.push(amount);
      return { refunded: amount };
    });
    const desk = ai("desk", { description: "Help.", input: { q: z.string() }, tools: [refund] });
    const lm = scripted([{ toolCalls: [{ name: "refund", input: { amount: 39 } }] }, "never"]);
    const chat = desk.conversation("c1", { store: memoryStore(), lm, plugins: [broken] });
    const seen = await events(chat.stream("Refund A-1"));
    expect(refunds).toEqual([39]);
    expect(starts(seen)).toEqual([1]);
    expect(results(seen)).toMatchObject([{ type: "tool_result", invocation: 1, name: "refund", output: { refunded: 39 } }]);
    expect(seen.find((e) => e.type === "failed")).toMatchObject({ error: { code: "plugin-failed" } });
  });
});
