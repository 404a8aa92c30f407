import type { Store } from "../store/types.js";

/** Carries a value across `await`s where the platform can (Node: AsyncLocalStorage). */
export interface AsyncCarrier<T> {
  run<R>(value: T, fn: () => R): R;
  get(): T | undefined;
  /** Whether values survive `await` (false: only the synchronous start sees them). */
  readonly acrossAwait: boolean;
}

export interface PlatformRuntime {
  defaultStore(location: string): Store;
  createCarrier<T>(): AsyncCarrier<T>;
}
