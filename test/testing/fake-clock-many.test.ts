/**
 * fakeClock().advance over a long time with a short repeating timer: every
 * firing happens, in order and at its own time, and fast (no real timer,
 * which Node holds back a millisecond, per firing); an advance that would
 * fire absurdly often is refused before anything fires.
 */
import { describe, expect, it, vi } from "vitest";
import { fakeClock } from "../../src/testing/index.js";
import { FAKE_CLOCK_FIRINGS } from "../../src/testing/fake-clock.js";

describe("fakeClock: a short repeating timer over a long advance", () => {
  it("every(1) over 200 000 ms fires 200 000 times, each at its own time, with the other timers in their places, without a real timer per firing", async () => {
    const clock = fakeClock(0);
    let ticks = 0;
    let late = 0; // firings not at the time they fell due
    clock.every(1, () => {
      ticks++;
      if (clock.now() !== ticks) late++;
    });
    const marks: string[] = [];
    clock.after(100_000.5, () => marks.push(`after@${clock.now()} ticks=${ticks}`));
    clock.every(50_000, () => marks.push(`every50k@${clock.now()} ticks=${ticks}`));
    // Node holds a real setTimeout(0) back about a millisecond: one per firing would take minutes
    const realTimers = vi.spyOn(globalThis, "setTimeout");
    try {
      await clock.advance(200_000);
    } finally {
      realTimers.mockRestore();
    }
    expect(ticks).toBe(200_000);
    expect(late).toBe(0);
    // a timer made later fires after an older one due at the same time (every(1) was made first)
    expect(marks).toEqual([
      "every50k@50000 ticks=50000",
      "every50k@100000 ticks=100000",
      "after@100000.5 ticks=100000",
      "every50k@150000 ticks=150000",
      "every50k@200000 ticks=200000",
    ]);
    expect(clock.now()).toBe(200_000);
    expect(realTimers.mock.calls.length, "real setTimeout calls in the advance").toBeLessThanOrEqual(1);
  }, 20_000);

  it("an advance that would fire more than FAKE_CLOCK_FIRINGS times is refused (settings-invalid) before anything fires; time stays", async () => {
    const clock = fakeClock(0);
    let ticks = 0;
    const timer = clock.every(1, () => void ticks++);
    await expect(clock.advance(1e12)).rejects.toMatchObject({ code: "settings-invalid", message: expect.stringContaining("1000000000000 times") });
    await expect(clock.advance(FAKE_CLOCK_FIRINGS + 1)).rejects.toMatchObject({ code: "settings-invalid" });
    expect(ticks).toBe(0);
    expect(clock.now()).toBe(0);
    timer.cancel();
    await clock.advance(1e12); // nothing left to fire: time just moves
    expect(clock.now()).toBe(1e12);
  });

  it("a callback that starts a new short timer at every firing is stopped past the limit (settings-invalid), not left spinning", async () => {
    const clock = fakeClock(0);
    let fired = 0;
    const again = (): void => {
      fired++;
      clock.after(0, again);
    };
    clock.after(0, again);
    await expect(clock.advance(10)).rejects.toMatchObject({ code: "settings-invalid" });
    expect(fired).toBe(FAKE_CLOCK_FIRINGS);
  }, 30_000);
});

describe("fakeClock: its start", () => {
  it("a start that is not a finite number of ms (NaN, a Date, a string) is refused (settings-invalid), not kept to make times of NaN or text", () => {
    for (const start of [Number.NaN, Number.POSITIVE_INFINITY, new Date(0), "2026-01-01", null])
      expect(() => fakeClock(start as unknown as number), String(start)).toThrow(expect.objectContaining({ code: "settings-invalid", message: expect.stringContaining("start") }));
    expect(fakeClock(0).now()).toBe(0);
    expect(fakeClock().now()).toBe(Date.UTC(2026, 0, 1));
  });
});
