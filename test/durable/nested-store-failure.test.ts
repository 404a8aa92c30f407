/**
 * A store failure inside an AI function used as a tool stops the turn, as
 * one at the top level does: it is never reported to the outer model as the
 * tool's error (found by this suite; fixed in src/engine/tool-calls.ts).
 */
import { describe, expect, it } from "vitest";
import { memoryStore } from "../../src/index.js";
import { faultyStore } from "../../src/testing/index.js";
import { build, memoryLog, World, worldLM, type ProgSpec } from "./fixtures/world.js";

const NESTED: ProgSpec = {
  root: { kind: "ai", fn: { name: "lead", tools: [{ kind: "ai", fn: { name: "helper", tools: [{ kind: "changes", name: "write" }], steps: [["write"]] } }], steps: [["helper"]] } },
  approve: null, deny: [],
};

describe("store failures at any depth (src/engine/tool-calls.ts)", () => {
  // a store that fails while an AI function used as a tool writes its records fails the turn, as at the top level:
  // it is never reported to the outer model as that tool's error (recorded done, another answer)
  it("a store failure inside an AI function used as a tool fails the turn, like one at the top level (not a tool error the model sees)", async () => {
    const inner = memoryStore();
    const store = faultyStore(inner, { failOn: { 2: "before-write" } }); // 2: helper's durable flush before write runs
    const world = new World({ effects: memoryLog() });
    const sent = build(NESTED, world).conversation("gap", { store, lm: worldLM(world, NESTED) }).send({ text: "x" });
    await expect(sent).rejects.toMatchObject({ code: "store-io" });
    const records = await inner.read("gap");
    expect(records.some((r) => r.kind === "tool" && String((r as { error?: unknown }).error).includes("injected store fault"))).toBe(false);
  });
});
