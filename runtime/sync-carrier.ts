import type { AsyncCarrier } from "../src/runtime/types.js";

/** A carrier that only the synchronous start of `fn` sees (browsers: no AsyncLocalStorage). */
export function syncCarrier<T>(): AsyncCarrier<T> {
  let current: T | undefined;
  return {
    acrossAwait: false,
    run(value, fn) {
      const before = current;
      current = value;
      try {
        return fn();
      } finally {
        current = before;
      }
    },
    get: () => current,
  };
}
