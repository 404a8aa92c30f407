/**
 * faultyStore()'s plan is checked when the store is made: a plan that would
 * inject nothing because of a slip (a misspelt key, a call number that is
 * never made, a delay that is not a number of milliseconds) is refused with
 * settings-invalid, so a test of a failing store never passes with none.
 */
import { describe, expect, it } from "vitest";
import { faultyStore, memoryStore } from "../../src/testing/index.js";
import type { FaultPlan } from "../../src/testing/faulty-store.js";

const rec = { functai_conversation: 1, kind: "note", at: "2026-01-01T00:00:00.000Z" };

describe("faultyStore: the plan", () => {
  it("a plan with a slip is refused (settings-invalid) when the store is made, naming what is wrong", () => {
    const slips: [unknown, string][] = [
      [{ failsOn: { 1: "before-write" } }, "failsOn"],
      [{ crashed: true }, "crashed"],
      [{ failOn: { 0: "before-write" } }, "failOn[0]"],
      [{ failOn: { first: "after-write" } }, "failOn[first]"],
      [{ failOn: { 1.5: "after-write" } }, "failOn[1.5]"],
      [{ failOn: "after-write" }, "failOn"],
      [{ crash: "yes" }, "crash"],
      [{ delayMs: -5 }, "delayMs"],
      [{ delayMs: Number.NaN }, "delayMs"],
      [{ delayMs: Number.POSITIVE_INFINITY }, "delayMs"],
      [{ delayMs: "100" }, "delayMs"],
      [null, "plan"],
    ];
    for (const [plan, named] of slips)
      expect(() => faultyStore(memoryStore(), plan as FaultPlan), JSON.stringify(plan)).toThrow(
        expect.objectContaining({ code: "settings-invalid", message: expect.stringContaining(named) }),
      );
  });

  it("a delay function's answer that is not a number of milliseconds fails that call (settings-invalid), and nothing is written", async () => {
    const inner = memoryStore();
    const store = faultyStore(inner, { delayMs: () => Number.NaN });
    await expect(store.append("c", [rec])).rejects.toMatchObject({ code: "settings-invalid", message: expect.stringContaining("delayMs") });
    expect(await inner.read("c")).toEqual([]);
  });

  it("plans as documented are taken", async () => {
    for (const plan of [{}, { failOn: { 2: "after-write" }, crash: true }, { failOn: () => undefined, delayMs: 0 }, { delayMs: () => 0, crash: false }] as FaultPlan[])
      expect(() => faultyStore(memoryStore(), plan)).not.toThrow();
    const store = faultyStore(memoryStore(), { failOn: { 2: "before-write" } });
    await store.append("c", [rec]);
    await expect(store.append("c", [rec])).rejects.toMatchObject({ code: "store-io" });
  });
});
