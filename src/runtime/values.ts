import { describeValue, FunctaiError } from "../errors.js";

/**
 * What kind of value a caller gave, asked the one way every check asks it.
 */

/**
 * Whether `value` is an object of named fields: not null, not a list.
 *
 * @example
 * isRecord({ k: 4 }); // true
 * isRecord(null);     // false
 * isRecord([1]);      // false
 */
export const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Whether `value` can be a `store` option: a location (a non-empty text:
 * "" would name the working directory; no URL scheme but postgres://) or an
 * object with `append` and `read` (see `storeOptionProblem`).
 *
 * @example
 * isStoreOption("chats/"); // true
 * isStoreOption("");       // false
 */
export const isStoreOption = (value: unknown): boolean => storeOptionProblem(value) === undefined;

/**
 * A scheme at the start of a location (`redis:` of `redis://host`, `file:`,
 * `sqlite:`): two or more characters, so a Windows drive letter (`C:\chats`)
 * is a path. `postgres://` and `postgresql://` name the Postgres store.
 */
const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]{1,31}):/;
/** A location that names the PostgreSQL store (`postgres://…`, `postgresql://…`). */
export const POSTGRES_URL = /^postgres(ql)?:\/\//i;

/**
 * The refusal (`settings-invalid`) of a `postgres://` location in a browser,
 * worded once for every place that can be given one there (`configure`,
 * `withSettings`, `fn.using`, a conversation's or a call's options, `serve`,
 * `indexedDBStore`): taken for an IndexedDB database name, the conversation
 * ran with its records kept in this browser, under a database named after
 * the URL (its password included), while the app took them for kept on its
 * shared server. The URL itself is never echoed (it may hold a password).
 *
 * @example
 * throw postgresInBrowser(); // settings-invalid: store "postgres://…" names the PostgreSQL store, …
 */
export const postgresInBrowser = (): FunctaiError =>
  new FunctaiError(
    "settings-invalid",
    'store "postgres://…" names the PostgreSQL store, which runs in Node only (it needs pg and a TCP connection to the server), ' +
      "never in a browser: here a store location is an IndexedDB database name. Keep conversations in the browser " +
      '(store: "chats", an IndexedDB database) or run them on a Node server that uses the Postgres store.',
  );

/**
 * Why `value` cannot be a `store` option, or undefined when it can: a
 * location (a non-empty text: "" would name the working directory, and one
 * that starts with a URL scheme other than postgres:// names a store there is
 * none of, which was taken for a relative path: `redis://host` made the
 * directory `./redis:/host`, `file:///tmp/chats` the directory
 * `./file:/tmp/chats`; "memory" a directory named so, not a store in
 * memory; "~/chats" a directory "./~/chats", not one in the home directory;
 * white space at an end another directory, and " postgres://…" one too) or an object with `append` and `read`. The text names
 * the scheme only, never the rest of the URL (it may hold a password).
 *
 * @example
 * storeOptionProblem("chats/");         // undefined
 * storeOptionProblem("redis://db:6379"); // 'store "redis:…" names no store functai has: …'
 * storeOptionProblem("memory");          // 'store "memory" would be a directory …: for one pass memoryStore() …'
 */
export function storeOptionProblem(value: unknown): string | undefined {
  if (typeof value === "string") {
    // white space at an end (a location read from a file or the environment, untrimmed): " postgres://…" was a
    // directory " postgres:" under the working directory, "chats/ " a directory " " inside chats (not echoed: a URL's password)
    if (value !== "" && value.trim() !== value)
      return "store is a location that starts or ends with white space (read from a file or the environment, untrimmed?): as it is, it names another directory than the one meant; trim it (location.trim())";
    // "memory" (or SQLite's ":memory:") asks for a store that forgets: taken for a path, it was a directory of that
    // name, kept on disk for good (in a browser, a database); the memory store is an object, and "./memory" a directory
    if (/^:?memory:?$/i.test(value))
      return `store ${JSON.stringify(value)} would be a directory of that name (in a browser, a database), kept for good, not a store in memory: for one pass memoryStore() (from "functai"); for a directory named so, write "./${value}"`;
    // a shell's home ("~/chats"): nothing expands it here, so it was the directory "./~/chats" under the working directory
    if (/^~[^/\\]*([/\\]|$)/.test(value))
      return `store ${JSON.stringify(value.slice(0, 40))} starts with "~", which only a shell reads as a home directory: here it would be the directory "./${value.slice(0, 40)}" under the working directory. Give the path itself (join(homedir(), "chats"), from node:os and node:path), or write "./${value.slice(0, 40)}" if that directory is meant`;
    const scheme = SCHEME.exec(value)?.[1];
    if (value !== "" && (scheme === undefined || POSTGRES_URL.test(value))) return undefined;
    if (scheme !== undefined)
      return `store "${scheme}:…" names no store functai has: a store location is a directory path ("chats/"; "./${scheme}:…" for a directory of that name; in a browser, an IndexedDB database name) or a postgres:// URL; for any other store pass a Store object (with append and read)`;
  } else if (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { append?: unknown }).append === "function" &&
    typeof (value as { read?: unknown }).read === "function"
  )
    return undefined;
  return `store must be a location ("chats/") or a Store (with append and read), not ${describeValue(value, 40)}`;
}

/**
 * A copy of plain data (what a request and a reply hold, a row a metric is given): arrays and plain objects are
 * copied item by item, a Date, a Map and a Set as new ones holding copies, a cycle as the same cycle; anything else
 * (a class instance, a typed array, a subclass) is kept as it is, its state may be private. Not structuredClone: a
 * request's messages are a view (a Proxy), which it refuses. Keys are defined, not assigned, so a key `__proto__`
 * (JSON.parse makes them) stays a key. Throws what reading the value throws (a getter, a Proxy's trap).
 *
 * @example
 * const input = { order: { id: "A-1" } };
 * copyOf(input).order.id = "B-2"; // input.order.id is still "A-1"
 */
export function copyOf<T>(value: T, seen = new Map<object, unknown>()): T {
  if (typeof value !== "object" || value === null) return value;
  if (seen.has(value)) return seen.get(value) as T;
  const proto = Object.getPrototypeOf(value) as unknown;
  if (Array.isArray(value)) {
    const list: unknown[] = [];
    seen.set(value, list);
    for (const item of value as unknown[]) list.push(copyOf(item, seen));
    return list as T;
  }
  if (proto === Object.prototype || proto === null) {
    const record: Record<string, unknown> = {};
    seen.set(value, record);
    for (const [key, item] of Object.entries(value))
      Object.defineProperty(record, key, { value: copyOf(item, seen), enumerable: true, writable: true, configurable: true });
    return record as T;
  }
  return builtinCopy(value, proto, seen) as T;
}

/** A new Date, Map or Set (exactly one: a subclass is kept as a class instance is) holding copies; else `value` itself. */
function builtinCopy(value: object, proto: unknown, seen: Map<object, unknown>): object {
  if (proto === Date.prototype) {
    const date = new Date((value as Date).getTime());
    seen.set(value, date);
    return date;
  }
  if (proto === Map.prototype) {
    const map = new Map<unknown, unknown>();
    seen.set(value, map);
    for (const [k, v] of value as Map<unknown, unknown>) map.set(copyOf(k, seen), copyOf(v, seen));
    return map;
  }
  if (proto !== Set.prototype) return value;
  const set = new Set<unknown>();
  seen.set(value, set);
  for (const item of value as Set<unknown>) set.add(copyOf(item, seen));
  return set;
}

/**
 * The keys a caller gave that nothing reads (a slip: `aprove`, `singal`,
 * `contents`), in the order given. Read as not given, each would leave off
 * what it meant to set, without a word, so every options check refuses them.
 *
 * @example
 * unknownKeys(["lm", "aprove"], ["lm", "approve"]); // ["aprove"]
 */
export function unknownKeys(keys: readonly string[], known: readonly string[]): string[] {
  return keys.filter((key) => !known.includes(key));
}

/**
 * Keys named as a refusal says them, with what is said of one key or of
 * several (nothing, when neither is given).
 *
 * @example
 * namedKeys(["aprove"], "is not a setting", "are not settings"); // '"aprove" is not a setting'
 * namedKeys(["txt", "tool"]);                                   // '"txt", "tool"'
 */
export function namedKeys(keys: readonly string[], one = "", several = one): string {
  const said = keys.length === 1 ? one : several;
  return `${keys.map((key) => JSON.stringify(key)).join(", ")}${said === "" ? "" : ` ${said}`}`;
}
