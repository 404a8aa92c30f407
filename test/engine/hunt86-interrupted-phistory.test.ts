/**
 * phistory() after an interrupted turn resumed in the same process: the call that was interrupted is listed with
 * the tokens it paid; resumed, its replayed reply was listed again with those tokens, as if paid twice.
 */
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, clearHistory, memoryStore, phistory, tool } from "../../src/index.js";
import { faultyStore, scripted } from "../../src/testing/index.js";

afterEach(clearHistory);

describe("phistory and an interrupted turn resumed", () => {
  it("a changing tool's started record refused (store-io), the turn resumed here: each reply paid is counted once", async () => {
    clearHistory();
    const refunds: number[] = [];
    const refund = tool("refund", { description: "Refund.", input: { amount: z.number() }, effects: "changes" }, ({ amount }) => {
      refunds.push(amount);
      return "refunded";
    });
    const desk = ai("desk", { description: "Help.", input: { q: z.string() }, tools: [refund] });
    const isStarted = (r: object): boolean => (r as { kind?: unknown }).kind === "tool" && (r as { state?: unknown }).state === "started";
    let failed = 0;
    const store = faultyStore(memoryStore(), { failOn: (call) => (call.records.some(isStarted) && failed++ === 0 ? "before-write" : undefined) });
    const lm = scripted([
      { toolCalls: [{ name: "refund", input: { amount: 39 } }], usage: { inputTokens: 100, outputTokens: 7 } },
      { text: "<result>\nrefunded\n</result>", usage: { inputTokens: 300, outputTokens: 11 } },
    ]);
    await expect(desk.conversation("j", { store, lm }).send("go")).rejects.toMatchObject({ code: "store-io" });
    const [turn] = await desk.conversation("j", { store, lm }).turns();
    expect(turn!.state).toBe("interrupted");
    expect(await turn!.resume()).toBe("refunded");
    // the first reply was paid once (before the store failed), its record replayed on resume; then the answer
    expect(lm.requests).toHaveLength(2);
    expect(refunds).toEqual([39]);
    const all = phistory(Number.POSITIVE_INFINITY);
    // the interrupted call, with what it paid; then the resumed one, with only what it paid besides
    expect(all.match(/\] desk → /g) ?? []).toHaveLength(2);
    expect(all).toContain("Failed: store-io");
    const tokens = [...all.matchAll(/tokens in (\d+), out (\d+)/g)].map((m) => [Number(m[1]), Number(m[2])]);
    expect(tokens).toEqual([
      [100, 7],
      [300, 11],
    ]);
  });
});
