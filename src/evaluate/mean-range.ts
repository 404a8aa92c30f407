import { describeValue, FunctaiError } from "../errors.js";
import { tQuantile975, Z_975 } from "./t-table.js";

/**
 * A mean and its 95% range; `null` where there is none.
 *
 * @example
 * const { mean, low, high }: MeanRange = meanRange([1, 0, 1, 1]);
 * console.log(`${mean} (95%: ${low}–${high})`);
 */
export interface MeanRange {
  mean: number | null;
  low: number | null;
  high: number | null;
}

/**
 * A power of two that brings values far from 1 near it, or 1 (values within
 * 2^±256 are summed and squared as they are, so their bits are the same as
 * ever). Summed as they were, scores near 1e308 gave a mean of Infinity;
 * squared, scores near 1e200 gave an infinite range and scores near
 * 1e-200 one of no width. Scaling by a power of two is exact.
 */
function scaleOf(values: readonly number[]): number {
  const largest = values.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
  // (an infinite value, a difference of two scores past the doubles in compare, is left as it is)
  if (largest === 0 || !Number.isFinite(largest) || (largest <= 2 ** 256 && largest >= 2 ** -256)) return 1;
  return 2 ** Math.floor(Math.log2(largest));
}

/**
 * The mean of finite values (summed scaled, so it cannot overflow when the mean itself is a double). Values all
 * the same have that mean, exactly: summed, ten scores of 0.1 had a mean of 0.09999999999999999, and a range
 * around it with a width (0.09999999999999998–0.1) where the scores have no spread at all.
 */
export function meanOf(values: readonly number[]): number {
  if (values.length > 0 && values.every((v) => v === values[0])) return values[0]! === 0 ? 0 : values[0]!;
  const scale = scaleOf(values);
  return (values.reduce((a, b) => a + b / scale, 0) / values.length) * scale;
}

/** Wilson's interval for a share of rows right, clamped to [0, 1]: exactly 0 below when none is right, exactly 1 above when all are. */
function wilson(values: readonly number[]): MeanRange {
  const n = values.length;
  const right = values.filter((v) => v === 1).length;
  const p = right / n;
  const z2 = Z_975 * Z_975;
  const denominator = 1 + z2 / n;
  const center = (p + z2 / (2 * n)) / denominator;
  const half = (Z_975 * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denominator;
  return {
    mean: p,
    low: right === 0 ? 0 : Math.max(0, center - half),
    high: right === n ? 1 : Math.min(1, center + half),
  };
}

/** Student's t with n − 1 degrees of freedom around the mean (n ≥ 2). */
export function tRange(values: readonly number[]): MeanRange {
  const n = values.length;
  const m = meanOf(values);
  if (n < 2) return { mean: n === 0 ? null : m, low: null, high: null };
  // the spread of the scaled values (see scaleOf), scaled back
  const scale = scaleOf(values);
  const variance = values.reduce((a, v) => a + (v / scale - m / scale) ** 2, 0) / (n - 1);
  const half = tQuantile975(n - 1) * Math.sqrt(variance / n) * scale;
  return { mean: m, low: m - half, high: m + half };
}

/**
 * A refused value, named: JSON.stringify threw on a BigInt (a TypeError
 * instead of the refusal), and named a function or a symbol "undefined".
 */
function refused(value: unknown): string {
  if (typeof value === "number") return String(value);
  if (typeof value === "bigint") return `the BigInt ${value}n (Number(value) reads it as a number)`;
  if (typeof value === "function" || typeof value === "symbol") return `a ${typeof value}`;
  return describeValue(value, 80);
}

/**
 * The mean of some scores and its 95% range. No values: all `null`; one
 * value: the mean and no range; values all 0 or 1: Wilson's interval;
 * otherwise Student's t.
 *
 * @example
 * meanRange([1, 1, 0, 1, 1, 0, 1, 1, 0, 1]);   // { mean: 0.7, low: 0.3968…, high: 0.8922… }
 * meanRange([0.2, 0.9, 0.5, 0.7]);             // { mean: 0.575, low: 0.0999…, high: 1.0501… }
 */
export function meanRange(values: readonly number[]): MeanRange {
  if (!Array.isArray(values)) throw new FunctaiError("input-invalid", `meanRange takes a list of numbers, not ${typeof values}`);
  // a NaN or an infinity would make every bound NaN: refused, naming the value
  const bad = values.findIndex((v) => typeof v !== "number" || !Number.isFinite(v));
  if (bad >= 0)
    throw new FunctaiError(
      "input-invalid",
      `meanRange: value ${bad + 1} is ${refused(values[bad])}, not a finite number`,
    );
  if (values.length === 0) return { mean: null, low: null, high: null };
  // (a -0 is 0: JSON writes it so, and a mean saved and read back is the same)
  if (values.length === 1) return { mean: values[0]! === 0 ? 0 : values[0]!, low: null, high: null };
  return values.every((v) => v === 0 || v === 1) ? wilson(values) : tRange(values);
}
