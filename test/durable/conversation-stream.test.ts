/**
 * A conversation turn as a stream: its promise resolves with the answer when
 * approvals are answered in the loop, and rejects with `Waiting` (the turn,
 * its approvals) when the turn waits, saved, and nobody here answers.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, memoryStore, tool, Waiting } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { build, memoryLog, World, worldLM, type ProgSpec } from "./fixtures/world.js";

const GATED: ProgSpec = {
  root: { kind: "ai", fn: { name: "desk", tools: [{ kind: "reads", name: "look" }, { kind: "changes", name: "pay" }], steps: [["look"], ["pay"]] } },
  approve: ["pay"], deny: [],
};

function chat() {
  const effects = memoryLog();
  const world = new World({ effects });
  return { effects, chat: build(GATED, world).conversation("s", { store: memoryStore(), lm: worldLM(world, GATED), approve: ["pay"] }) };
}

const answer = async () => {
  const world = new World({ effects: memoryLog() });
  return build(GATED, world).conversation("free", { store: memoryStore(), lm: worldLM(world, GATED) }).send({ text: "go" });
};

/** A desk whose one reply asks to pay twice (two approvals wait at once); `paid` lists the payments. */
function twoPayments() {
  const paid: number[] = [];
  const pay = tool("pay", { description: "Pay.", input: { amount: z.number() }, effects: "changes" }, ({ amount }) => (paid.push(amount), `paid ${amount}`));
  const desk = ai("desk", { description: "Pay.", input: { ask: z.string() }, tools: [pay] });
  const lm = scripted([{ toolCalls: [{ name: "pay", input: { amount: 5 } }, { name: "pay", input: { amount: 7 } }] }, "done"]);
  return { paid, lm, chat: desk.conversation("two", { store: memoryStore(), lm, approve: "changes" }) };
}

/** The stream's outcome, or "hung" when it has none within a second (a promise that never settles). */
const outcome = (s: PromiseLike<unknown>): Promise<unknown> =>
  Promise.race([Promise.resolve(s).catch((e: unknown) => e), new Promise((r) => setTimeout(() => r("hung"), 1_000))]);

describe("conversation streams", () => {
  it("approved in the loop: the promise resolves with the answer; pay ran once", async () => {
    const { chat: c, effects } = chat();
    const s = c.stream({ text: "go" });
    const types: string[] = [];
    for await (const e of s) {
      types.push(e.type);
      if (e.type === "approval") void s.approve({ by: "me" });
    }
    expect(await s).toBe(await answer());
    expect(types).toContain("approved");
    expect(types.at(-2)).toBe("done");
    expect((await c.turns())[0]!.state).toBe("done");
    expect([...effects.all().values()]).toEqual([1, 1]);
  });

  it("the loop ends on the wait with nobody answering: the promise rejects with Waiting; approved later, it goes on", async () => {
    const { chat: c } = chat();
    const s = c.stream({ text: "go" });
    const types: string[] = [];
    for await (const e of s) types.push(e.type);
    expect(types.filter((t) => t === "waiting")).toHaveLength(1);
    const w = await Promise.resolve(s).catch((e: unknown) => e);
    expect(w).toBeInstanceOf(Waiting);
    expect([(w as Waiting).turn.state, (w as Waiting).approvals.map((a) => a.name)]).toEqual(["waiting", ["pay"]]);
    expect(await (w as Waiting).turn.approve({ by: "maria" })).toBe(await answer());
  });

  it("awaited without a loop: a wait rejects with Waiting", async () => {
    const { chat: c } = chat();
    const w = await Promise.resolve(c.stream({ text: "go" })).catch((e: unknown) => e);
    expect(w).toBeInstanceOf(Waiting);
    expect((w as Waiting).approvals.map((a) => a.path)).toEqual(["desk/pay"]);
  });

  it("the loop left (break) on the approval, unanswered: the promise rejects with Waiting (it never hangs); approved later, it goes on", async () => {
    const { chat: c, effects } = chat();
    const s = c.stream({ text: "go" });
    for await (const e of s) if (e.type === "approval") break;
    const w = await outcome(s);
    expect(w).toBeInstanceOf(Waiting);
    expect((w as Waiting).approvals.map((a) => a.name)).toEqual(["pay"]);
    expect(await (w as Waiting).turn.approve({ by: "maria" })).toBe(await answer());
    expect([...effects.all().values()]).toEqual([1, 1]);
  });

  it("two approvals, one answered by id, then the loop left: Waiting names the other; answered later, each payment runs once", async () => {
    const { chat: c, paid, lm } = twoPayments();
    const s = c.stream("pay twice");
    for await (const e of s) {
      if (e.type !== "approval") continue;
      await s.approve({ id: e.approval.id, by: "me" });
      break;
    }
    const w = await outcome(s);
    expect(w).toBeInstanceOf(Waiting);
    expect((w as Waiting).approvals.map((a) => a.input)).toEqual([{ amount: 7 }]);
    expect(paid).toEqual([]);
    expect(await (w as Waiting).turn.deny({ reason: "not today" })).toBe("done");
    expect(paid).toEqual([5]);
    expect(lm.requests).toHaveLength(2);
  });

  it("answered in the loop, then left before the answer is in: the turn goes on here and the promise resolves", async () => {
    const { chat: c, paid } = twoPayments();
    const s = c.stream("pay twice");
    for await (const e of s) {
      if (e.type !== "approval") continue;
      void s.approve();
      break;
    }
    expect(await outcome(s)).toBe("done");
    expect(paid).toEqual([5, 7]);
    expect((await c.turns())[0]!.state).toBe("done");
  });
});
