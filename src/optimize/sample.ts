/**
 * A seeded choice of rows, the same for the same seed on every platform
 * (32-bit integer arithmetic only).
 */

/** A generator of numbers in [0, 1) from a seed (a 32-bit multiply-xorshift mix of a Weyl sequence). */
export function seeded(seed: number): () => number {
  const whole = Math.trunc(seed);
  // the bits above 32 are mixed in (0 below 2^32, so such seeds pick what they always did): kept to its low 32
  // bits, seeds 2^32 apart picked the same rows
  const high = Math.floor(whole / 4294967296);
  let state = ((whole >>> 0) ^ 0x5bd1e995 ^ Math.imul(high, 0x27d4eb2d)) >>> 0;
  return () => {
    state = (state + 0x9e3779b9) >>> 0;
    let x = state;
    x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
    x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
    x ^= x >>> 16;
    return (x >>> 0) / 4294967296;
  };
}

/** Up to `k` items, in a seeded random order (Fisher-Yates over a copy). */
export function sample<T>(items: readonly T[], k: number, seed: number): T[] {
  const random = seeded(seed);
  const copy = items.slice();
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy.slice(0, Math.max(0, k));
}
