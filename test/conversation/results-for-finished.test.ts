/**
 * `resume({ results, rerun })` names tool calls by invocation or site. A
 * result given for a call the journal holds as done (it finished, its
 * output recorded) was dropped without a word: the person was told nothing,
 * and the model was shown what the journal says, not what they gave. A
 * rerun of a finished call was dropped too. Now a different result, or a
 * rerun, of a finished call is refused (`turn-state`, naming its recorded
 * result), nothing written; the same result as recorded is taken as said.
 */
import { describe, expect, it } from "vitest";
import { memoryStore } from "../../src/index.js";
import { faultyStore, scripted } from "../../src/testing/index.js";
import { isToolDone, payDesk } from "./fixtures/pay-desk.js";

/** pay 5 (invocation 1) finished and recorded; pay 7 (invocation 2) ran, its end lost with the process's store. */
async function interrupted() {
  const { d: desk, paid } = payDesk();
  const inner = memoryStore();
  let dones = 0;
  const store = faultyStore(inner, {
    failOn: (call) => (call.records.some(isToolDone) && ++dones === 2 ? "before-write" : undefined),
    crash: true,
  });
  const lm = scripted([{ toolCalls: [{ name: "pay", input: { amount: 5 } }] }, { toolCalls: [{ name: "pay", input: { amount: 7 } }] }, "paid"]);
  await expect(desk.conversation("c", { store, lm }).send("pay 5 then 7")).rejects.toMatchObject({ code: "store-io" });
  const next = scripted([(req) => `told: ${JSON.stringify(req.messages.at(-1)?.content)}`]);
  const [turn] = await desk.conversation("c", { store: inner, lm: next }).turns();
  expect(turn!.unfinished.map((u) => [u.name, u.invocation])).toEqual([["pay", 2]]);
  return { turn: turn!, inner, paid, next };
}

describe("resume naming a call that finished", () => {
  it("with another result than the one recorded: refused (turn-state, naming it), nothing written", async () => {
    const { turn, inner, paid, next } = await interrupted();
    const length = (await inner.read("c")).length;
    await expect(turn.resume({ results: { 1: "refunded", 2: "paid 7" } })).rejects.toMatchObject({
      code: "turn-state",
      message: expect.stringMatching(/pay \(invocation 1\) finished.*paid 5/),
    });
    expect(await inner.read("c")).toHaveLength(length);
    expect([turn.state, next.requests.length, paid]).toEqual(["interrupted", 0, [5, 7]]);
  });

  it("with a rerun: refused (turn-state), nothing written, nothing run", async () => {
    const { turn, inner, paid, next } = await interrupted();
    const length = (await inner.read("c")).length;
    await expect(turn.resume({ rerun: [1], results: { 2: "paid 7" } })).rejects.toMatchObject({
      code: "turn-state",
      message: expect.stringMatching(/pay \(invocation 1\) finished/),
    });
    await expect(Promise.resolve(turn.stream({ rerun: ["desk#1:1", 2] }))).rejects.toMatchObject({ code: "turn-state" });
    expect(await inner.read("c")).toHaveLength(length);
    expect([next.requests.length, paid]).toEqual([0, [5, 7]]);
  });

  it("with the result recorded: taken as said, the turn goes on", async () => {
    const { turn, paid, next } = await interrupted();
    await expect(turn.resume({ results: { 1: "paid 5", 2: "paid 7" } })).resolves.toMatch(/paid 7/);
    expect([turn.state, next.requests.length, paid]).toEqual(["done", 1, [5, 7]]);
  });
});
