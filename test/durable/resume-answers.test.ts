/**
 * What a person says of a turn's unfinished tools (`resume({ results, rerun })`)
 * is checked before anything is written: a key that names no tool call of
 * the turn (a typo, another turn's number) or one call both given a result
 * and a rerun is refused with `input-invalid`, never quietly dropped (the
 * person believes they said something about a call they did not name).
 */
import { describe, expect, it } from "vitest";
import { memoryStore } from "../../src/index.js";
import { makeRecord } from "../../src/records/make.js";
import { build, memoryLog, processStore, World, worldLM, type ProgSpec } from "./fixtures/world.js";

const DESK: ProgSpec = {
  root: { kind: "ai", fn: { name: "desk", tools: [{ kind: "reads", name: "look" }, { kind: "changes", name: "pay" }], steps: [["look"], ["pay"]] } },
  approve: null, deny: [],
};

/** A conversation whose turn died after pay started: pay (invocation 2) is unfinished. */
async function died() {
  const store = memoryStore();
  const effects = memoryLog();
  const world = new World({ effects, crashWhere: "after pay" });
  const lease = { renewMs: 1000, ttlMs: 30 };
  await expect(build(DESK, world).conversation("died", { store: processStore(store, world), lm: worldLM(world, DESK), lease }).send({ text: "go" })).rejects.toThrow(/crash/);
  await new Promise((r) => setTimeout(r, 50)); // its lease runs out
  const other = new World({ effects });
  const [turn] = await build(DESK, other).conversation("died", { store, lm: worldLM(other, DESK), lease }).turns();
  return { store, turn: turn!, effects };
}

describe("resume({ results, rerun })", () => {
  it("refuses a key that names no tool call of the turn, writing nothing", async () => {
    const { store, turn } = await died();
    expect(turn.unfinished.map((u) => [u.name, u.invocation])).toEqual([["pay", 2]]);
    const length = (await store.read("died")).length;
    await expect(turn.resume({ results: { 2: "paid", 7: "paid" } })).rejects.toMatchObject({ code: "input-invalid", message: expect.stringMatching(/7.*no tool call/) });
    await expect(turn.resume({ results: { 2: "paid" }, rerun: ["desk#1:9"] })).rejects.toMatchObject({ code: "input-invalid", message: expect.stringMatching(/desk#1:9/) });
    expect(await store.read("died")).toHaveLength(length);
    expect(turn.state).toBe("interrupted");
  });

  it("refuses results that are not a record, or a rerun that is not a list", async () => {
    const { turn } = await died();
    await expect(turn.resume({ results: "paid" as never })).rejects.toMatchObject({ code: "input-invalid" });
    await expect(turn.resume({ rerun: 2 as never })).rejects.toMatchObject({ code: "input-invalid" });
  });

  it("refuses one call given both a result and a rerun", async () => {
    const { store, turn } = await died();
    const length = (await store.read("died")).length;
    await expect(turn.resume({ results: { 2: "paid" }, rerun: [2] })).rejects.toMatchObject({ code: "input-invalid", message: expect.stringMatching(/pay.*both/) });
    expect(await store.read("died")).toHaveLength(length);
  });

  it("takes a key of a call that is already settled (look ran and is done) with its recorded result; another result for it is refused (turn-state), nothing written", async () => {
    const { store, turn, effects } = await died();
    const length = (await store.read("died")).length;
    await expect(turn.resume({ results: { 1: "ignored: look is done", 2: "paid" } })).rejects.toMatchObject({ code: "turn-state", message: expect.stringMatching(/look.*finished/) });
    expect(await store.read("died")).toHaveLength(length);
    const look = (await store.read("died")).find((r) => r.kind === "tool" && (r as { name?: string; state?: string }).name === "look" && (r as { state?: string }).state === "done") as { output?: unknown };
    const answer = await turn.resume({ results: { 1: look.output, 2: "paid" } });
    expect(typeof answer).toBe("string");
    expect([...effects.all()].filter(([k]) => String(k).startsWith("pay"))).toHaveLength(1); // pay ran once, before the crash
  });

  it("refuses an answer another resume already recorded otherwise (its answer stands); the same answer goes on", async () => {
    const { store, turn, effects } = await died();
    const [pay] = turn.unfinished;
    // another person's resume wrote its answer (a rerun) and has not claimed the turn yet
    const length = (await store.read("died")).length;
    const theirs = makeRecord("tool", { turn: turn.id, site: pay!.site, invocation: pay!.invocation, name: pay!.name, path: pay!.path, state: "rerun" }, Date.now());
    await store.append("died", [theirs], { expect: length });
    await expect(turn.resume({ results: { 2: "paid by hand" } })).rejects.toMatchObject({ code: "turn-state", message: expect.stringMatching(/pay.*already answered.*rerun/) });
    expect(await store.read("died")).toHaveLength(length + 1);
    const paid = () => [...effects.all()].filter(([k]) => String(k).startsWith("pay")).reduce((n, [, runs]) => n + runs, 0);
    const before = paid();
    expect(typeof (await turn.resume({ rerun: [2] }))).toBe("string"); // the same answer: the turn goes on, pay run again as asked
    expect(paid()).toBe(before + 1);
  });
});
