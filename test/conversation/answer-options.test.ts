/**
 * What a person's answer is given with is checked before anything is
 * written or run: options that are not an object (null), a `by`, `reason`
 * or `id` that is not a string, are refused with `input-invalid` naming the
 * option, never a TypeError or a `record-invalid` (the code of a bug of
 * ours); the turn still waits, and a right answer afterwards goes on.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, tool, Waiting } from "../../src/index.js";
import { heldTurns } from "./fixtures/held-turns.js";
import { memoryStore, scripted } from "../../src/testing/index.js";
import type { Store } from "../../src/index.js";

async function waitingTurn(store: Store) {
  const paid: number[] = [];
  const pay = tool("pay", { description: "Pay.", input: { amount: z.number() }, effects: "changes" }, ({ amount }) => (paid.push(amount), `paid ${amount}`));
  const desk = ai("desk", { description: "Pay.", input: { ask: z.string() }, tools: [pay] });
  const lm = scripted([{ toolCalls: [{ name: "pay", input: { amount: 5 } }] }, "paid"]);
  expect(await desk.conversation("c", { store, lm, approve: "changes" }).send("pay 5").catch((e: unknown) => e)).toBeInstanceOf(Waiting);
  const [turn] = await desk.conversation("c", { store, lm }).turns();
  return { turn: turn!, paid, lm };
}

type Act = (turn: Awaited<ReturnType<typeof waitingTurn>>["turn"]) => Promise<unknown>;
const wrong: [string, Act, RegExp][] = [
  ["approve(null)", (t) => t.approve(null as never), /approve/],
  ["deny(null)", (t) => t.deny(null as never), /deny/],
  ["resume(null)", (t) => t.resume(null as never), /resume/],
  ["approve({ by: 42 })", (t) => t.approve({ by: 42 as never }), /by/],
  ["deny({ reason: 42 })", (t) => t.deny({ reason: 42 as never }), /reason/],
  ["deny({ by: {} })", (t) => t.deny({ reason: "no", by: {} as never }), /by/],
  ["approve({ id: 1 })", (t) => t.approve({ id: 1 as never }), /id/],
  ["stream(null)", async (t) => t.stream(null as never), /stream/],
];

describe.each([
  ["a store without liveness", () => memoryStore()],
  ["a store with liveness", () => ({ ...memoryStore(), liveness: heldTurns().liveness }) as Store],
])("answers given wrong (%s)", (_, makeStore) => {
  it.each(wrong)("%s: input-invalid, nothing written, the turn still waits and can be answered", async (_name, act, names) => {
    const store = makeStore();
    const { turn, paid, lm } = await waitingTurn(store);
    const length = (await store.read("c")).length;
    let thrown: unknown;
    try {
      await act(turn);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toMatchObject({ code: "input-invalid", message: expect.stringMatching(names) });
    expect(await store.read("c")).toHaveLength(length);
    expect(lm.requests).toHaveLength(1);
    expect(turn.state).toBe("waiting");
    expect(await turn.approve({ by: "maria" })).toBe("paid");
    expect(paid).toEqual([5]);
  });
});
