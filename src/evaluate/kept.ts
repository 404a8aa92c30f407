import { describeError, FunctaiError } from "../errors.js";

/** What a stopped run keeps on its error: `evaluate`'s finished rows (an `Evaluation`), an optimizer's passing runs (`Demo[]`). */
export type KeptKey = "evaluation" | "demos";

/**
 * Puts what a stopped run finished (each a paid call) on its error, so it is
 * not run again from nothing. Not enumerable: a logged error does not print
 * every row. Whether it could (a frozen error, a proxy, cannot take it).
 */
function keepOn(error: unknown, key: KeptKey, value: unknown): boolean {
  if ((typeof error !== "object" && typeof error !== "function") || error === null) return false;
  // an error holding its own `evaluation` (a nested run's, rethrown) keeps it: replaced, that run's rows were lost
  if (!Object.isExtensible(error) || Object.hasOwn(error, key)) return false;
  try {
    Object.defineProperty(error, key, { value, enumerable: false, configurable: true });
    return true;
  } catch {
    return false;
  }
}

/** A `turn-aborted` error carrying what the run finished as `key`. */
export function stoppedRun(message: string, cause: unknown, key: KeptKey, value: unknown): FunctaiError {
  const error = new FunctaiError("turn-aborted", message, { cause });
  keepOn(error, key, value);
  return error;
}

/**
 * What a run whose `onProgress` threw rejects with: that very error (as
 * documented), carrying what the run finished as `key`; before, the rows
 * finished by then were lost with it. A thrown value that cannot carry them
 * (a string, a frozen error, one with a `key` of its own) is the cause of a
 * `turn-aborted` error that does. `stoppedAfter` says how far the run got.
 */
export function progressFailure(thrown: unknown, stoppedAfter: string, holds: string, key: KeptKey, value: unknown): unknown {
  if (keepOn(thrown, key, value)) return thrown;
  return stoppedRun(`${stoppedAfter}: onProgress threw ${describeError(thrown)}; ${holds}`, thrown, key, value);
}
