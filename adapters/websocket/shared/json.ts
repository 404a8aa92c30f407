/**
 * What a person or a caller gives that travels as JSON (a result for an
 * unfinished tool, a call's input) must arrive as it was given: JSON writes
 * NaN and Infinity as `null`, a Map or a Set as `{}`, and reads a number past
 * its range (`1e400`) as Infinity, which it then writes as `null`. Sent or
 * kept so, the turn would go on with something nobody said (the model told
 * "null"). Such a value is refused, as the engine refuses a result JSON
 * cannot keep (a BigInt, a Map) in process.
 */
import { notJson } from "../../../src/engine/tool-boundary.js";

/**
 * Why `value` would not arrive as given once written as JSON, or `undefined`
 * when it would (`undefined` itself is fine: it is sent as nothing).
 *
 * @example
 * unsaidInJson({ refunded: 39 });      // undefined
 * unsaidInJson({ refunded: Number.NaN }); // 'NaN (at "refunded") is written as null'
 */
export function unsaidInJson(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  let found: string | undefined;
  try {
    // (the replacer sees each value as JSON writes it: a Date's toJSON first, then its text)
    JSON.stringify(value, function (this: unknown, key: string, v: unknown) {
      if (found === undefined && typeof v === "number" && !Number.isFinite(v))
        found = `${String(v)}${key === "" ? "" : ` (at ${JSON.stringify(key.slice(0, 100))})`} is written as null`;
      return v;
    });
  } catch {
    // (a BigInt, a cycle, a toJSON that throws: notJson below says which)
  }
  return found ?? notJson(value);
}
