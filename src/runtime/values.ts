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
