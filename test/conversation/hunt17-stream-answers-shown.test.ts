/**
 * A stream takes answers only for the approvals it shows (README: "A stream
 * takes answers only for the approvals it shows (`s.pending`)"), and the
 * first answer written stands. `s.approve()` with no id was recorded as a
 * yes to whatever the turn's records said waits when it was written, and
 * then told to the actor as a yes to everything the stream showed:
 * - another person who answered one of them meanwhile (a no, by its id) was
 *   overridden in this run: the tool they refused ran, while the records
 *   keep their no;
 * - a turn that went on elsewhere meanwhile and now waits for another call
 *   got a yes for that call, which this stream never showed: it ran.
 */
import { describe, expect, it } from "vitest";
import { memoryStore, Waiting } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { payDesk } from "./fixtures/pay-desk.js";

const desk = payDesk;
const call = (amount: number) => ({ name: "pay", input: { amount } });

describe("a stream's answer to all it shows", () => {
  it("one of them denied meanwhile by another person: that no stands, its tool does not run", async () => {
    const { d, paid } = desk();
    const store = memoryStore();
    const lm = scripted([{ toolCalls: [call(5), call(7)] }, "done"]);
    const chat = d.conversation("c", { store, lm, approve: "changes" });
    expect(await chat.send("pay 5 and 7").catch((e: unknown) => e)).toBeInstanceOf(Waiting);
    const [mine] = await chat.turns();
    const s = mine!.stream();
    expect(s.pending.map((a) => (a.input as { amount: number }).amount)).toEqual([5, 7]);
    const [theirs] = await d.conversation("c", { store, lm }).turns();
    const seven = theirs!.waiting.find((a) => (a.input as { amount: number }).amount === 7)!;
    expect(await theirs!.deny({ id: seven.id, reason: "not 7", by: "sam" }).catch((e: unknown) => e)).toBeInstanceOf(Waiting);
    await s.approve({ by: "maria" });
    expect(await s).toBe("done");
    expect(paid).toEqual([5]);
    const answers = (await store.read("c")).filter((r) => r.kind === "approval") as unknown as { verdict: string; by: string }[];
    const verdicts = answers.map((r) => `${r.by}:${r.verdict}`);
    expect(verdicts.sort()).toEqual(["maria:yes", "sam:no"]);
    expect(JSON.stringify(lm.requests[1]!.messages)).toContain("not 7");
  });

  it("the turn went on elsewhere and waits for another call: no yes for the call the stream never showed", async () => {
    const { d, paid } = desk();
    const store = memoryStore();
    const lm = scripted([{ toolCalls: [call(5)] }, { toolCalls: [call(7)] }, "done"]);
    const chat = d.conversation("c", { store, lm, approve: "changes" });
    expect(await chat.send("pay 5 then 7").catch((e: unknown) => e)).toBeInstanceOf(Waiting);
    const [mine] = await chat.turns();
    const s = mine!.stream();
    expect(s.pending.map((a) => (a.input as { amount: number }).amount)).toEqual([5]);
    // another person approves pay 5 elsewhere: it runs there, and the turn now waits for pay 7
    const [theirs] = await d.conversation("c", { store, lm }).turns();
    expect(await theirs!.approve({ by: "sam" }).catch((e: unknown) => e)).toBeInstanceOf(Waiting);
    expect(paid).toEqual([5]);
    const length = (await store.read("c")).length;
    const answered = await s.approve({ by: "maria" }).catch((e: unknown) => e);
    expect(answered).toMatchObject({ code: "approval-answered" });
    expect(await store.read("c")).toHaveLength(length);
    expect(paid).toEqual([5]);
    const [now] = await d.conversation("c", { store }).turns();
    expect(now!.state).toBe("waiting");
    expect(now!.waiting.map((a) => (a.input as { amount: number }).amount)).toEqual([7]);
  });
});
