/**
 * One handle (or two handles of one turn) asked twice at once in one
 * process: exactly one action goes on, the other is refused with a stable
 * code, the changing tool runs once, no reply is paid twice, and the handle
 * reads the turn as its records say once both settled.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, memoryStore, tool, Waiting, type Turn } from "../../src/index.js";
import { faultyStore, scripted } from "../../src/testing/index.js";

function desk() {
  const paid: number[] = [];
  const pay = tool("pay", { description: "Pay.", input: { amount: z.number() }, effects: "changes" }, async ({ amount }) => {
    await new Promise((r) => setTimeout(r, 10)); // (long enough for the other action to meet it running)
    paid.push(amount);
    return `paid ${amount}`;
  });
  return { d: ai("desk", { description: "Pay.", input: { ask: z.string() }, tools: [pay] }), paid };
}

const lmOf = () => scripted([{ toolCalls: [{ name: "pay", input: { amount: 5 } }] }, "paid"]);
const codeOf = (r: PromiseSettledResult<unknown>): unknown => (r.status === "fulfilled" ? r.value : (r.reason as { code?: string }).code);

async function waiting() {
  const { d, paid } = desk();
  const store = memoryStore();
  const lm = lmOf();
  await expect(d.conversation("c", { store, lm, approve: "changes" }).send("pay 5")).rejects.toBeInstanceOf(Waiting);
  const [turn] = await d.conversation("c", { store, lm }).turns();
  return { d, store, lm, paid, turn: turn! };
}

/** A turn whose process lost its store just after pay ran: pay is unfinished. */
async function interrupted() {
  const { d, paid } = desk();
  const store = memoryStore();
  const isDone = (r: object) => (r as { kind?: string; state?: string }).kind === "tool" && (r as { state?: string }).state === "done";
  const faulty = faultyStore(store, { failOn: (call) => (call.records.some(isDone) ? "before-write" : undefined), crash: true });
  await expect(d.conversation("c", { store: faulty, lm: lmOf() }).send("pay 5")).rejects.toMatchObject({ code: "store-io" });
  const lm = scripted(["paid"]);
  const [turn] = await d.conversation("c", { store, lm }).turns();
  expect(turn!.state).toBe("interrupted");
  return { d, store, lm, paid, turn: turn! };
}

async function recorded(d: ReturnType<typeof desk>["d"], store: ReturnType<typeof memoryStore>, turn: Turn<unknown>): Promise<string> {
  const [now] = await d.conversation("c", { store }).turns();
  expect(turn.state).toBe(now!.state); // the handle is current once both actions settled
  return now!.state;
}

describe("two actions at once on one waiting turn", () => {
  it("approve() twice on one handle: one goes on, the other is approval-answered; pay once, one reply paid", async () => {
    const { d, store, lm, paid, turn } = await waiting();
    const both = await Promise.allSettled([turn.approve(), turn.approve()]);
    expect(both.map(codeOf).sort()).toEqual(["approval-answered", "paid"]);
    expect([paid, lm.requests.length]).toEqual([[5], 2]);
    expect(await recorded(d, store, turn)).toBe("done");
  });

  it("approve() and abandon() on one handle: one of them stands, and pay ran exactly when the approval did", async () => {
    const { d, store, lm, paid, turn } = await waiting();
    const [approved, abandoned] = await Promise.allSettled([turn.approve(), turn.abandon()]);
    const state = await recorded(d, store, turn);
    if (state === "done") {
      expect([codeOf(approved), codeOf(abandoned), paid, lm.requests.length]).toEqual(["paid", "turn-claimed", [5], 2]);
    } else {
      expect([state, codeOf(approved), abandoned.status, paid, lm.requests.length]).toEqual(["abandoned", "turn-state", "fulfilled", [], 1]);
    }
  });

  it("approve() and deny() on two handles: one answer stands; the other is approval-answered", async () => {
    const { d, store, lm, paid, turn } = await waiting();
    const [other] = await d.conversation("c", { store, lm }).turns();
    const both = await Promise.allSettled([turn.approve(), other!.deny({ reason: "no" })]);
    expect(both.map(codeOf).filter((c) => c === "approval-answered")).toHaveLength(1);
    expect(paid.length <= 1 && lm.requests.length === 2).toBe(true);
    expect(await recorded(d, store, turn)).toBe("done");
  });

  it("two streams of one handle, each answering: one goes on; the other's answer is approval-answered and its promise turn-claimed", async () => {
    const { d, store, lm, paid, turn } = await waiting();
    const streams = [turn.stream(), turn.stream()];
    const answers = streams.map((s) => s.approve());
    await Promise.all(
      streams.map(async (s) => {
        for await (const e of s) void e;
      }),
    );
    const told = await Promise.allSettled([...answers, ...streams.map((s) => Promise.resolve(s))]);
    expect(told.slice(0, 2).map(codeOf).sort()).toEqual(["approval-answered", undefined]);
    expect(told.slice(2).map(codeOf).sort()).toEqual(["paid", "turn-claimed"]);
    expect([paid, lm.requests.length]).toEqual([[5], 2]);
    expect(await recorded(d, store, turn)).toBe("done");
  });
});

describe("two actions at once on one interrupted turn", () => {
  it("resume({ rerun }) twice on one handle: one goes on, the other is turn-claimed; pay runs once more, as asked", async () => {
    const { d, store, lm, paid, turn } = await interrupted();
    expect(paid).toEqual([5]);
    const both = await Promise.allSettled([turn.resume({ rerun: [1] }), turn.resume({ rerun: [1] })]);
    expect(both.map(codeOf).sort()).toEqual(["paid", "turn-claimed"]);
    expect([paid, lm.requests.length]).toEqual([[5, 5], 1]);
    expect(await recorded(d, store, turn)).toBe("done");
  });

  it("resume({ results }) and abandon() on one handle: one stands; pay never runs again", async () => {
    const { d, store, paid, turn } = await interrupted();
    const [resumed, abandoned] = await Promise.allSettled([turn.resume({ results: { 1: "paid 5" } }), turn.abandon()]);
    const state = await recorded(d, store, turn);
    expect(state === "done" ? [codeOf(resumed), codeOf(abandoned)] : [state, codeOf(resumed)]).toEqual(
      state === "done" ? ["paid", "turn-claimed"] : ["abandoned", "turn-state"],
    );
    expect(paid).toEqual([5]);
  });
});

describe("sends at once in one process", () => {
  it("the same key twice at once: one turn, both get its answer, pay once, one reply paid per step", async () => {
    const { d, paid } = desk();
    const store = memoryStore();
    const lm = lmOf();
    const chat = d.conversation("c", { store, lm });
    expect(await Promise.all([chat.send("pay 5", { key: "k" }), chat.send("pay 5", { key: "k" })])).toEqual(["paid", "paid"]);
    expect([paid, lm.requests.length, (await chat.turns()).length]).toEqual([[5], 2, 1]);
  });

  it("five sends at once: each runs after the one before, on its branch; none is lost", async () => {
    const { d } = desk();
    const store = memoryStore();
    const chat = d.conversation("c", { store, lm: scripted(["a", "b", "c", "d", "e"]) });
    const answers = await Promise.all([1, 2, 3, 4, 5].map((i) => chat.send(`q${i}`)));
    expect([...answers].sort()).toEqual(["a", "b", "c", "d", "e"]);
    const turns = await chat.turns();
    expect(turns.map((t) => t.state)).toEqual(["done", "done", "done", "done", "done"]);
    expect(turns.map((t) => t.parent)).toEqual([null, ...turns.slice(0, 4).map((t) => t.id)]);
  });
});
