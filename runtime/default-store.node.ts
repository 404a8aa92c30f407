import { fsStore } from "../adapters/node-fs/index.js";
import { resolve } from "node:path";
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

/**
 * One key per place a string `store` names: a `postgres://` URL as it is, a
 * path made absolute against the working directory of now (a relative path
 * named after `process.chdir` is another directory; "chats" and "chats/"
 * are one).
 *
 * @example
 * ```ts
 * storeKey("desk-chats/"); // "/srv/app/desk-chats" (in /srv/app)
 * ```
 */
export function storeKey(location: string): string {
  return isPostgresUrl(location) ? location : resolve(location);
}
