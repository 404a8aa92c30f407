/**
 * A conversation's time is its clock's: records, streamed events (answers
 * given here included), `phistory()`'s stamps and the conversations its
 * delegates open all read the clock the conversation was given.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, clearHistory, delegate, phistory, tool } from "../../src/index.js";
import { fakeClock, memoryStore, scripted } from "../../src/testing/index.js";

const START = Date.UTC(2031, 4, 6, 7, 8, 9);
const AT = new Date(START).toISOString();

describe("a conversation's clock", () => {
  it("stamps its records, its stream's events (an approval answered here too) and phistory()", async () => {
    clearHistory();
    const clock = fakeClock(START);
    const store = memoryStore();
    const pay = tool("pay", { description: "Pay.", input: { amount: z.number() }, effects: "changes" }, ({ amount }) => `paid ${amount}`);
    const desk = ai("desk", { description: "Pay.", input: { ask: z.string() }, tools: [pay] });
    const lm = scripted([{ toolCalls: [{ name: "pay", input: { amount: 5 } }] }, "done"]);
    const s = desk.conversation("c", { store, clock, lm, approve: "changes" }).stream("go");
    const seen: { type: string; at: string }[] = [];
    for await (const e of s) {
      seen.push({ type: e.type, at: e.at });
      if (e.type === "approval") void s.approve({ id: e.approval.id, by: "maria" });
    }
    expect(await s).toBe("done");
    expect(seen.map((e) => e.type)).toContain("approved");
    expect(seen.filter((e) => e.at !== AT)).toEqual([]);
    const records = await store.read("c");
    expect(records.length).toBeGreaterThan(3);
    expect(records.filter((r) => r.at !== AT).map((r) => r.kind)).toEqual([]);
    expect(phistory()).toContain(`[${AT.slice(0, 19)}] desk`);
  });

  it("is the clock of the conversations its delegates open", async () => {
    const clock = fakeClock(START);
    const store = memoryStore();
    const billing = ai("billing", { description: "Billing.", input: { question: z.string() } });
    const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [delegate(billing)] });
    const lm = scripted([{ toolCalls: [{ name: "billing", input: { question: "last invoice?" } }] }, "invoice 7", "billing says invoice 7"]);
    expect(await desk.conversation("sam", { store, clock, lm }).send("What did billing say?")).toBe("billing says invoice 7");
    const delegated = await store.read("sam.billing");
    expect(delegated.length).toBeGreaterThan(2);
    expect(delegated.filter((r) => r.at !== AT).map((r) => r.kind)).toEqual([]);
  });
});
