/**
 * A resume in a process that cannot run the turn (no language model there)
 * is refused (`lm-missing`) before what the person said of its unfinished
 * tools is written: the resume failed, so nothing of it may stand (turn.ts:
 * "refused before a person's results are written: what this process cannot
 * go on with is left as it is"). Before, the results were written first and
 * the claim then refused: the person was told their resume failed, yet their
 * answer stood, and another person's resume with another answer (a rerun)
 * was refused (`turn-state`: "already answered by another resume"). So for
 * `turn.stream({ results })`.
 */
import { describe, expect, it } from "vitest";
import { memoryStore, } from "../../src/index.js";
import { faultyStore, scripted } from "../../src/testing/index.js";
import { payDesk, isToolDone } from "./fixtures/pay-desk.js";

/** A turn whose process lost its store just after pay ran: pay (invocation 1) is unfinished. */
async function interrupted() {
  const { d: desk, paid } = payDesk();
  const inner = memoryStore();
  const store = faultyStore(inner, { failOn: (call) => (call.records.some(isToolDone) ? "before-write" : undefined), crash: true });
  const lm = scripted([{ toolCalls: [{ name: "pay", input: { amount: 5 } }] }, "paid"]);
  await expect(desk.conversation("c", { store, lm }).send("pay 5")).rejects.toMatchObject({ code: "store-io" });
  return { desk, inner, paid };
}

describe("a resume with results, in a process with no language model", () => {
  it.each([
    ["turn.resume({ results })", (t: { resume(o: object): Promise<unknown> }) => t.resume({ results: { 1: "paid 5" } })],
    ["turn.stream({ results })", (t: { stream(o: object): PromiseLike<unknown> }) => Promise.resolve(t.stream({ results: { 1: "paid 5" } }))],
  ])("%s: lm-missing, nothing written; another person's rerun then goes on", async (_, act) => {
    const { desk, inner, paid } = await interrupted();
    const [bare] = await desk.conversation("c", { store: inner }).turns();
    expect(bare!.unfinished).toHaveLength(1);
    const length = (await inner.read("c")).length;
    expect(await act(bare as never).catch((e: { code?: string }) => e.code)).toBe("lm-missing");
    expect(await inner.read("c")).toHaveLength(length);
    const [turn] = await desk.conversation("c", { store: inner, lm: scripted(["paid again"]) }).turns();
    expect(turn!.state).toBe("interrupted");
    expect(turn!.unfinished).toHaveLength(1);
    expect(await turn!.resume({ rerun: [1] })).toBe("paid again");
    expect(paid).toEqual([5, 5]);
  });
});
