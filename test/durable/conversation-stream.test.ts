/**
 * A conversation turn as a stream: its promise resolves with the answer when
 * approvals are answered in the loop, and rejects with `Waiting` (the turn,
 * its approvals) when the turn waits, saved, and nobody here answers.
 */
import { describe, expect, it } from "vitest";
import { memoryStore, Waiting } from "../../src/index.js";
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
});
