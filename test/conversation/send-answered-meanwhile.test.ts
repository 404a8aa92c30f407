/**
 * A plain `send` whose turn stops for a person tells its caller with a
 * `Waiting` read afresh from the records. When another process answers the
 * turn in between (its approval written, the turn run to its answer there),
 * the records no longer show anything to answer: the send settled with a
 * `Waiting` listing no approvals, which nobody can answer. It settles as a
 * stream does (`waitingOrRecorded`): with the answer the records keep. So
 * does a person's `approve()` here whose turn waits again (for its next
 * changing tool) and is answered there at once.
 */
import { describe, expect, it } from "vitest";
import { memoryStore, type Store, Waiting } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { payDesk } from "./fixtures/pay-desk.js";

const isWaitingRecord = (r: object): boolean => (r as { kind?: string }).kind === "waiting";

describe("a send whose turn another process answers as it is told it waits", () => {
  it("resolves to the answer the records keep, not an empty Waiting", async () => {
    const { d: desk, paid } = payDesk();
    const inner = memoryStore();
    const there = answeredThereOn(inner, 1, () => desk.conversation("c", { store: inner, lm: scripted(["paid there"]) }));
    const lm = scripted([{ toolCalls: [{ name: "pay", input: { amount: 5 } }] }, "never asked"]);
    const sent = await desk
      .conversation("c", { store: there.store, lm, approve: ["pay"] })
      .send("pay 5")
      .catch((e: unknown) => e);
    expect(await there.answered()).toBe("paid there");
    expect(sent).toBe("paid there");
    expect(paid).toEqual([5]);
    expect(lm.requests).toHaveLength(1);
  });

  it("an approve() here whose turn waits again, answered there at once: resolves to the answer too", async () => {
    const { d: desk, paid } = payDesk();
    const inner = memoryStore();
    const there = answeredThereOn(inner, 2, () => desk.conversation("c", { store: inner, lm: scripted(["paid there"]) }));
    const lm = scripted([
      { toolCalls: [{ name: "pay", input: { amount: 5 } }] },
      { toolCalls: [{ name: "pay", input: { amount: 7 } }] },
      "never asked",
    ]);
    const chat = desk.conversation("c", { store: there.store, lm, approve: ["pay"] });
    const waiting = await chat.send("pay 5, then 7").catch((e: unknown) => e);
    expect(waiting).toBeInstanceOf(Waiting);
    const approved = await (waiting as Waiting).turn.approve({ by: "sam" }).catch((e: unknown) => e);
    expect(await there.answered()).toBe("paid there");
    expect(approved).toBe("paid there");
    expect(paid).toEqual([5, 7]);
    expect(lm.requests).toHaveLength(2);
  });
});

/**
 * `inner` seen by the process under test: once its `nth` waiting record is written, its next read first has
 * another process (`elsewhere`, on `inner` itself) approve the waiting turn and run it to its answer.
 */
function answeredThereOn(inner: Store, nth: number, elsewhere: () => { turns(): Promise<{ approve(o: { by: string }): Promise<unknown> }[]> }) {
  let waits = 0;
  let answered: Promise<unknown> | undefined;
  const store: Store = {
    ...inner,
    append: async (c, records, opts) => {
      const length = await inner.append(c, records, opts);
      waits += records.filter(isWaitingRecord).length;
      return length;
    },
    read: async (c, after) => {
      if (waits === nth && answered === undefined) {
        const [turn] = await elsewhere().turns();
        answered = turn!.approve({ by: "maria" });
        await answered;
      }
      return inner.read(c, after);
    },
  };
  return { store, answered: () => answered ?? Promise.reject(new Error("nobody answered there")) };
}
