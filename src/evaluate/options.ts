import { describeValue, FunctaiError } from "../errors.js";
import { isAbortSignal } from "../functions/input.js";
import { isRecord, isStoreOption } from "../runtime/values.js";

/**
 * Checks the options `evaluate` and `bootstrapFewShot` share (a user's
 * arguments: wrong is `input-invalid`, before any model call). Without this
 * a `null` options threw a TypeError, a signal that is no AbortSignal threw
 * a TypeError from the first row, and a store that is no store failed every
 * row with the same "is not a function" instead of refusing the run.
 */
export function checkRunOptions(options: unknown): Record<string, unknown> {
  if (!isRecord(options))
    throw new FunctaiError("input-invalid", `options are an object such as { concurrency: 4 }, not ${describeValue(options, 80)}`);
  const { signal, onProgress, store } = options as Record<string, unknown>;
  if (signal !== undefined && !isAbortSignal(signal))
    throw new FunctaiError("input-invalid", `signal is an AbortSignal, not ${describeValue(signal, 80)}`);
  if (onProgress !== undefined && typeof onProgress !== "function") throw new FunctaiError("input-invalid", "onProgress is a function");
  if (store !== undefined && !isStoreOption(store))
    throw new FunctaiError("input-invalid", `store is a Store or a place such as "evals/", not ${describeValue(store, 80)}`);
  return options as Record<string, unknown>;
}

/** Checks a rows-at-once option: a whole number ≥ 1 (default 8). */
export function checkConcurrency(value: unknown): number {
  const n = value ?? 8;
  if (typeof n !== "number" || !Number.isInteger(n) || n < 1)
    throw new FunctaiError("input-invalid", `concurrency is a whole number ≥ 1, not ${describeValue(n, 40)}`);
  return n;
}
