/**
 * Hunt 68: two people answer the two approvals of one turn, each on a handle
 * of their own, by id. The first one's answer leaves the other approval
 * waiting, so its `approve({ id })` tells it so; but it read the turn again
 * only after the second person had answered the rest and run the turn to its
 * end: it rejected with a `Waiting` (`turn-waiting`) that listed nothing to
 * answer ("waits for a person's answer ()") for a turn that was done. It now
 * settles as the records say: the turn's answer once it ended done there.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, memoryStore, tool, Waiting, type Store } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

describe("an answer to one of two approvals, the other answered meanwhile elsewhere", () => {
  it("resolves to the turn's answer once the other person's run ended done; never a Waiting with nothing to answer", async () => {
    const paid: number[] = [];
    const pay = tool(
      "pay",
      { description: "Pay.", input: { amount: z.number() }, effects: "changes" },
      ({ amount }) => (paid.push(amount), `paid ${amount}`),
    );
    const d = ai("desk", { description: "Pay.", input: { ask: z.string() }, tools: [pay] });
    const store = memoryStore();
    const lm = scripted([
      {
        toolCalls: [
          { name: "pay", input: { amount: 5 } },
          { name: "pay", input: { amount: 6 } },
        ],
      },
      "paid both",
    ]);
    await expect(d.conversation("c", { store, lm, approve: "changes" }).send("pay")).rejects.toBeInstanceOf(Waiting);
    // ana's store: once her answer is written, her next read waits until kim has answered and run the turn
    let written!: () => void;
    const anaWrote = new Promise<void>((r) => (written = r));
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let gated = false;
    const anas: Store = {
      append: async (c, records, opts) => {
        const n = await store.append(c, records, opts);
        if (records.some((r) => (r as { kind?: string }).kind === "approval")) {
          gated = true;
          written();
        }
        return n;
      },
      read: async (c, after) => {
        if (gated) await gate;
        return store.read(c, after);
      },
    };
    const [ana] = await d.conversation("c", { store: anas, lm }).turns();
    const [kim] = await d.conversation("c", { store, lm }).turns();
    const [first, second] = ana!.waiting.map((w) => w.id);
    const anaAnswer = ana!.approve({ id: first!, by: "ana" }).then(
      (value) => ({ value }),
      (e: unknown) => ({ code: (e as { code?: unknown }).code, approvals: e instanceof Waiting ? e.approvals.length : null }),
    );
    await anaWrote;
    expect(await kim!.approve({ id: second!, by: "kim" })).toBe("paid both");
    release();
    expect(await anaAnswer).toEqual({ value: "paid both" });
    expect(ana!.state).toBe("done");
    expect(paid).toEqual([5, 6]);
    expect(lm.requests).toHaveLength(2);
  });
});
