import { fsStore } from "../adapters/node-fs/index.js";
import { isPostgresUrl, lazyPostgresStore } from "../adapters/postgres/lazy.js";
import type { Store } from "../src/store/types.js";

/**
 * The store a string `store` option means in Node: a `postgres://` or
 * `postgresql://` URL is the Postgres store (loaded on first use; it needs
 * `pg`), anything else the file-system store at that directory (the browser
 * build maps the same import to IndexedDB).
 *
 * @example
 * ```ts
 * const store = defaultStore("desk-chats/"); // <cwd>/desk-chats/conversations/<id>.jsonl
 * const shared = defaultStore("postgres://app:secret@db:5432/app"); // tables in schema "functai"
 * ```
 */
export function defaultStore(location: string): Store {
  return isPostgresUrl(location) ? lazyPostgresStore(location) : fsStore(location);
}
