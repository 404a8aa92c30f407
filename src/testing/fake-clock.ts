import { macrotask } from "../engine/macrotask.js";
import { FunctaiError } from "../errors.js";
import type { Clock, ClockTimer } from "../runtime/clock.js";

/**
 * A clock that moves only when told to: `advance(ms)` runs the timers that fall due, in order.
 *
 * @example
 * const clock: FakeClock = fakeClock(Date.parse("2026-01-05T09:00:00Z"));
 * const chat = desk.conversation("sam", { store, clock });
 * await clock.advance(60_000); // leases run out without waiting a minute
 * clock.pending; // timers still waiting
 */
export interface FakeClock extends Clock {
  /**
   * Moves time on by `ms` (0 or more; else `settings-invalid`), firing each timer due on the way (at
   * its own time, a repeating one as many times as it falls due); resolves once their callbacks'
   * promises settle. An advance that would fire timers more than a million times in all ({@link FAKE_CLOCK_FIRINGS})
   * (`every(1)` and a year) is refused (`settings-invalid`) before anything fires, time staying where it is.
   */
  advance(ms: number): Promise<void>;
  /** Timers waiting to fire. */
  readonly pending: number;
}

/**
 * The most firings one `advance` makes: each one runs a callback and lets its
 * promises settle (a few microseconds), so this many take about a second, and
 * more is a test that counts ticks it does not mean to (cancel the timer, or
 * advance by less).
 */
export const FAKE_CLOCK_FIRINGS = 1_000_000;

interface Entry {
  at: number;
  every: number | null;
  fn: () => void;
  id: number;
}

/**
 * A clock for tests: time starts at `start` (ms since the epoch) and moves
 * only by `advance`, so a lease can run out without the test sleeping.
 *
 * @example
 * const clock = fakeClock();
 * const chat = desk.conversation("sam", { store: memoryStore(), clock, lease: { ttlMs: 30_000 } });
 * await clock.advance(31_000); // the lease ran out
 */
export function fakeClock(start = Date.UTC(2026, 0, 1)): FakeClock {
  // a Date or a string would make `now + ms` text, NaN a time at which nothing falls due and no record can be dated
  if (typeof start !== "number" || !Number.isFinite(start))
    throw new FunctaiError("settings-invalid", `fakeClock: its start is ${(start as unknown) instanceof Date ? "a Date" : typeof start === "string" ? JSON.stringify(start) : String(start)}; give milliseconds since the epoch (Date.parse(…) or date.getTime()).`);
  let now = start;
  let ids = 0;
  const timers = new Set<Entry>();
  const add = (ms: number, fn: () => void, every: boolean): ClockTimer => {
    // NaN is 0, as setTimeout and setInterval take it (a NaN time would never fall due: the timer would never fire)
    const wait = Number.isNaN(ms) ? 0 : ms;
    const entry: Entry = { at: now + Math.max(0, wait), every: every ? Math.max(1, wait) : null, fn, id: ids++ };
    timers.add(entry);
    return { cancel: () => void timers.delete(entry) };
  };
  /**
   * Between firings, a callback's awaits (a lease renewal's store write) settle before time moves on:
   * one macrotask (setImmediate, not setTimeout(0), which Node holds back a millisecond: a repeating
   * timer due a million times would take twenty minutes). At the end, a setTimeout(0) as well, so
   * what the last callbacks started on a real zero-delay timer has run when `advance` resolves.
   */
  const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));
  /** How many times the timers would fire by `until`, counted without firing them. */
  const firingsBy = (until: number): number => {
    let count = 0;
    for (const t of timers) if (t.at <= until) count += t.every === null ? 1 : Math.floor((until - t.at) / t.every) + 1;
    return count;
  };
  const tooMany = (ms: number, what: string): FunctaiError =>
    new FunctaiError(
      "settings-invalid",
      `fakeClock: advance(${ms}) ${what} (at most ${FAKE_CLOCK_FIRINGS}); cancel a short repeating timer first, or advance by less.`,
    );
  return {
    now: () => now,
    after: (ms, fn) => add(ms, fn, false),
    every: (ms, fn) => add(ms, fn, true),
    get pending() {
      return timers.size;
    },
    async advance(ms) {
      // time moves on only: a negative or non-finite step would send it back, or nowhere
      if (!Number.isFinite(ms) || ms < 0)
        throw new FunctaiError("settings-invalid", `fakeClock: advance(${ms}); give a number of milliseconds, 0 or more.`);
      const until = now + ms;
      const due = firingsBy(until);
      if (due > FAKE_CLOCK_FIRINGS) throw tooMany(ms, `would fire timers ${due} times`);
      // timers the callbacks start count too (a timer made at every tick): past the limit, time stays at the last firing
      let fired = 0;
      for (;;) {
        let next: Entry | undefined;
        for (const t of timers) if (t.at <= until && (!next || t.at < next.at || (t.at === next.at && t.id < next.id))) next = t;
        if (!next) break;
        if (++fired > FAKE_CLOCK_FIRINGS) throw tooMany(ms, `fired timers ${FAKE_CLOCK_FIRINGS} times and more fell due (timers its callbacks started)`);
        now = Math.max(now, next.at);
        if (next.every === null) timers.delete(next);
        else next.at += next.every;
        next.fn();
        await macrotask();
      }
      // (an advance made meanwhile may have moved time past this one's end: it stays there)
      now = Math.max(now, until);
      await settle();
    },
  };
}
