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
  /** Moves time on by `ms` (0 or more; else `settings-invalid`), firing each timer due on the way (at its own time); resolves once their callbacks' promises settle. */
  advance(ms: number): Promise<void>;
  /** Timers waiting to fire. */
  readonly pending: number;
}

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
  // a callback's awaits (a lease renewal's store write) settle before time moves on
  const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));
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
      for (;;) {
        let next: Entry | undefined;
        for (const t of timers) if (t.at <= until && (!next || t.at < next.at || (t.at === next.at && t.id < next.id))) next = t;
        if (!next) break;
        now = Math.max(now, next.at);
        if (next.every === null) timers.delete(next);
        else next.at += next.every;
        next.fn();
        await settle();
      }
      // (an advance made meanwhile may have moved time past this one's end: it stays there)
      now = Math.max(now, until);
      await settle();
    },
  };
}
