import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, tool, Waiting } from "../../src/index.js";
import { memoryStore, scripted } from "../../src/testing/index.js";
import { deskTools, echoLast } from "../engine/fixtures.js";

/** The model asks for `helper`, whose inner AI function asks for `refund`; then each echoes the last tool result. */
const helperThenRefund = () =>
  scripted([
    { toolCalls: [{ name: "helper", input: { q: "refund" } }] },
    { toolCalls: [{ name: "refund", input: { order_id: "A", amount: 1 } }] },
    echoLast,
    echoLast,
  ]);

describe("a changing tool whose body calls an AI function that waits for a person", () => {
  it("is entered again once answered (its inner calls replay), not left unfinished", async () => {
    const t = deskTools();
    const answer = ai("answer", { description: "Answer.", input: { question: z.string() }, tools: [t.refund] });
    let entered = 0;
    // says nothing about its effects: counted as changing, so it is journaled as started before it runs
    const helper = tool("helper", { description: "h", input: { q: z.string() } }, async ({ q }) => {
      entered += 1;
      return answer(q);
    });
    const desk = ai("desk", { description: "d", input: { q: z.string() }, tools: [helper] });
    const lm = helperThenRefund();
    const s = desk.stream("go", { lm, approve: ["answer/refund"] });
    for await (const e of s) if (e.type === "approval") void s.approve({ id: e.approval.id });
    expect(await s).toBe("saw: saw: refunded 1 for A");
    expect(t.REFUNDS).toEqual([["A", 1]]);
    expect(entered).toBe(2);
    expect(lm.requests).toHaveLength(4);
  });

  it("in a conversation: the turn waits with nothing unfinished, and another handle's approval finishes it", async () => {
    const t = deskTools();
    const answer = ai("answer", { description: "Answer.", input: { question: z.string() }, tools: [t.refund] });
    const helper = tool("helper", { description: "h", input: { q: z.string() } }, async ({ q }) => answer(q));
    const desk = ai("desk", { description: "d", input: { q: z.string() }, tools: [helper] });
    const lm = helperThenRefund();
    const store = memoryStore();
    const err = await desk.conversation("c", { store, lm, approve: ["refund"] }).send("go").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Waiting);
    const [turn] = await desk.conversation("c", { store, lm }).turns();
    expect(turn!.state).toBe("waiting");
    expect(turn!.unfinished).toEqual([]);
    expect(await turn!.approve({ by: "maria" })).toBe("saw: saw: refunded 1 for A");
    expect(t.REFUNDS).toEqual([["A", 1]]);
    expect(lm.requests).toHaveLength(4);
  });
});
