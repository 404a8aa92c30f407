/**
 * A turn handle's `state`, `waiting` and `unfinished` are current after each
 * of its own actions, also one that was refused: a handle that read a turn
 * waiting, which another handle answered meanwhile, reads it as it is after
 * its own refused action.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, tool, Waiting } from "../../src/index.js";
import { memoryStore, scripted } from "../../src/testing/index.js";

/** A turn that waits for a person before paying, and two handles of it. */
async function waitingTwice() {
  const paid: number[] = [];
  const pay = tool("pay", { description: "Pay.", input: { amount: z.number() }, effects: "changes" }, ({ amount }) => (paid.push(amount), `paid ${amount}`));
  const desk = ai("desk", { description: "Pay.", input: { ask: z.string() }, tools: [pay] });
  const store = memoryStore();
  const lm = scripted([{ toolCalls: [{ name: "pay", input: { amount: 5 } }] }, "paid"]);
  const sent = await desk.conversation("c", { store, lm, approve: "changes" }).send("pay 5").catch((e: unknown) => e);
  expect(sent).toBeInstanceOf(Waiting);
  const [mine] = await desk.conversation("c", { store, lm }).turns();
  const [theirs] = await desk.conversation("c", { store, lm }).turns();
  expect([mine!.state, theirs!.state]).toEqual(["waiting", "waiting"]);
  return { mine: mine!, theirs: theirs!, paid };
}

describe("a handle is current after its own refused action", () => {
  it("abandon() of a turn another handle answered meanwhile: refused, and the handle reads it done", async () => {
    const { mine, theirs, paid } = await waitingTwice();
    expect(await theirs.approve({ by: "maria" })).toBe("paid");
    await expect(mine.abandon()).rejects.toMatchObject({ code: "turn-state" });
    expect([mine.state, mine.waiting, mine.value]).toEqual(["done", [], "paid"]);
    expect(paid).toEqual([5]);
  });

  it("approve() of a turn another handle abandoned meanwhile: refused, and the handle reads it abandoned", async () => {
    const { mine, theirs, paid } = await waitingTwice();
    await theirs.abandon();
    expect(theirs.state).toBe("abandoned");
    await expect(mine.approve({ by: "maria" })).rejects.toMatchObject({ code: "turn-state" });
    expect([mine.state, mine.waiting]).toEqual(["abandoned", []]);
    expect(paid).toEqual([]);
  });
});

describe("a handle is current after its stream", () => {
  it("stream() of a waiting turn, answered in the stream: once the stream resolves, the handle reads it done", async () => {
    const { mine, paid } = await waitingTwice();
    const s = mine.stream();
    const answered = s.approve({ by: "maria" }); // (its approval was shown where it was asked: not again here)
    for await (const e of s) void e;
    await answered;
    expect(await s).toBe("paid");
    expect([mine.state, mine.waiting, mine.value]).toEqual(["done", [], "paid"]);
    expect(paid).toEqual([5]);
  });

  it("stream() of a waiting turn, unanswered: the promise rejects with Waiting, the handle reads it waiting still", async () => {
    const { mine, paid } = await waitingTwice();
    const s = mine.stream();
    for await (const e of s) void e;
    const w = await Promise.resolve(s).catch((e: unknown) => e);
    expect(w).toBeInstanceOf(Waiting);
    expect([mine.state, mine.waiting.map((a) => a.name)]).toEqual(["waiting", ["pay"]]);
    expect(paid).toEqual([]);
  });
});
