import { describeValue, FunctaiError } from "../errors.js";
import { collapseWhiteSpace, normalizeText } from "./normalize.js";

/**
 * `exact_match`, and with several outputs compared, `<name>_match` for each.
 *
 * @example
 * const scores: MatchScores = exactMatch({ result: "Shipped" }, { result: " shipped " });
 * scores.exact_match; // 1 (white space and case folded)
 */
export type MatchScores = { exact_match: number } & Record<string, number>;

/** A number written as text (`"42"`, `" 1.0 "`), read by value; anything else is not a number. */
function numberIn(text: string): number | null {
  const trimmed = collapseWhiteSpace(text);
  if (trimmed === "" || !/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(trimmed)) return null;
  const n = Number(trimmed);
  return Number.isFinite(n) ? n : null;
}

/** An integer written as text (`"18446744073709551617"`, `" -7 "`), read exactly as a BigInt; anything else is none. */
function integerIn(text: string): bigint | null {
  const trimmed = collapseWhiteSpace(text);
  return /^[+-]?\d+$/.test(trimmed) ? BigInt(trimmed) : null;
}

/** A number or a BigInt (what DuckDB, or SQLite with safe integers, gives for an integer column). */
const isNumeric = (x: unknown): x is number | bigint => typeof x === "number" || typeof x === "bigint";

/** Two numbers by value, a BigInt and a number too (`42n` is `42`); NaN is no number's equal. */
// biome-ignore lint/suspicious/noDoubleEquals: only loose equality compares a BigInt with a number by value, exactly
const sameNumber = (a: number | bigint, b: number | bigint): boolean => a == b;

/**
 * The pairs of objects being compared, deeper calls under way: a pair met
 * again is a cycle (a record whose `parent` points back at it), taken as the
 * same (the rest of the walk decides). Followed, it ran until the stack did:
 * `compare` of copies of such rows threw a RangeError.
 */
type Walking = Map<object, Set<object>>;

/** Each item of `a` has an equal in `b` (a Set's items of data are other objects in a copy; a plain value is found as is). */
const within = (a: Set<unknown>, b: Set<unknown>, walking: Walking): boolean =>
  [...a].every((x) => b.has(x) || (typeof x === "object" && x !== null && [...b].some((y) => same(x, y, walking))));

/** Inside lists and objects nothing is folded: item by item, exactly (numbers by value). */
export function sameData(a: unknown, b: unknown): boolean {
  return same(a, b, new Map());
}

function same(a: unknown, b: unknown, walking: Walking): boolean {
  // as data, NaN is NaN (as a Date's NaN time is): rows read twice that hold NaN (an empty numeric cell) are the same rows
  if (a === b || (Number.isNaN(a) && Number.isNaN(b))) return true;
  if (typeof a === "bigint" || typeof b === "bigint") return isNumeric(a) && isNumeric(b) && sameNumber(a, b);
  // a date has no items: read item by item, any two were the same (a program's date answer, a row's date column)
  if (a instanceof Date || b instanceof Date) return a instanceof Date && b instanceof Date && Object.is(a.getTime(), b.getTime());
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  const met = walking.get(a);
  if (met?.has(b)) return true;
  if (met) met.add(b);
  else walking.set(a, new Set([b]));
  try {
    return sameItems(a, b, walking);
  } finally {
    walking.get(a)!.delete(b);
  }
}

/** Two objects' items, each pair compared with `same`. */
function sameItems(a: object, b: object, walking: Walking): boolean {
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => same(x, b[i], walking));
  }
  // a Map or a Set keeps its items out of its own keys: read as a record, any two were the same (and an empty record)
  if (a instanceof Map || b instanceof Map)
    return a instanceof Map && b instanceof Map && a.size === b.size && [...a].every(([k, v]) => b.has(k) && same(v, b.get(k), walking));
  if (a instanceof Set || b instanceof Set)
    return a instanceof Set && b instanceof Set && a.size === b.size && within(a, b, walking) && within(b, a, walking);
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  const bo = b as Record<string, unknown>;
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(bo, k) && same((a as Record<string, unknown>)[k], bo[k], walking));
}

/** One output: text folded, numbers by value (a number written as text, and a BigInt, too), lists and objects exactly. */
export function sameAnswer(expected: unknown, predicted: unknown): boolean {
  if (isNumeric(expected) || isNumeric(predicted)) {
    // beside a BigInt, an integer written as text is read exactly: as a double, one past 2^53 was rounded and a
    // BigInt did not match its own digits
    const exact = typeof expected === "bigint" || typeof predicted === "bigint";
    const read = (text: string): number | bigint | null => (exact ? (integerIn(text) ?? numberIn(text)) : numberIn(text));
    const a = typeof expected === "string" ? read(expected) : expected;
    const b = typeof predicted === "string" ? read(predicted) : predicted;
    return isNumeric(a) && isNumeric(b) && sameNumber(a, b);
  }
  if (typeof expected === "string" && typeof predicted === "string") return normalizeText(expected) === normalizeText(predicted);
  return sameData(expected, predicted);
}

/**
 * Compares a prediction's outputs with the expected ones. Only the outputs
 * `answers` names are compared (one holding `undefined` names none); with
 * several, `exact_match` is 1 only when all match, and each gets
 * `<name>_match` (but an output named `exact`,
 * whose score would be named like the whole row's).
 *
 * @example
 * exactMatch({ result: "new york" }, { result: "  New \t York\n" });   // { exact_match: 1 }
 * exactMatch({ summary: "Charged twice", result: "billing" }, { summary: "charged twice", result: "shipping" });
 * // { exact_match: 0, summary_match: 1, result_match: 0 }
 */
export function exactMatch(answers: Record<string, unknown>, prediction: Record<string, unknown>): MatchScores {
  // plain values would be read as records of their letters ("0", "1", …) and score nonsense
  for (const [which, value] of [
    ["answers", answers],
    ["prediction", prediction],
  ] as const)
    if (typeof value !== "object" || value === null || Array.isArray(value))
      throw new FunctaiError(
        "input-invalid",
        `exactMatch: ${which} is a record of outputs ({ result: … }), not ${Array.isArray(value) ? "a list" : describeValue(value)}`,
      );
  // an expected output that is undefined (an empty cell, `row.result` of a row without it) names no answer, as evaluate
  // reads a row's columns: compared, a prediction missing it too matched, and scored 1
  const names = Object.keys(answers).filter((name) => answers[name] !== undefined);
  if (names.length === 0)
    throw new FunctaiError(
      "input-invalid",
      `exactMatch: no expected output to compare (answers ${Object.keys(answers).length === 0 ? "is empty" : "holds only undefined"})`,
    );
  const each = names.map(
    (name) => [name, sameAnswer(answers[name], Object.hasOwn(prediction, name) ? prediction[name] : undefined) ? 1 : 0] as const,
  );
  const scores: Record<string, number> = { exact_match: each.every(([, s]) => s === 1) ? 1 : 0 };
  // a field named `exact` has no score of its own: named exact_match, it was written over the whole row's, the main
  // score (its match still counts in exact_match)
  if (names.length > 1) for (const [name, s] of each) if (name !== "exact") scores[`${name}_match`] = s;
  return scores as MatchScores;
}
