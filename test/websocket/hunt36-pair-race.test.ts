/**
 * A turn that waits for two approvals at once, answered one each by two
 * companions at the same time. Exactly one of the two answers runs the turn
 * on (the one that left nothing waiting); the other's outcome says how the
 * turn is now. It said `waiting` with no approvals (its promise rejecting
 * `turn-waiting`, "waits for a person's answer") when the other answer got
 * in between its write and its read: nothing waited, the turn ran.
 */
import { describe, expect, it } from "vitest";
import { connect, serve } from "../../adapters/websocket/index.js";
import { memoryStore } from "../../src/testing/index.js";
import { keeper, until } from "./fixtures.js";
import { holdingStore, pairDesk } from "./fixtures/hunt36-kit.js";

const keep = keeper();

describe("two approvals of one turn, answered by two companions at once", () => {
  it("the first answer, told after the second ran the turn on, is not told the turn waits with nothing to answer", async () => {
    const inner = memoryStore();
    const d = await pairDesk(["sam"], { store: inner });
    // companion a's answer is written at once, but a hears of the write only after b's answer ran the turn
    const held = holdingStore(inner, (json) => json.includes('"by":"a"'));
    const server = keep(await serve({ store: held.store, programs: [d.fn], port: 0 }));
    const a = keep(await connect(server.url));
    const b = keep(await connect(server.url));
    const [w] = await a.waiting();
    const [refund, email] = w!.approvals;
    const first = a.approve({ conversation: "sam", turn: w!.turn, id: refund!.id, by: "a" });
    await held.reached;
    const second = await b.approve({ conversation: "sam", turn: w!.turn, id: email!.id, by: "b" }).outcome;
    expect(second.state).toBe("done");
    expect(d.RAN.sort()).toEqual(["email Refunded.", "refund A-1042"]);
    held.release();
    const outcome = await first.outcome;
    // never "waiting" with nothing to answer
    if (outcome.state === "waiting") expect(outcome.approvals).not.toEqual([]);
    expect(outcome).toMatchObject({ conversation: "sam", turn: w!.turn, state: "done", value: "Done." });
    await expect(Promise.resolve(first)).resolves.toBe("Done.");
    await until(async () => (await a.waiting()).length === 0);
    expect(d.RAN).toHaveLength(2); // each tool ran once
  });

  it("one after the other: the first is told the turn waits for the other approval; the second runs it on", async () => {
    const d = await pairDesk(["sam"]);
    const server = keep(await serve({ store: d.store, programs: [d.fn], port: 0 }));
    const a = keep(await connect(server.url));
    const [w] = await a.waiting();
    const [refund, email] = w!.approvals;
    const first = a.approve({ conversation: "sam", turn: w!.turn, id: refund!.id, by: "a" });
    expect(await first.outcome).toMatchObject({ state: "waiting", approvals: [{ id: email!.id }] });
    await expect(Promise.resolve(first)).rejects.toMatchObject({ code: "turn-waiting", approvals: [{ id: email!.id }] });
    expect(d.RAN).toEqual([]);
    expect(await a.deny({ conversation: "sam", turn: w!.turn, id: email!.id, by: "a", reason: "no" })).toBe("Done.");
    expect(d.RAN).toEqual(["refund A-1042"]);
  });
});
