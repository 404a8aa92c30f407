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
 * "" would name the working directory) or an object with `append` and `read`.
 *
 * @example
 * isStoreOption("chats/"); // true
 * isStoreOption("");       // false
 */
export const isStoreOption = (value: unknown): boolean =>
  (typeof value === "string" && value !== "") ||
  (typeof value === "object" &&
    value !== null &&
    typeof (value as { append?: unknown }).append === "function" &&
    typeof (value as { read?: unknown }).read === "function");

/**
 * A copy of plain data (what a request and a reply hold): arrays and plain objects are copied, anything
 * else is kept as it is. Not structuredClone: a request's messages are a view (a Proxy), which it refuses.
 * Keys are defined, not assigned, so a key `__proto__` (JSON.parse makes them) stays a key.
 *
 * @example
 * const input = { order: { id: "A-1" } };
 * copyOf(input).order.id = "B-2"; // input.order.id is still "A-1"
 */
export function copyOf<T>(value: T, seen = new Map<object, unknown>()): T {
  if (typeof value !== "object" || value === null) return value;
  const proto = Object.getPrototypeOf(value) as unknown;
  if (!Array.isArray(value) && proto !== Object.prototype && proto !== null) return value;
  if (seen.has(value)) return seen.get(value) as T;
  const copy: Record<string, unknown> | unknown[] = Array.isArray(value) ? [] : {};
  seen.set(value, copy);
  if (Array.isArray(copy)) for (const item of value as unknown[]) copy.push(copyOf(item, seen));
  else
    for (const [key, item] of Object.entries(value))
      Object.defineProperty(copy, key, { value: copyOf(item, seen), enumerable: true, writable: true, configurable: true });
  return copy as T;
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
