/**
 * Figures to be divided by one another, measured in rounds: each round runs
 * every variant once, in turn, so load that comes and goes over a run falls
 * on all of them alike (a block of one variant's runs, then a block of the
 * next, turns a load change into a false ratio). Ratios are taken per
 * round, and their median and range reported (`spread` in measure.ts).
 *
 * No forced `gc()` between runs (see the rules in measure.ts), once before
 * the warm-up rounds only. A run may then collect the garbage of the run
 * before it: each round runs the variants in an order turned by one, so
 * every variant follows every other as often.
 */
import { performance } from "node:perf_hooks";
import { gc } from "./measure.js";

/** One variant of a round: `prepare` untimed, `run` timed (ms). */
export interface Variant<P> {
  prepare: () => P | Promise<P>;
  run: (p: P) => unknown | Promise<unknown>;
}

/** Each variant's times (ms), one per timed round, in round order. */
export async function interleaved<K extends string>(
  variants: Record<K, Variant<any>>,
  opts: { warmup: number; rounds: number },
): Promise<Record<K, number[]>> {
  const names = Object.keys(variants) as K[];
  const times = Object.fromEntries(names.map((k) => [k, [] as number[]])) as Record<K, number[]>;
  for (let r = 0; r < opts.warmup + opts.rounds; r++) {
    if (r === 0) gc();
    for (let i = 0; i < names.length; i++) {
      const k = names[(i + r) % names.length]!;
      const v = variants[k];
      const p = await v.prepare();
      const t0 = performance.now();
      await v.run(p);
      const ms = performance.now() - t0;
      if (r >= opts.warmup) times[k].push(ms);
    }
  }
  return times;
}
