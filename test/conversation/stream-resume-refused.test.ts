/**
 * `turn.stream()` of an interrupted turn goes on with it here, once what a
 * person said is recorded and the turn is claimed. Refused before that (its
 * unfinished tool given no answer: `turn-unfinished`; another handle resumed
 * it first: `turn-claimed`), nothing of it was written and the turn is as it
 * was. The stream still said `state: running`, `failed` and `state: failed`,
 * as though the turn had failed here. Its loop now throws the refusal (as
 * its promise rejects with it) and shows no event; a stream that does go on
 * shows its events as before.
 */
import { describe, expect, it } from "vitest";
import { memoryStore, type TurnEvent } from "../../src/index.js";
import { faultyStore, scripted } from "../../src/testing/index.js";
import { isToolDone, payDesk } from "./fixtures/pay-desk.js";

/** A turn whose process lost its store just after pay ran: pay (invocation 1) is unfinished. */
async function interrupted() {
  const { d: desk, paid } = payDesk();
  const inner = memoryStore();
  const store = faultyStore(inner, { failOn: (call) => (call.records.some(isToolDone) ? "before-write" : undefined), crash: true });
  await expect(
    desk.conversation("c", { store, lm: scripted([{ toolCalls: [{ name: "pay", input: { amount: 5 } }] }, "paid"]) }).send("pay 5"),
  ).rejects.toMatchObject({ code: "store-io" });
  const open = () => desk.conversation("c", { store: inner, lm: scripted(["paid 5, done"]) });
  return { inner, paid, open };
}

async function iterate(s: AsyncIterable<TurnEvent>) {
  const events: TurnEvent[] = [];
  const thrown = await (async () => {
    for await (const e of s) events.push(e);
    return null;
  })().catch((e: unknown) => e);
  return { events, thrown };
}

describe("turn.stream() of an interrupted turn, refused before it goes on here", () => {
  it("its unfinished tool given no answer: the loop throws turn-unfinished, no event; the turn is as it was", async () => {
    const { inner, paid, open } = await interrupted();
    const [turn] = await open().turns();
    const length = (await inner.read("c")).length;
    const s = turn!.stream();
    const { events, thrown } = await iterate(s);
    expect(thrown).toMatchObject({ code: "turn-unfinished" });
    expect(events).toEqual([]);
    await expect(Promise.resolve(s)).rejects.toMatchObject({ code: "turn-unfinished" });
    expect(await inner.read("c")).toHaveLength(length);
    expect(turn!.state).toBe("interrupted");
    expect(paid).toEqual([5]);
  });

  it("another handle resumed it first: the loop throws turn-claimed, no event; the other goes on", async () => {
    const { paid, open } = await interrupted();
    const [first] = await open().turns();
    const [stale] = await open().turns();
    await expect(first!.resume({ results: { 1: "paid 5" } })).resolves.toBe("paid 5, done");
    const s = stale!.stream({ results: { 1: "paid 5" } });
    const { events, thrown } = await iterate(s);
    expect(thrown).toMatchObject({ code: expect.stringMatching(/^(turn-claimed|turn-state)$/) });
    expect(events).toEqual([]);
    await stale!.refresh();
    expect(stale!.state).toBe("done");
    expect(paid).toEqual([5]);
  });

  it("given its answer: the stream goes on here and shows its events, from seq 1", async () => {
    const { paid, open } = await interrupted();
    const [turn] = await open().turns();
    const s = turn!.stream({ results: { 1: "paid 5" } });
    const { events, thrown } = await iterate(s);
    expect(thrown).toBeNull();
    await expect(Promise.resolve(s)).resolves.toBe("paid 5, done");
    expect(events[0]).toMatchObject({ seq: 1, turn: turn!.id });
    expect(events.some((e) => e.type === "done")).toBe(true);
    expect(paid).toEqual([5]);
  });
});
