/** The t table is the usual three-decimal one: each entry is the 97.5% quantile, computed here from the density, rounded. */
import { describe, expect, it } from "vitest";
import { tQuantile975 } from "../../src/evaluate/t-table.js";

/** ln Γ (Lanczos, g = 7): enough digits for a density's constant. */
function logGamma(x: number): number {
  const c = [0.9999999999998099, 676.5203681218851, -1259.1392167224028, 771.3234287776531, -176.61503916999186,
    12.507343278686905, -0.13857109526572012, 9.984369578019572e-6, 1.5056327351493116e-7];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const y = x - 1;
  let a = c[0]!;
  const t = y + 7.5;
  for (let i = 1; i < 9; i++) a += c[i]! / (y + i);
  return 0.5 * Math.log(2 * Math.PI) + (y + 0.5) * Math.log(t) - t + Math.log(a);
}

/** P(0 < T < x) for Student's t with `df` degrees of freedom, by Simpson's rule. */
function tMass(x: number, df: number): number {
  const k = Math.exp(logGamma((df + 1) / 2) - logGamma(df / 2)) / Math.sqrt(df * Math.PI);
  const f = (t: number): number => k * (1 + (t * t) / df) ** (-(df + 1) / 2);
  const n = 2_000;
  const h = x / n;
  let s = f(0) + f(x);
  for (let i = 1; i < n; i++) s += (i % 2 === 1 ? 4 : 2) * f(i * h);
  return (s * h) / 3;
}

/** The x with P(0 < T < x) = 0.475, by bisection. */
function quantile(df: number): number {
  let lo = 1;
  let hi = 20;
  for (let i = 0; i < 50; i++) {
    const mid = (lo + hi) / 2;
    if (tMass(mid, df) < 0.475) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

describe("t quantiles", () => {
  it("tabulates 1–30 degrees of freedom to three decimals", () => {
    for (let df = 1; df <= 30; df++) expect(Math.abs(tQuantile975(df) - quantile(df)), `df ${df}`).toBeLessThanOrEqual(0.0005 + 1e-9);
  });

  it("beyond 30, Cornish-Fisher lands near the true quantile and falls toward z", () => {
    for (const df of [31, 40, 60, 120]) expect(Math.abs(tQuantile975(df) - quantile(df)), `df ${df}`).toBeLessThan(1e-4);
    expect(tQuantile975(31)).toBeGreaterThan(tQuantile975(1000));
    expect(tQuantile975(1e9)).toBeCloseTo(1.959964, 6);
  });
});
