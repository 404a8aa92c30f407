/**
 * Where a lock proves a holder alive (a tab's Web Lock, a database
 * session's), a person's yes is written first, then the turn is claimed. A
 * turn abandoned by someone else in between is refused as it is:
 * `turn-state`, saying it was abandoned (as where both go in one append),
 * never `turn-claimed`, which says another process goes on with it.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, memoryStore, tool, Waiting, type Store } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { heldTurns } from "./fixtures/held-turns.js";

describe("approve() of a turn abandoned between the answer and the claim (a store with liveness)", () => {
  it("is refused with turn-state naming the abandon; nothing runs, and the handle reads it abandoned", async () => {
    const paid: number[] = [];
    const pay = tool("pay", { description: "Pay.", input: { amount: z.number() }, effects: "changes" }, ({ amount }) => (paid.push(amount), `paid ${amount}`));
    const desk = ai("desk", { description: "Pay.", input: { ask: z.string() }, tools: [pay] });
    const inner = memoryStore();
    let onAnswer: (() => Promise<void>) | null = null;
    const store: Store = {
      ...inner,
      liveness: heldTurns().liveness,
      async append(conversation, records, opts) {
        const length = await inner.append(conversation, records, opts);
        const answer = onAnswer;
        if (answer && records.some((r) => (r as { kind?: string }).kind === "approval")) {
          onAnswer = null;
          await answer(); // someone else abandons the turn now
        }
        return length;
      },
    };
    const lm = scripted([{ toolCalls: [{ name: "pay", input: { amount: 5 } }] }, "paid"]);
    expect(await desk.conversation("c", { store, lm, approve: "changes" }).send("pay 5").catch((e: unknown) => e)).toBeInstanceOf(Waiting);
    const [mine] = await desk.conversation("c", { store, lm }).turns();
    const [theirs] = await desk.conversation("c", { store: { ...inner, liveness: store.liveness } as Store, lm }).turns();
    onAnswer = () => theirs!.abandon();
    await expect(mine!.approve({ by: "maria" })).rejects.toMatchObject({ code: "turn-state", message: expect.stringMatching(/abandoned/) });
    expect(paid).toEqual([]);
    expect(mine!.state).toBe("abandoned");
  });
});
