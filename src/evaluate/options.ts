import { describeValue, FunctaiError } from "../errors.js";
import { isAbortSignal } from "../functions/input.js";
import { isRecord, namedKeys, storeOptionProblem, unknownKeys } from "../runtime/values.js";
import { SETTING_KEYS } from "../settings.js";

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
  // worded as every entry point words it: echoed whole, a connection string's password went into the message (logged)
  const problem = store === undefined ? undefined : storeOptionProblem(store);
  if (problem !== undefined) throw new FunctaiError("input-invalid", problem);
  return options as Record<string, unknown>;
}

/** Checks a rows-at-once option: a whole number ≥ 1 (default 8, when left out; a `null` is refused, not read as 8). */
export function checkConcurrency(value: unknown): number {
  const n = value === undefined ? 8 : value;
  if (typeof n !== "number" || !Number.isInteger(n) || n < 1)
    throw new FunctaiError("input-invalid", `concurrency is a whole number ≥ 1, not ${describeValue(n, 40)}`);
  return n;
}

/**
 * Refuses a key that is none of `keys` (`input-invalid`, naming it): read as
 * not given, a misspelt `singal` left a run nothing could stop, each row paid
 * for, and a `concurency: 1` ran 8 rows at once (as `configure` and `using`
 * refuse a misspelt setting). A key holding `undefined` gives nothing, and is let be.
 */
export function checkOptionKeys(by: string, options: object, keys: readonly string[]): void {
  const given = Object.keys(options).filter((k) => (options as Record<string, unknown>)[k] !== undefined);
  const odd = unknownKeys(given, keys);
  if (odd.length === 0) return;
  // a setting (`lm`, `approve`) was quietly not used: the calls ran with the function's own
  const settings = odd.filter((k) => (SETTING_KEYS as readonly string[]).includes(k));
  const hint = settings.length > 0 ? ` Settings go on the function: fn.using({ ${settings.join(", ")} }).` : "";
  throw new FunctaiError(
    "input-invalid",
    `${namedKeys(odd, "is not an option", "are not options")} of ${by}; its options are ${keys.join(", ")}.${hint} Nothing was sent to the model.`,
  );
}
