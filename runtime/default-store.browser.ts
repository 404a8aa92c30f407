import { indexedDBStore } from "../adapters/indexeddb/index.js";
import type { Store } from "../src/store/types.js";

/**
 * The store a string `store` names in a browser: the IndexedDB database of
 * that name. (In Node, `default-store.node.ts` gives the file-system store;
 * package `imports` conditions pick one, so neither bundle drags in the other.)
 *
 * @example
 * ```ts
 * const store = defaultStore("desk-chats/");   // IndexedDB database "desk-chats/"
 * await store.append("sam", [record]);
 * ```
 */
export function defaultStore(location: string): Store {
  return indexedDBStore(location);
}
