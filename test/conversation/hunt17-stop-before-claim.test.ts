/**
 * A `stop` record ("stop from anywhere", DESIGN) written for an interrupted
 * turn while a person's resume is on its way — after the resume wrote what
 * they said of its unfinished tool, before it claimed the turn — stops it:
 * the claim finds the stop, nothing runs (a turn asked to stop is `stopped`
 * once nobody runs it). Before, the claim looked only for a newer claim or
 * an end: it claimed the stopped turn and reran its changing tool.
 */
import { describe, expect, it } from "vitest";
import { memoryStore, type Store } from "../../src/index.js";
import { makeRecord } from "../../src/records/make.js";
import { faultyStore, scripted } from "../../src/testing/index.js";
import { payDesk, isToolDone } from "./fixtures/pay-desk.js";

describe("a stop written between a resume's answers and its claim", () => {
  it("the resume does not claim the turn: the rerun tool does not run, the turn reads stopped", async () => {
    const { d: desk, paid } = payDesk();
    const inner = memoryStore();
    const crashing = faultyStore(inner, { failOn: (call) => (call.records.some(isToolDone) ? "before-write" : undefined), crash: true });
    const lm = scripted([{ toolCalls: [{ name: "pay", input: { amount: 5 } }] }, "paid", "paid"]);
    await expect(desk.conversation("c", { store: crashing, lm }).send("pay 5")).rejects.toMatchObject({ code: "store-io" });
    expect(paid).toEqual([5]);
    // another writer stops the turn right after the person's rerun is written
    const store: Store = {
      ...inner,
      append: async (c, records, opts) => {
        const length = await inner.append(c, records, opts);
        const rerun = records.find((r) => (r as { kind?: string; state?: string }).kind === "tool" && (r as { state?: string }).state === "rerun");
        if (rerun) await inner.append(c, [makeRecord("stop", { turn: (rerun as { turn: string }).turn }, Date.now())], { expect: length });
        return length; // (its own append's length, as a store answers when another writer appends right after)
      },
    };
    const [turn] = await desk.conversation("c", { store, lm }).turns();
    expect(turn!.unfinished).toHaveLength(1);
    const resumed = await turn!.resume({ rerun: [1] }).catch((e: unknown) => e);
    expect(resumed).toMatchObject({ code: expect.stringMatching(/^(turn-state|turn-aborted)$/) });
    expect(paid).toEqual([5]);
    const [after] = await desk.conversation("c", { store: inner }).turns();
    expect(after!.state).toBe("stopped");
  });
});
