/**
 * Where time comes from: leases, events and records read it here, so a test
 * can replace it (`fakeClock()` from `functai/testing`) and run a lease's
 * life without sleeping.
 */
import { FunctaiError, describeValue } from "../errors.js";

/** The longest a timer can be set for: `setTimeout` and `setInterval` fire at once (every millisecond) past it. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * A timer a {@link Clock} gave out.
 *
 * @example
 * const timer: ClockTimer = clock.every(1_000, () => console.log(clock.now()));
 * timer.cancel();
 */
export interface ClockTimer {
  /** Stops the timer: `fn` is not called again. */
  cancel(): void;
}

/**
 * The time now, and timers that fire by it.
 *
 * @example
 * const wall: Clock = { now: () => Date.now(), after: (ms, fn) => { const t = setTimeout(fn, ms); return { cancel: () => clearTimeout(t) }; },
 *   every: (ms, fn) => { const t = setInterval(fn, ms); return { cancel: () => clearInterval(t) }; } };
 * const chat = desk.conversation("sam", { clock: wall });
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls `fn` once after `ms` (a timer that never keeps a Node process alive). */
  after(ms: number, fn: () => void): ClockTimer;
  /** Calls `fn` every `ms` until cancelled (never keeps a Node process alive). */
  every(ms: number, fn: () => void): ClockTimer;
}

const unref = (timer: unknown): void => (timer as { unref?: () => void }).unref?.();

/**
 * The wall clock.
 *
 * @example
 * const timer = systemClock.after(1000, () => console.log("a second later"));
 * timer.cancel();
 */
export const systemClock: Clock = {
  now: () => Date.now(),
  after(ms, fn) {
    const timer = setTimeout(fn, ms);
    unref(timer);
    return { cancel: () => clearTimeout(timer) };
  },
  every(ms, fn) {
    const timer = setInterval(fn, ms);
    unref(timer);
    return { cancel: () => clearInterval(timer) };
  },
};

let lastMs = Number.NaN;
let lastIso = "";

/** An instant as records write it (ISO 8601, UTC). The last one is kept: a step's records share their millisecond. */
export const isoAt = (ms: number): string => {
  if (ms !== lastMs) {
    // A clock's time that no Date holds (NaN, past ±8.64e15 ms, a text) would throw a bare RangeError mid-write,
    // or (a text) be read as some other instant.
    if (typeof ms !== "number" || !(Math.abs(ms) <= 8.64e15))
      throw new FunctaiError("input-invalid", `a record's time is milliseconds since the epoch (the clock's now()), not ${describeValue(ms, 40)}`);
    lastIso = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastIso;
};
