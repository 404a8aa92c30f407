/**
 * Hunt 112: `turn.stream({ results, rerun })` on a turn that waits for a
 * person's approvals. `resume()` refuses such a turn (it waits: `Waiting`,
 * nothing written), but its stream took the options and dropped them
 * without a word: the person was told nothing of the result or rerun they
 * gave for a call that is not in doubt (it waits for their yes), while the
 * stream went on asking for the approval. Now refused (`input-invalid`)
 * as the stream is made, as its other options are, nothing written or run;
 * with no results or reruns the stream answers the wait as before.
 */
import { describe, expect, it } from "vitest";
import { memoryStore, type Turn } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { payDesk } from "./fixtures/pay-desk.js";

/** A turn that waits for a yes to pay 5 (invocation 1): nothing ran. */
async function waiting() {
  const { d: desk, paid } = payDesk();
  const store = memoryStore();
  const lm = scripted([{ toolCalls: [{ name: "pay", input: { amount: 5 } }] }, "paid"]);
  const chat = desk.conversation("c", { store, lm, approve: "changes" });
  await expect(chat.send({ ask: "pay 5" })).rejects.toMatchObject({ code: "turn-waiting" });
  const [turn] = await chat.turns();
  return { turn: turn as Turn<string>, store, paid, lm };
}

describe("turn.stream({ results, rerun }) on a turn that waits for approvals", () => {
  it.each([
    ["a result for the call that waits", { results: { 1: "paid 5" } }],
    ["a rerun of it", { rerun: [1] }],
    ["a result for a call the turn never made", { results: { 9: "done" } }],
  ])("%s: refused (input-invalid) as the stream is made, nothing written or run", async (_, options) => {
    const { turn, store, paid, lm } = await waiting();
    const length = (await store.read("c")).length;
    expect(() => turn.stream(options)).toThrow(expect.objectContaining({ code: "input-invalid", message: expect.stringMatching(/waits for/) }));
    expect(await store.read("c")).toHaveLength(length);
    expect([turn.state, paid, lm.requests.length]).toEqual(["waiting", [], 1]);
  });

  it("with none (control): the stream answers the wait, and the turn goes on", async () => {
    const { turn, paid } = await waiting();
    const s = turn.stream({ results: {}, rerun: [] });
    expect(s.pending.map((a) => a.invocation)).toEqual([1]); // (shown where they were asked, not again)
    const answered = s.approve({ by: "maria" });
    for await (const _ of s);
    await answered;
    expect(await s).toBe("paid");
    expect(paid).toEqual([5]);
  });
});
