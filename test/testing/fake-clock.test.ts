import { describe, expect, it } from "vitest";
import { fakeClock } from "../../src/testing/index.js";

describe("fakeClock", () => {
  it("fires each timer due on the way, at its own time, in order", async () => {
    const clock = fakeClock(1_000);
    const fired: string[] = [];
    clock.after(50, () => fired.push(`after50@${clock.now()}`));
    const tick = clock.every(20, () => fired.push(`every20@${clock.now()}`));
    clock.after(500, () => fired.push("late"));
    await clock.advance(60);
    expect(fired).toEqual(["every20@1020", "every20@1040", "after50@1050", "every20@1060"]);
    expect(clock.now()).toBe(1_060);
    tick.cancel();
    expect(clock.pending).toBe(1);
  });

  it("moves time on only: a negative or non-finite advance is refused (settings-invalid) and time stays", async () => {
    const clock = fakeClock(1_000);
    const fired: number[] = [];
    clock.after(10, () => fired.push(clock.now()));
    for (const ms of [-1, Number.NaN, Number.POSITIVE_INFINITY]) {
      await expect(clock.advance(ms)).rejects.toMatchObject({ code: "settings-invalid" });
      expect(clock.now()).toBe(1_000);
    }
    await clock.advance(10);
    expect(fired).toEqual([1_010]);
  });
});
