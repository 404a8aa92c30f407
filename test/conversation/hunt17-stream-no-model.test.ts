/**
 * A person's answer that would let a turn go on in a process that cannot
 * run it (no language model there) is refused before it is written
 * (`lm-missing`), and the turn still waits (README: "one without is refused
 * (lm-missing) before the answer is written, and the turn still waits").
 * `turn.approve()` and `turn.deny()` did so; an answer given in the turn's
 * stream (`turn.stream()`, then `s.approve()` / `s.deny()`) was written
 * first: the yes was spent, the turn read `waiting` with nothing left to
 * answer (gone from every list of turns that wait, a companion's included),
 * and the stream then failed with `lm-missing`.
 */
import { describe, expect, it } from "vitest";
import { Waiting, type Store } from "../../src/index.js";
import { memoryStore, scripted } from "../../src/testing/index.js";
import { heldTurns } from "./fixtures/held-turns.js";
import { payDesk } from "./fixtures/pay-desk.js";

const desk = payDesk;

describe.each([
  ["a store without liveness", () => memoryStore()],
  ["a store with liveness", () => ({ ...memoryStore(), liveness: heldTurns().liveness }) as Store],
])("a waiting turn's stream, in a process with no language model (%s)", (_, makeStore) => {
  it.each([
    ["s.approve()", (s: { approve(o: object): Promise<void> }) => s.approve({ by: "maria" })],
    ["s.deny()", (s: { deny(r: string, o: object): Promise<void> }) => s.deny("no", { by: "maria" })],
  ])("%s is refused with lm-missing, nothing written; the turn still waits and goes on where a model is", async (_name, answer) => {
    const { d, paid } = desk();
    const store = makeStore();
    const lm = scripted([{ toolCalls: [{ name: "pay", input: { amount: 5 } }] }, "paid"]);
    expect(
      await d
        .conversation("c", { store, lm, approve: "changes" })
        .send("pay 5")
        .catch((e: unknown) => e),
    ).toBeInstanceOf(Waiting);
    const [bare] = await d.conversation("c", { store }).turns();
    const length = (await store.read("c")).length;
    const s = bare!.stream();
    expect(s.pending).toHaveLength(1);
    const thrown = await answer(s as never).catch((e: unknown) => e);
    expect(thrown).toMatchObject({ code: "lm-missing" });
    expect(await store.read("c")).toHaveLength(length);
    const [after] = await d.conversation("c", { store }).turns();
    expect(after!.state).toBe("waiting");
    expect(after!.waiting).toHaveLength(1);
    // where a model is, it goes on: the tool runs once, the first reply is not paid again
    const [there] = await d.conversation("c", { store, lm }).turns();
    expect(await there!.approve({ by: "maria" })).toBe("paid");
    expect(paid).toEqual([5]);
    expect(lm.requests).toHaveLength(2);
  });
});
