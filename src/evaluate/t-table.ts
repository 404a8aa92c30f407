/**
 * Student's t, 97.5% quantiles (two-sided 95%), as the contract's reference
 * takes them: the usual three-decimal table for 1–30 degrees of freedom,
 * then the Cornish-Fisher expansion (two terms) around the normal quantile.
 * The table is checked against a numeric inverse of the t distribution in
 * test/evaluate/t-table.test.ts.
 */

/** The normal distribution's 97.5% quantile, to the digits the contract fixes. */
export const Z_975 = 1.959964;

const TABLE = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
  2.201, 2.179, 2.16, 2.145, 2.131, 2.12, 2.11, 2.101, 2.093, 2.086,
  2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042,
] as const;

/** The 97.5% quantile of Student's t with `df` degrees of freedom (a whole number ≥ 1). */
export function tQuantile975(df: number): number {
  const tabulated = TABLE[df - 1];
  if (tabulated !== undefined) return tabulated;
  const z = Z_975;
  const g1 = (z ** 3 + z) / 4;
  const g2 = (5 * z ** 5 + 16 * z ** 3 + 3 * z) / 96;
  return z + g1 / df + g2 / df ** 2;
}
