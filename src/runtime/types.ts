import type { Store } from "../store/types.js";

/** Carries a value across `await`s where the platform can (Node: AsyncLocalStorage). */
export interface AsyncCarrier<T> {
  run<R>(value: T, fn: () => R): R;
  get(): T | undefined;
  /** Whether values survive `await` (false: only the synchronous start sees them). */
  readonly acrossAwait: boolean;
}

/** Names this process and tells whether another process still runs (where the platform can). */
export interface Processes {
  /** This process: its pid, the pid's start time ("" unknown), and a hash of its host name and pid namespace. */
  readonly self: { pid: number; start: string; place: string };
  /** Whether the process `pid` of this place (started at `start`, "" unknown) runs; true when it cannot be told. */
  runs(pid: number, start: string): boolean;
}

export interface PlatformRuntime {
  /**
   * Which platform this is (#runtime's condition picks it): in `"node"` a
   * string `store` is a directory path or a `postgres://` URL, in
   * `"browser"` an IndexedDB database name (and the Postgres store is not
   * there). Read through `platformKind()` (src/runtime/stores.ts).
   */
  readonly kind: "node" | "browser";
  defaultStore(location: string): Store;
  /**
   * What a string `store` names, as one key per place: in Node a path made
   * absolute against the working directory of now (so "chats", "chats/" and
   * "./chats" are one store, and a relative path after `process.chdir` is
   * another); absent where a location is only a name (browsers: a database).
   */
  storeKey?(location: string): string;
  createCarrier<T>(): AsyncCarrier<T>;
  /** Absent in browsers (a tab's Web Lock tells there). */
  processes?: Processes;
}
