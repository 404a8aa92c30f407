/**
 * A person may name an unfinished call by its invocation (`1`) or by its
 * site (`"desk#1:1"`). Given both, with two different results, one of them
 * was taken and the other silently dropped: the person said two things of one
 * call and was told nothing. Refused (`input-invalid`), nothing written; the
 * same result under both names is one answer and goes on.
 */
import { describe, expect, it } from "vitest";
import { memoryStore } from "../../src/index.js";
import { faultyStore, scripted } from "../../src/testing/index.js";
import { payDesk, isToolDone } from "./fixtures/pay-desk.js";

/** A turn whose process lost its store just after pay ran: pay (invocation 1, site desk#1) is unfinished. */
async function interrupted() {
  const { d: desk, paid } = payDesk();
  const inner = memoryStore();
  const store = faultyStore(inner, { failOn: (call) => (call.records.some(isToolDone) ? "before-write" : undefined), crash: true });
  const lm = scripted([{ toolCalls: [{ name: "pay", input: { amount: 5 } }] }, "paid"]);
  await expect(desk.conversation("c", { store, lm }).send("pay 5")).rejects.toMatchObject({ code: "store-io" });
  const next = scripted([(req) => `told: ${JSON.stringify(req.messages.at(-1)?.content)}`]);
  const [turn] = await desk.conversation("c", { store: inner, lm: next }).turns();
  expect(turn!.unfinished.map((u) => [u.name, u.invocation, u.site])).toEqual([["pay", 1, "desk#1"]]);
  return { turn: turn!, inner, paid, next };
}

describe("resume({ results }) naming one call twice", () => {
  it("two different results under its invocation and its site: refused (input-invalid), nothing written", async () => {
    const { turn, inner, paid, next } = await interrupted();
    const length = (await inner.read("c")).length;
    await expect(turn.resume({ results: { 1: "paid 5", "desk#1:1": "failed: card declined" } })).rejects.toMatchObject({
      code: "input-invalid",
      message: expect.stringMatching(/pay.*invocation 1.*two/),
    });
    await expect(Promise.resolve(turn.stream({ results: { "desk#1:1": { ok: true }, 1: { ok: false } } }))).rejects.toMatchObject({
      code: "input-invalid",
    });
    expect(await inner.read("c")).toHaveLength(length);
    expect([turn.state, turn.unfinished.length, next.requests.length, paid]).toEqual(["interrupted", 1, 0, [5]]);
  });

  it("the same result under both names is one answer: the turn goes on with it", async () => {
    const { turn, paid, next } = await interrupted();
    const answer = await turn.resume({ results: { 1: { ok: true, id: 7 }, "desk#1:1": { id: 7, ok: true } } });
    expect(answer).toMatch(/ok/);
    expect([turn.state, paid, next.requests.length]).toEqual(["done", [5], 1]);
  });
});
