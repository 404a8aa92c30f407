/**
 * Runner side: paired rounds. The main figures of ours and of a peer come
 * from variants run minutes apart (each file in its turn), and this
 * machine's speed drifts over a run (bench/README.md): the ratio of two
 * figures taken far apart measures that drift as well. A paired round runs
 * ours and each peer's variant one process after another, in an order
 * turned by one each round, and the ratio (fastest SDK ÷ ours, for a cost)
 * is taken within each round; its median and range over the rounds are
 * reported.
 */
import { join } from "node:path";
import { runChild } from "./child.js";
import { spread } from "./measure.js";

export interface Pairing {
  /** The id --filter/--skip match, e.g. `pairs:step-200`. */
  id: string;
  /** A cost (lower is better) every contender reports. */
  metric: string;
  /** The step counts whose figures are paired. */
  ns: readonly number[];
  rounds: number;
  /** `file:variant` (relative to bench/), ours first. */
  contenders: readonly string[];
  /** Set for every contender's process (which figures it measures). */
  env: Record<string, string>;
  /** What one contender's run is, for the detail. */
  how: string;
}

/** Each sample name's figure at each n, per round (null: that round's run failed). */
export type Figures = Map<string, Map<number, (number | null)[]>>;

export interface Paired {
  pairing: Pairing;
  figures: Figures;
  failures: { file: string; variant: string; why: string }[];
}

/** Runs the rounds, one child process at a time, printing each round's figures. */
export async function runPairs(pairing: Pairing, benchDir: string, cwd: string, fmt: (x: number) => string): Promise<Paired> {
  const { rounds, contenders, ns, metric } = pairing;
  const figures: Figures = new Map();
  const failures: Paired["failures"] = [];
  const slot = (name: string, n: number) => {
    let byN = figures.get(name);
    if (!byN) figures.set(name, (byN = new Map()));
    let xs = byN.get(n);
    if (!xs) byN.set(n, (xs = Array.from({ length: rounds }, () => null)));
    return xs;
  };
  console.log(`- ${pairing.id}: ${rounds} rounds of ${contenders.join(", ")}`);
  for (let r = 0; r < rounds; r++) {
    const line: string[] = [];
    for (let i = 0; i < contenders.length; i++) {
      const id = contenders[(i + r) % contenders.length]!;
      const [file, variant] = id.split(":") as [string, string];
      const out = await runChild(join(benchDir, file), [`--variant=${variant}`], { cwd, echo: false, env: pairing.env });
      const got = out.ok ? out.samples.filter((s) => s.metric === metric && s.n !== null && ns.includes(s.n)) : [];
      if (got.length === 0) {
        failures.push({ file, variant: `${pairing.id} round ${r + 1}`, why: `exit ${out.code ?? out.signal}: ${out.stderrTail.split("\n").slice(-4).join("\n")}` });
        line.push(`${id} FAILED`);
      }
      for (const s of got) {
        slot(s.name, s.n!)[r] = s.value;
        line.push(`${s.name} n=${s.n} ${fmt(s.value)}`);
      }
    }
    console.log(`    round ${r + 1}: ${line.join(", ")}`);
  }
  return { pairing, figures, failures };
}

/** A paired metric at one n, as the row's detail and results.meta.json keep it. */
export interface PairedDetail {
  how: string;
  figures: Record<string, (number | null)[] | null>;
  fastest_per_round: (string | null)[];
  /** Fastest SDK ÷ ours, per round (null: no round had both). */
  ratio: ReturnType<typeof spread> | null;
}

/** At one n: every figure, which SDK was fastest in each round, and its figure ÷ ours per round. */
export function pairedDetail(paired: Paired, n: number, isFloor: (name: string) => boolean): PairedDetail | null {
  const { pairing, figures } = paired;
  const ours = figures.get("ours")?.get(n);
  if (!ours) return null;
  const sdks = [...figures.keys()].filter((k) => k !== "ours" && !isFloor(k));
  const ratios: number[] = [];
  const fastest: (string | null)[] = [];
  for (let r = 0; r < pairing.rounds; r++) {
    const mine = ours[r];
    const theirs = sdks
      .map((k) => [k, figures.get(k)?.get(n)?.[r]] as const)
      .filter((x): x is readonly [string, number] => typeof x[1] === "number");
    if (typeof mine !== "number" || mine <= 0 || theirs.length === 0) {
      fastest.push(null);
      continue;
    }
    const best = theirs.reduce((a, b) => (b[1] < a[1] ? b : a));
    fastest.push(best[0]);
    ratios.push(best[1] / mine);
  }
  return {
    how: `${pairing.rounds} rounds; each ran ${pairing.contenders.join(", ")} (${pairing.how}) one process after another, the order turned by one each round; ratio = fastest SDK ÷ ours within each round`,
    figures: Object.fromEntries([...figures].map(([name, byN]) => [name, byN.get(n) ?? null])),
    fastest_per_round: fastest,
    ratio: ratios.length > 0 ? spread(ratios, 2) : null,
  };
}
