import { fsStore } from "../../adapters/node-fs/index.js";
import type { Store } from "./types.js";

/**
 * The store a string `store` option means in Node: the file-system store at
 * that directory (the browser build maps the same import to IndexedDB).
 *
 * @example
 * ```ts
 * const store = defaultStore("desk-chats/"); // <cwd>/desk-chats/conversations/<id>.jsonl
 * ```
 */
export function defaultStore(location: string): Store {
  return fsStore(location);
}
