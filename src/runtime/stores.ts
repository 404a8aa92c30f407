/**
 * The owner of the stores that string `store` options name ("chats/", a
 * `postgres://` URL): each location is opened once, on first use, through
 * the platform's default store (#runtime), and shared by every conversation
 * and server that names it (so they share its file handles, read caches or
 * connection pool). They live as long as the process or page, unless
 * `closeStores()` closes them all (a test's teardown, a server's shutdown);
 * a location named after that is opened afresh. A `Store` object given as
 * the option is the caller's: it is never kept here nor closed.
 */
import { platform } from "#runtime";
import { FunctaiError } from "../errors.js";
import type { Store } from "../store/types.js";
import { POSTGRES_URL, postgresInBrowser, storeOptionProblem } from "./values.js";

const opened = new Map<string, Store>();

/**
 * Which platform this is, as the platform says (`kind`).
 *
 * @example
 * platformKind(); // "browser" in a page or worker, "node" in Node
 */
export const platformKind = (): "node" | "browser" => platform.kind;

/**
 * Refuses (`settings-invalid`) a `store` location that this platform has no
 * store for: a `postgres://` URL in a browser (see `postgresInBrowser`).
 * Checked where a store is given (the settings checks) and where one is
 * opened (`storeAt`).
 *
 * @example
 * checkStoreHere("postgres://db/app"); // throws in a browser, nothing in Node
 */
export function checkStoreHere(location: unknown): void {
  if (typeof location === "string" && platformKind() === "browser" && POSTGRES_URL.test(location)) throw postgresInBrowser();
}

/**
 * The store at `location`, opened on first use and the same object after.
 *
 * @example
 * storeAt("chats/") === storeAt("chats/"); // true (one store per location)
 * storeAt("chats/") === storeAt("./chats"); // true in Node (one directory)
 */
export function storeAt(location: string): Store {
  // In a browser a location is an IndexedDB database name: a postgres:// URL was a database named after it (see checkStoreHere).
  checkStoreHere(location);
  // one key per place (Node: an absolute path, resolved now), and the store opened at that place
  const key = platform.storeKey?.(location) ?? location;
  let store = opened.get(key);
  if (store === undefined) opened.set(key, (store = platform.defaultStore(key)));
  return store;
}

/**
 * Closes every store `storeAt` opened and forgets them (stores without
 * `close` are only forgotten).
 *
 * @example
 * await closeStores(); // then storeAt("chats/") opens a new store
 */
export async function closeStores(): Promise<void> {
  const stores = [...opened.values()];
  opened.clear();
  await Promise.all(stores.map((store) => store.close?.()));
}

/**
 * The store a `store` option names: a Store as given, a string through `storeAt`.
 *
 * @example
 * const store = resolveStore(options.store ?? settings.store);
 */
export function resolveStore(store: Store | string | undefined): Store {
  if (store === undefined) throw new FunctaiError("settings-invalid", 'a conversation needs a store: { store: "chats/" } or a Store');
  // checked here for every caller (serve takes its option straight here): "" would name the working directory,
  // "redis://host" a directory "./redis:/host", and what has no append and read would fail as a TypeError at the first read
  const problem = storeOptionProblem(store);
  if (problem !== undefined) throw new FunctaiError("settings-invalid", problem);
  return typeof store === "string" ? storeAt(store) : store;
}
