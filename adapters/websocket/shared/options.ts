/**
 * How `serve` and `connect` check their options' numbers, said the same way
 * (`settings-invalid`, naming the option and what it takes): a timer of 0,
 * a negative one or NaN fires every millisecond, one past a timer's reach
 * fires at once, and a limit of NaN compares false for everything.
 */
import { describeValue, FunctaiError } from "../../../src/errors.js";
import { MAX_TIMER_MS } from "../../../src/runtime/clock.js";

export function optionChecks(who: "serve" | "connect") {
  const wrong = (name: string, value: unknown, what: string): never => {
    throw new FunctaiError("settings-invalid", `${who}: ${name} must be ${what}, not ${describeValue(value, 100)}`);
  };
  return {
    wrong,
    /** Left out, or a whole number ≥ `min`. */
    whole(name: string, value: unknown, min: number): void {
      if (value !== undefined && !(Number.isSafeInteger(value) && (value as number) >= min)) wrong(name, value, `a whole number ≥ ${min}`);
    },
    /** Left out, or milliseconds from `min` to what a timer holds. */
    ms(name: string, value: unknown, min: number): void {
      if (value !== undefined && !(typeof value === "number" && value >= min && value <= MAX_TIMER_MS)) wrong(name, value, `a number of milliseconds from ${min} to ${MAX_TIMER_MS}`);
    },
  };
}
