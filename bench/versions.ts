/**
 * Two versions of functai in one process, their runs alternating: the way
 * to tell a change of a few percent on a machine whose speed drifts more
 * than that between processes (separate runs minutes apart measure the
 * machine). Both checkouts' sources are loaded side by side (each its own
 * modules; zod and xstate shared), the same workload is run on each in turn,
 * the order turned each round, and the ratio taken within each round.
 * Run by hand (never part of `npm test` or `npm run bench`):
 *
 *   git worktree add /tmp/functai-base <rev>   # the version to compare with (node_modules: a link to this one's)
 *   ln -s "$PWD/node_modules" /tmp/functai-base/node_modules
 *   node --expose-gc --conditions=functai-source --import tsx bench/versions.ts --base=/tmp/functai-base --variant=step
 *
 * Variants: `step` (one turn of n `reads` tool steps on the memory store, µs
 * per step; `--n=1000` by default), `concurrent-memory` (CONCURRENT_TURNS
 * conversations each running a CONCURRENT_STEPS-step turn of changing tools
 * at once on one memory store, steps/s), `concurrent-fs` (the same on one
 * file store in a fresh temp folder), `resume` (bench/ours.ts's resume of
 * a 1,000-step turn waiting for an approval, from a copy of its file-store
 * journal, a gc() before each, ms), `turn` (200 conversations one after
 * another on one memory store, each one turn of `--n` reads steps, 0 by
 * default: µs per turn, what a turn costs besides its steps),
 * `postgres-turn` (one turn of `--n` changing-tool steps, 10 by default, on
 * `postgresStore` against the server .ci/postgres.sh finds or starts, each
 * version on a schema of its own: ms per turn). `--rounds=`
 * sets the timed rounds.
 * A second worktree of the same revision as base gives the method's own
 * noise (A/A; this checkout itself as base would share its modules).
 * Prints each version's median and the median of the per-round ratios
 * (this checkout ÷ base: below 1 is faster for times, above 1 for rates).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { CONCURRENT_STEPS, CONCURRENT_TURNS, FINAL_TEXT, QUESTION, RESUME_N, copyWaitingJournal, median, orderId, toolOutput } from "./lib/measure.js";

const arg = (name: string): string | undefined => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const here = dirname(dirname(fileURLToPath(import.meta.url)));
const base = arg("base");
if (base === undefined) throw new Error("bench/versions.ts: give --base=<another checkout of functai> (see the comment at its top)");
const variant = arg("variant") ?? "step";
const n = Number(arg("n") ?? 1000);

/** One timed run of the workload on one version: its figure. */
type Run = () => Promise<number>;
// biome-ignore lint/suspicious/noExplicitAny: each checkout's own module types; only the public API is used
type Api = { m: any; testing: any; node: any; postgres: () => Promise<any> };

const load = async (dir: string): Promise<Api> => ({
  m: await import(join(resolve(dir), "src/index.ts")),
  testing: await import(join(resolve(dir), "src/testing/index.ts")),
  node: await import(join(resolve(dir), "adapters/node-fs/index.ts")),
  postgres: () => import(join(resolve(dir), "adapters/postgres/index.ts")),
});

const steps = (count: number, last = "lookup_order") => [
  ...Array.from({ length: count }, (_, k) => ({ toolCalls: [{ id: `call_${k}`, name: k === count - 1 ? last : "lookup_order", input: { order_id: orderId(k) } }] })),
  FINAL_TEXT,
];

function stepRun({ m, testing }: Api): Run {
  const lookup = m.tool("lookup_order", { description: "The order.", input: { order_id: z.string() }, effects: "reads" }, ({ order_id }: { order_id: string }) => toolOutput(order_id));
  const fn = m.ai("answer", { description: "Answer.", input: { question: z.string() }, output: z.string(), tools: [lookup], maxSteps: n + 1 });
  let c = 0;
  return async () => {
    const chat = fn.conversation(`c${++c}`, { store: m.memoryStore(), lm: testing.scripted(steps(n)) });
    const t0 = performance.now();
    if ((await chat.send(QUESTION)) !== FINAL_TEXT) throw new Error("step: wrong answer");
    return ((performance.now() - t0) * 1000) / n;
  };
}

/** CONCURRENT_TURNS conversations at once on one store: a memory store, or a file store in a fresh temp folder (removed after the run, outside the timing). */
const concurrentRun =
  (onFiles: boolean) =>
  ({ m, testing, node }: Api): Run => {
    const update = m.tool("update_order", { description: "Mark the order.", input: { order_id: z.string() }, effects: "changes" }, ({ order_id }: { order_id: string }) => toolOutput(order_id));
    const fn = m.ai("answer", { description: "Answer.", input: { question: z.string() }, output: z.string(), tools: [update], maxSteps: CONCURRENT_STEPS + 1 });
    let round = 0;
    return async () => {
      const dir = onFiles ? mkdtempSync(join(tmpdir(), "functai-versions-conc-")) : undefined;
      const store = dir === undefined ? m.memoryStore() : node.fsStore(dir);
      const r = ++round;
      const chats = Array.from({ length: CONCURRENT_TURNS }, (_, i) => fn.conversation(`c${r}-${i}`, { store, lm: testing.scripted(steps(CONCURRENT_STEPS)) }));
      const t0 = performance.now();
      const answers: unknown[] = await Promise.all(chats.map((chat) => chat.send(QUESTION)));
      const rate = (CONCURRENT_TURNS * CONCURRENT_STEPS) / ((performance.now() - t0) / 1000);
      if (answers.some((a) => a !== FINAL_TEXT)) throw new Error("concurrent: wrong answer");
      await store.close?.();
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
      return rate;
    };
  };

/** TURNS conversations, one after another, each sending one turn of `--n` (default 0) reads steps: µs per turn (what a turn costs besides its steps). */
const TURNS = 200;
function turnRun({ m, testing }: Api): Run {
  const count = Number(arg("n") ?? 0);
  const lookup = m.tool("lookup_order", { description: "The order.", input: { order_id: z.string() }, effects: "reads" }, ({ order_id }: { order_id: string }) => toolOutput(order_id));
  const fn = m.ai("answer", { description: "Answer.", input: { question: z.string() }, output: z.string(), tools: [lookup], maxSteps: count + 1 });
  let c = 0;
  return async () => {
    const store = m.memoryStore();
    const t0 = performance.now();
    for (let i = 0; i < TURNS; i++) {
      const chat = fn.conversation(`c${++c}`, { store, lm: testing.scripted(steps(count)) });
      if ((await chat.send(QUESTION)) !== FINAL_TEXT) throw new Error("turn: wrong answer");
    }
    return ((performance.now() - t0) * 1000) / TURNS;
  };
}

const dirs: string[] = [];
async function resumeRun({ m, testing, node }: Api): Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), "functai-versions-"));
  dirs.push(dir);
  const lookup = m.tool("lookup_order", { description: "The order.", input: { order_id: z.string() }, effects: "reads" }, ({ order_id }: { order_id: string }) => toolOutput(order_id));
  const refund = m.tool("refund", { description: "Refund an order.", input: { order_id: z.string() }, effects: "changes" }, ({ order_id }: { order_id: string }) => ({ refunded: order_id }));
  const fn = m.ai("answer", { description: "Answer.", input: { question: z.string() }, output: z.string(), tools: [lookup, refund], maxSteps: RESUME_N + 1 });
  const seed = join(dir, "seed");
  try {
    await fn.conversation("c1", { store: node.fsStore(seed), approve: "changes", lm: testing.scripted(steps(RESUME_N, "refund")) }).send(QUESTION);
    throw new Error("resume: the turn did not wait for the refund");
  } catch (e) {
    if (!(e instanceof m.Waiting)) throw e;
  }
  let k = 0;
  return async () => {
    const copy = join(dir, `run-${k++}`);
    copyWaitingJournal(seed, copy, join(copy, "conversations", "c1.jsonl"));
    (globalThis as { gc?: () => void }).gc?.();
    const t0 = performance.now();
    const chat = fn.conversation("c1", { store: node.fsStore(copy), approve: "changes", lm: testing.scripted([FINAL_TEXT]) });
    const turn = (await chat.turns()).at(-1);
    if ((await turn.approve({ by: "bench" })) !== FINAL_TEXT) throw new Error("resume: wrong answer");
    const ms = performance.now() - t0;
    rmSync(copy, { recursive: true, force: true });
    return ms;
  };
}

/** What the runs leave behind (a Postgres schema, a store to close), undone at the end. */
const cleanups: (() => Promise<void>)[] = [];
let schemas = 0;

/**
 * One turn of `--n` (default 10) changing-tool steps on `postgresStore`, a
 * new conversation each run, on the server .ci/postgres.sh finds or starts
 * (each version its own schema, dropped at the end): ms per turn.
 */
async function postgresTurnRun({ m, testing, postgres }: Api): Promise<Run> {
  const count = Number(arg("n") ?? 10);
  const url = execFileSync(join(here, ".ci/postgres.sh"), [], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }).trim();
  const schema = `versions_${process.pid}_${++schemas}`;
  const store = (await postgres()).postgresStore({ connectionString: url }, { schema });
  cleanups.push(async () => {
    await store.close();
    const { default: pg } = await import("pg");
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).finally(() => client.end());
  });
  const update = m.tool("update_order", { description: "Mark the order.", input: { order_id: z.string() }, effects: "changes" }, ({ order_id }: { order_id: string }) => toolOutput(order_id));
  const fn = m.ai("answer", { description: "Answer.", input: { question: z.string() }, output: z.string(), tools: [update], maxSteps: count + 1 });
  let c = 0;
  return async () => {
    const chat = fn.conversation(`c${++c}`, { store, lm: testing.scripted(steps(count)) });
    const t0 = performance.now();
    if ((await chat.send(QUESTION)) !== FINAL_TEXT) throw new Error("postgres-turn: wrong answer");
    return performance.now() - t0;
  };
}

const workloads: Record<string, { make: (api: Api) => Run | Promise<Run>; unit: string; warmup: number; rounds: number }> = {
  step: { make: stepRun, unit: "µs/step", warmup: 5, rounds: 40 },
  turn: { make: turnRun, unit: "µs/turn", warmup: 10, rounds: 40 },
  "concurrent-memory": { make: concurrentRun(false), unit: "steps/s", warmup: 8, rounds: 30 },
  "concurrent-fs": { make: concurrentRun(true), unit: "steps/s", warmup: 4, rounds: 20 },
  resume: { make: resumeRun, unit: "ms", warmup: 3, rounds: 15 },
  "postgres-turn": { make: postgresTurnRun, unit: "ms/turn", warmup: 30, rounds: 60 },
};
const w = workloads[variant];
if (!w) throw new Error(`bench/versions.ts: no variant ${variant} (${Object.keys(workloads).join(", ")})`);
const rounds = Number(arg("rounds") ?? w.rounds);

try {
  const [a, b] = [await w.make(await load(base)), await w.make(await load(here))];
  for (let i = 0; i < w.warmup; i++) {
    await a();
    await b();
  }
  const as: number[] = [];
  const bs: number[] = [];
  const ratios: number[] = [];
  for (let r = 0; r < rounds; r++) {
    // the order turned each round: neither version always runs second
    const [x, y] = r % 2 === 0 ? [await a(), await b()] : [await b(), await a()].reverse();
    as.push(x!);
    bs.push(y!);
    ratios.push(y! / x!);
  }
  const shown = (x: number) => x.toFixed(w.unit === "steps/s" ? 0 : 1);
  console.log(
    `${variant}${variant === "step" || (variant === "turn" && arg("n") !== undefined) ? ` n=${n}` : ""}, ${rounds} rounds: base ${shown(median(as))} ${w.unit}, this checkout ${shown(median(bs))} ${w.unit}; ` +
      `this ÷ base, median of the rounds: ${median(ratios).toFixed(3)} (rounds ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`,
  );
} finally {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  for (const undo of cleanups) await undo();
}
