/**
 * phistory() after a resumed turn: a call the resumed run replays from the journal (its replies recorded,
 * nothing paid again) was remembered a second time, its tokens listed as if paid again. Each model call
 * paid must appear once, with its usage once.
 */
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { Waiting, ai, clearHistory, phistory, program, tool } from "../../src/index.js";
import { memoryStore, scripted } from "../../src/testing/index.js";

afterEach(clearHistory);

const blocks = (text: string, name: string): number => (text.match(new RegExp(`\\] ${name} → `, "g")) ?? []).length;

describe("phistory and a resumed turn", () => {
  it("a program's first AI call, answered before the turn waited, is listed once after the approval", async () => {
    clearHistory();
    const REFUNDS: string[] = [];
    const refund = tool("refund", { description: "Refund.", input: { order_id: z.string() }, effects: "changes" }, ({ order_id }) => {
      REFUNDS.push(order_id);
      return `refunded ${order_id}`;
    });
    const triage = ai("triage", { description: "Say which order.", input: { message: z.string() } });
    const act = ai("act", { description: "Act on the order.", input: { order: z.string() }, tools: [refund] });
    const support = program("support", { description: "Route.", input: { message: z.string() } }, async ({ message }) => act(await triage(message)));
    const store = memoryStore();
    const lm = scripted([
      { text: "<result>\nA-1\n</result>", usage: { inputTokens: 100, outputTokens: 7 } },
      { toolCalls: [{ name: "refund", input: { order_id: "A-1" } }], usage: { inputTokens: 200, outputTokens: 9 } },
      { text: "<result>\nrefunded\n</result>", usage: { inputTokens: 300, outputTokens: 11 } },
    ]);
    await expect(support.conversation("sam", { store, lm, approve: "changes" }).send("Refund A-1.")).rejects.toBeInstanceOf(Waiting);
    expect(blocks(phistory(Number.POSITIVE_INFINITY), "triage")).toBe(1);
    const turn = (await support.conversation("sam", { store, lm }).turns()).at(-1)!;
    expect(await turn.approve({ by: "maria" })).toBe("refunded");
    expect(lm.requests).toHaveLength(3);
    expect(REFUNDS).toEqual(["A-1"]);
    const all = phistory(Number.POSITIVE_INFINITY);
    // triage was paid once (before the wait): listed once, its 100 tokens once
    expect(blocks(all, "triage")).toBe(1);
    expect(blocks(all, "act")).toBe(1);
    expect(all.match(/tokens in 100, out 7/g) ?? []).toHaveLength(1);
    // act's first reply, paid before the wait and shown by no entry then, is counted in its one entry, with its last
    expect(all).toContain("tokens in 500, out 20");
  });
});
