/**
 * `npm run bench`: every benchmark file, each variant in a process of its
 * own, one after another (never two at once), and paired rounds of ours and
 * the peers (lib/pairs.ts), then one table with ratios,
 * written to bench/results.json as `[{ metric, n, unit, ours, peers }]`
 * (plus `best_peer`, `ratio`, `detail`), and the run's setting (versions,
 * machine, load, failures) to bench/results.meta.json.
 *
 *   npm run bench                       everything
 *   npm run bench -- --filter=langgraph only files/variants whose "file:variant" contains a filter (comma-separated)
 *   npm run bench -- --skip=resume      leave out those that contain a skip
 *   npm run bench -- --no-write         print only
 *   npm run bench -- --out=/tmp/x       write the results there, not over bench/results.json
 *
 * Our side comes from bench/ours.ts. When it is missing or fails, the table
 * says "ours: not measured" and `ours` is null: no number is ever made up.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { runChild } from "./lib/child.js";
import { LONG_N, PG_RULE_FLOOR, STEP_NS, STEP_RUNS, type Sample } from "./lib/measure.js";
import { pairedDetail, runPairs, type Paired, type PairedDetail, type Pairing } from "./lib/pairs.js";

const here = dirname(fileURLToPath(import.meta.url));
const root = dirname(here);

/** Files run, in order. `floor` columns are not SDKs: they never count as the best peer. */
const PEER_FILES = [
  "peers/baseline.ts",
  "peers/vercel-ai.ts",
  "peers/openai-agents.ts",
  "peers/langgraph.ts",
];
/** Our side: every file reports `ours` figures (one line per file). */
const OURS_FILES = [
  "ours.ts",
  "ours-concurrent.ts",
  "evaluate.ts",
];
/**
 * Run last: its 8-process variant leaves the PostgreSQL server busy for a
 * while after it (checkpoint, vacuum), on the same two cores, and whatever
 * ran next was measured on a loaded machine (the runner saw load 15 there).
 */
const LAST_FILES = ["postgres.ts"];
/**
 * Paired rounds (lib/pairs.ts): ours and each SDK one process after another,
 * the ratio taken within each round, after our files: per-step at n=200,
 * then the Postgres durable overhead (ours without its pgbench part,
 * LangGraph's PostgresSaver).
 */
const STEP_PAIRING: Pairing = {
  id: "pairs:step-200",
  metric: "overhead_per_tool_step_us",
  ns: [200],
  rounds: 5,
  contenders: ["ours.ts:step", "peers/vercel-ai.ts:step", "peers/openai-agents.ts:step", "peers/langgraph.ts:step"],
  env: { FUNCTAI_BENCH_STEP_N: "200" },
  how: `each its n=200 series only, the main figures' warm-up and ${STEP_RUNS} runs`,
};
const POSTGRES_PAIRING: Pairing = {
  id: "pairs:postgres-durable",
  metric: "postgres_durable_overhead_per_changing_tool_us",
  ns: STEP_NS,
  rounds: 3,
  contenders: ["postgres.ts:ours", "postgres.ts:langgraph"],
  env: { FUNCTAI_BENCH_PG_DURABLE_ONLY: "1" },
  how: "each its durable overhead at n = 200 and 50 as in the main figures, ours without the pgbench part",
};
const FLOORS = new Set(["plain loop", "bare append+fsync", "bare append+fsync (sync API)", "bare append+fsync writers", "floor", "bare insert+commit", PG_RULE_FLOOR]);

/** Metric order and direction (lower is better unless listed as a rate). */
const METRICS = [
  "overhead_per_tool_step_us",
  "durable_overhead_per_changing_tool_us",
  "flushes_per_changing_tool",
  "durable_overhead_per_step_reading_tool_us",
  "flushes_per_step_reading_tool",
  "bare_append_fsync_us",
  "journal_bytes_100_steps",
  "journal_bytes_200_steps",
  "resume_1000_steps_ms",
  "stream_events_per_s",
  "stream_tool_step_events_per_s",
  "open_10k_turn_conversation_ms",
  "open_10k_turn_conversation_peak_rss_mib",
  "open_10k_turn_conversation_heap_mib",
  "evaluate_1000_rows_ms",
  "concurrent_durable_steps_per_s",
  "concurrent_heap_per_turn_kb",
  "concurrent_memory_steps_per_s",
  "concurrent_memory_heap_per_turn_kb",
  "postgres_durable_overhead_per_changing_tool_us",
  "postgres_append_server_side_us",
  "postgres_concurrent_steps_per_s",
];
const HIGHER_IS_BETTER = new Set(["stream_events_per_s", "stream_tool_step_events_per_s", "concurrent_durable_steps_per_s", "concurrent_memory_steps_per_s", "postgres_concurrent_steps_per_s"]);
/** Rows that are a floor only: ours has no figure there by design. */
const OURS_NOT_APPLICABLE = new Set(["bare_append_fsync_us"]);

interface Row {
  metric: string;
  n: number | null;
  unit: string;
  ours: number | null;
  peers: Record<string, number>;
  best_peer: string | null;
  /** best peer ÷ ours for costs, ours ÷ best peer for rates: above 1, ours is better. */
  ratio: number | null;
  detail: Record<string, unknown>;
}

const args = process.argv.slice(2);
const listArg = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3).split(",").filter(Boolean) ?? [];
const filters = listArg("filter");
const skips = listArg("skip");
const write = !args.includes("--no-write");
/** `--out=DIR`: results.json and results.meta.json go there instead of bench/ (a partial run that must not replace the full table). */
const outDir = args.find((a) => a.startsWith("--out="))?.slice("--out=".length) ?? here;
const wanted = (id: string) => (filters.length === 0 || filters.some((f) => id.includes(f))) && !skips.some((s) => id.includes(s));

const samples: Sample[] = [];
const failures: { file: string; variant: string; why: string }[] = [];
type OursStatus = "measured" | "missing" | "failed" | "partly failed" | "not run";
/** One status per file of ours; `oursStatus` sums them up. */
const oursStatuses: OursStatus[] = [];
let oursStatus = "not run" as OursStatus;
const load: { at: string; loadavg1: number }[] = [];
const t0 = Date.now();

async function runFile(file: string, isOurs: boolean): Promise<void> {
  const abs = join(here, file);
  const label = file.replace(/\.ts$/, "");
  if (!existsSync(abs)) {
    if (isOurs) oursStatuses.push("missing");
    console.log(`- ${label}: missing`);
    return;
  }
  const list = await runChild(abs, ["--list"], { timeoutMs: 120_000, cwd: root });
  const variants = (list.other.find((o): o is { variants: string[] } => typeof o === "object" && o !== null && "variants" in o))?.variants;
  if (!list.ok || !variants) {
    const why = `could not load: exit ${list.code ?? list.signal}\n${list.stderrTail.split("\n").slice(-12).join("\n")}`;
    failures.push({ file, variant: "(load)", why });
    if (isOurs) oursStatuses.push("failed");
    console.log(`- ${label}: ${why.replace(/\n/g, "\n    ")}`);
    return;
  }
  let ran = 0;
  let failed = 0;
  for (const v of variants) {
    const id = `${label}:${v}`;
    if (!wanted(id)) continue;
    ran++;
    load.push({ at: id, loadavg1: loadavg()[0]! });
    process.stdout.write(`- ${id} … `);
    const out = await runChild(abs, [`--variant=${v}`], { cwd: root, echo: false });
    samples.push(...out.samples);
    if (out.ok && out.samples.length === 0) {
      // a variant that exits cleanly yet measured nothing (no server, no pgbench, a figure it refused) is not a success
      failed++;
      const why = `exit 0 but no figure: ${out.stderrTail.split("\n").slice(-4).join("\n") || "(nothing on stderr)"}`;
      failures.push({ file, variant: v, why });
      console.log(`NO FIGURE (${(out.ms / 1000).toFixed(1)} s)\n    ${why.replace(/\n/g, "\n    ")}`);
    } else if (!out.ok) {
      failed++;
      const why = `exit ${out.code ?? out.signal}: ${out.stderrTail.split("\n").slice(-8).join("\n")}`;
      failures.push({ file, variant: v, why });
      console.log(`FAILED (${(out.ms / 1000).toFixed(1)} s)\n    ${why.replace(/\n/g, "\n    ")}`);
    } else {
      console.log(`${out.samples.length} figure(s), ${(out.ms / 1000).toFixed(1)} s`);
    }
  }
  if (isOurs && ran > 0) oursStatuses.push(failed === 0 ? "measured" : failed === ran ? "failed" : "partly failed");
}

const pairedRuns: Paired[] = [];

async function runPairing(pairing: Pairing): Promise<void> {
  if (!wanted(pairing.id)) return;
  load.push({ at: pairing.id, loadavg1: loadavg()[0]! });
  const paired = await runPairs(pairing, here, root, fmt);
  failures.push(...paired.failures);
  pairedRuns.push(paired);
}

/** Each paired metric and n with its detail (lib/pairs.ts). */
function pairedDetails(): { metric: string; n: number; detail: PairedDetail }[] {
  return pairedRuns.flatMap((p) =>
    p.pairing.ns.flatMap((n) => {
      const detail = pairedDetail(p, n, (name) => FLOORS.has(name));
      return detail ? [{ metric: p.pairing.metric, n, detail }] : [];
    }),
  );
}

function versionOf(pkg: string): string | null {
  try {
    return (JSON.parse(readFileSync(join(root, "node_modules", pkg, "package.json"), "utf8")) as { version: string }).version;
  } catch {
    return null;
  }
}

/** Which code was measured: HEAD, and how many files under src/ and adapters/ differed from it (uncommitted work). */
function provenance(): { head: string | null; uncommitted_engine_files: number | null } {
  try {
    const head = execFileSync("git", ["rev-parse", "HEAD"], { cwd: root, encoding: "utf8" }).trim();
    const dirty = execFileSync("git", ["status", "--porcelain", "--", "src", "adapters"], { cwd: root, encoding: "utf8" }).split("\n").filter(Boolean).length;
    return { head, uncommitted_engine_files: dirty };
  } catch {
    return { head: null, uncommitted_engine_files: null };
  }
}
const measuredCode = provenance();

/** A row's place in results.json: its metric and n. */
const rowKey = (r: { metric: string; n: number | null }): string => `${r.metric}@${r.n ?? "-"}`;

/**
 * What a partial run writes beside: the rows and setting already in `dir`
 * (none: it writes its own alone). A file there that does not read as rows
 * stops the run before it writes over it: those figures are not ours to lose.
 */
function readEarlier(dir: string): { rows: Record<string, unknown>[]; meta: Record<string, unknown> | null } | null {
  const file = join(dir, "results.json");
  if (!existsSync(file)) return null;
  const rows = JSON.parse(readFileSync(file, "utf8")) as unknown;
  if (!Array.isArray(rows) || !rows.every((r) => typeof r?.metric === "string"))
    throw new Error(`${file} does not hold rows of results: move it away (or give --out=) before a partial run writes there`);
  const metaFile = join(dir, "results.meta.json");
  const meta = existsSync(metaFile) ? (JSON.parse(readFileSync(metaFile, "utf8")) as Record<string, unknown>) : null;
  return { rows: rows as Record<string, unknown>[], meta };
}

/** The earlier rows with those this run measured in their place (new ones at the end). */
function mergeRows(earlier: Record<string, unknown>[], measured: Row[]): unknown[] {
  const now = new Map(measured.map((r) => [rowKey(r), r]));
  const merged: unknown[] = earlier.map((r) => {
    const key = rowKey(r as { metric: string; n: number | null });
    const fresh = now.get(key);
    now.delete(key);
    return fresh ?? r;
  });
  return [...merged, ...now.values()];
}

function buildRows(): Row[] {
  const byKey = new Map<string, Row>();
  const key = (m: string, n: number | null) => `${m}@${n ?? "-"}`;
  // one figure per metric, n and column: two would leave whichever came last in the table, unsaid, so neither is kept
  const cell = (s: Sample) => `${key(s.metric, s.n)} ${s.name}`;
  const seen = new Map<string, number>();
  for (const s of samples) seen.set(cell(s), (seen.get(cell(s)) ?? 0) + 1);
  for (const [what, count] of seen)
    if (count > 1) failures.push({ file: "run.ts", variant: `(duplicate) ${what}`, why: `${count} figures reported for ${what}: none is kept` });
  for (const s of samples) {
    const k = key(s.metric, s.n);
    if (seen.get(cell(s))! > 1) continue;
    let row = byKey.get(k);
    if (!row) {
      row = { metric: s.metric, n: s.n, unit: s.unit, ours: null, peers: {}, best_peer: null, ratio: null, detail: {} };
      byKey.set(k, row);
    }
    if (s.name === "ours") row.ours = s.value;
    else row.peers[s.name] = s.value;
    if (s.detail) row.detail[s.name] = s.detail;
  }
  // durable overhead: the floor is one bare append+fsync per changing tool,
  // and LangGraph's durable checkpointer minus its in-memory one, per step.
  const fsync = [...byKey.values()].find((r) => r.metric === "bare_append_fsync_us")?.peers["bare append+fsync"];
  // (at the step counts the durable figures are measured at: not at the long turn)
  const durableNs = samples.filter((s) => (s.metric === "durable_overhead_per_changing_tool_us" || s.metric === "overhead_per_tool_step_us") && s.n !== LONG_N).map((s) => s.n);
  for (const n of new Set(durableNs)) {
    const step = byKey.get(key("overhead_per_tool_step_us", n));
    const full = step?.peers["langgraph (SqliteSaver, sync=FULL)"];
    const mem = step?.peers["langgraph (MemorySaver)"];
    if (fsync === undefined && (full === undefined || mem === undefined)) continue;
    const k = key("durable_overhead_per_changing_tool_us", n);
    let row = byKey.get(k);
    if (!row) {
      row = { metric: "durable_overhead_per_changing_tool_us", n, unit: "us", ours: null, peers: {}, best_peer: null, ratio: null, detail: {} };
      byKey.set(k, row);
    }
    if (fsync !== undefined && row.peers["bare append+fsync"] === undefined) {
      // (only where the durable bench did not measure its own, in the same rounds)
      row.peers["bare append+fsync"] = fsync;
      row.detail["bare append+fsync"] = { derived: "bare_append_fsync_us of this run: the floor, one flush per changing tool" };
    }
    // (two medians from processes minutes apart: a difference at or below 0 is their drift, not an overhead, and is not shown)
    if (full !== undefined && mem !== undefined && full <= mem)
      failures.push({ file: "run.ts", variant: `(derived) durable_overhead_per_changing_tool_us@${n} langgraph`, why: `SqliteSaver sync=FULL (${full}) not above MemorySaver (${mem}): no overhead to show` });
    else if (full !== undefined && mem !== undefined) {
      row.peers["langgraph (SqliteSaver, sync=FULL)"] = Math.round((full - mem) * 1000) / 1000;
      row.detail["langgraph (SqliteSaver, sync=FULL)"] = { derived: `overhead_per_tool_step_us at n=${n}: SqliteSaver sync=FULL (${full}) minus MemorySaver (${mem}); LangGraph has no effects, every step is checkpointed` };
    }
  }
  for (const flushes of [...byKey.values()].filter((r) => r.metric === "flushes_per_changing_tool")) {
    flushes.peers["floor"] = 1;
    flushes.detail["floor"] = { derived: "DESIGN.md: the cost floor is one flush per changing tool call" };
  }
  // a reading tool: the floor is one bare append+fsync per step (the flush before each paid model call)
  const readingNs = samples.filter((s) => s.metric === "durable_overhead_per_step_reading_tool_us").map((s) => s.n);
  for (const row of readingNs.map((n) => byKey.get(key("durable_overhead_per_step_reading_tool_us", n))))
    if (row && fsync !== undefined && row.peers["bare append+fsync"] === undefined) {
      row.peers["bare append+fsync"] = fsync;
      row.detail["bare append+fsync"] = { derived: "bare_append_fsync_us of this run: the floor, one flush per reading-tool step (before its paid model call)" };
    }
  for (const flushes of [...byKey.values()].filter((r) => r.metric === "flushes_per_step_reading_tool" && r.n !== null)) {
    flushes.peers["floor"] = Math.round(((flushes.n! + 2) / flushes.n!) * 1000) / 1000;
    flushes.detail["floor"] = { derived: "DESIGN.md: one flush per step (before each paid model call), plus the turn's start and end: (n + 2) ÷ n" };
  }
  for (const p of pairedDetails()) {
    const row = byKey.get(key(p.metric, p.n));
    if (row) row.detail["paired rounds"] = p.detail;
  }
  const order = (m: string) => (METRICS.indexOf(m) < 0 ? METRICS.length : METRICS.indexOf(m));
  const rows = [...byKey.values()].sort((a, b) => order(a.metric) - order(b.metric) || (a.n ?? 0) - (b.n ?? 0));
  for (const r of rows) {
    const sdk = Object.entries(r.peers).filter(([name]) => !FLOORS.has(name));
    if (sdk.length === 0) continue;
    const higher = HIGHER_IS_BETTER.has(r.metric);
    const [bestName, best] = sdk.reduce((a, b) => ((higher ? b[1] > a[1] : b[1] < a[1]) ? b : a));
    r.best_peer = bestName;
    if (r.ours !== null && r.ours > 0 && best > 0) r.ratio = Math.round((higher ? r.ours / best : best / r.ours) * 100) / 100;
  }
  return rows;
}

function fmt(x: number | null | undefined): string {
  if (x === null || x === undefined) return "—";
  if (Math.abs(x) >= 1e6) return x.toExponential(2);
  if (Math.abs(x) >= 1000) return Math.round(x).toLocaleString("en-US");
  if (Math.abs(x) >= 10) return x.toFixed(1);
  return x.toFixed(3).replace(/\.?0+$/, "") || "0";
}

function table(rows: Row[]): string {
  const peerNames: string[] = [];
  for (const r of rows) for (const p of Object.keys(r.peers)) if (!peerNames.includes(p)) peerNames.push(p);
  const head = ["metric", "n", "unit", "ours", ...peerNames, "best peer", "ratio"];
  const body = rows.map((r) => [
    r.metric, r.n === null ? "" : String(r.n), r.unit, r.ours === null ? (OURS_NOT_APPLICABLE.has(r.metric) ? "n/a" : "not measured") : fmt(r.ours),
    ...peerNames.map((p) => fmt(r.peers[p])), r.best_peer ?? "", r.ratio === null ? "" : `${r.ratio}×`,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => "| " + cells.map((c, i) => (i < 3 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(" | ") + " |";
  return [line(head), "|" + widths.map((w, i) => (i < 3 ? "-".repeat(w + 2) : "-".repeat(w + 1) + ":")).join("|") + "|", ...body.map(line)].join("\n");
}

/**
 * Under the table: each per-step figure's median with its spread (min–max
 * per step over the runs), and n=1000 ÷ n=50 per SDK (flat is 1); each
 * concurrency rate ÷ the bare writers' rate of the same run.
 */
function spreads(rows: Row[]): string {
  const out: string[] = [];
  const steps = rows.filter((r) => r.metric === "overhead_per_tool_step_us");
  const names = [...new Set(steps.flatMap((r) => [...(r.ours === null ? [] : ["ours"]), ...Object.keys(r.peers)]))];
  if (steps.length > 0) out.push("\noverhead_per_tool_step_us, median (min–max; median CPU time) µs per step, and n=1000 ÷ n=50 (wall; CPU):");
  for (const name of names) {
    const at = (n: number) => steps.find((r) => r.n === n);
    const value = (r: Row | undefined) => (r === undefined ? undefined : name === "ours" ? r.ours ?? undefined : r.peers[name]);
    const cells = steps.map((r) => {
      const v = value(r);
      const d = r.detail[name] as { min_us?: number; max_us?: number; cpu_us?: number } | undefined;
      return v === undefined ? null : `n=${r.n}: ${fmt(v)} (${fmt(d?.min_us)}–${fmt(d?.max_us)}; cpu ${fmt(d?.cpu_us)})`;
    });
    const v50 = value(at(50));
    const v1000 = value(at(1000));
    const skipped = (at(200)?.detail[name] as { n1000_skipped?: string } | undefined)?.n1000_skipped;
    const cpu = (r: Row | undefined) => (r?.detail[name] as { cpu_us?: number } | undefined)?.cpu_us;
    const cpu50 = cpu(at(50));
    const cpu1000 = cpu(at(1000));
    const cpuRatio = cpu50 !== undefined && cpu1000 !== undefined ? `; ${(cpu1000 / cpu50).toFixed(2)}` : "";
    const ratio = v50 !== undefined && v1000 !== undefined ? `n1000/n50 = ${(v1000 / v50).toFixed(2)}${cpuRatio}` : skipped ? `n=1000 skipped: ${skipped}` : "";
    out.push(`  ${name}: ${cells.filter(Boolean).join("; ")}${ratio ? `; ${ratio}` : ""}`);
  }
  for (const p of pairedDetails()) {
    const r = p.detail.ratio;
    if (r) out.push(`\n${p.metric} at n=${p.n} in paired rounds, fastest SDK ÷ ours per round: ${r.rounds.map((x) => `${fmt(x)}×`).join(", ")} (median ${fmt(r.median)}×, ${fmt(r.min)}–${fmt(r.max)})`);
  }
  for (const metric of ["concurrent_durable_steps_per_s", "concurrent_memory_steps_per_s"]) {
    const r = rows.find((x) => x.metric === metric);
    const floor = rows.find((x) => x.metric === "concurrent_durable_steps_per_s")?.peers["bare append+fsync writers"];
    if (!r) continue;
    out.push(`\n${metric} (${r.n} at once), median (min–max) steps/s, ÷ bare append+fsync writers:`);
    for (const [name, v] of [["ours", r.ours] as const, ...Object.entries(r.peers)]) {
      if (v === null || v === undefined) continue;
      const d = r.detail[name] as { min?: number; max?: number } | undefined;
      out.push(`  ${name}: ${fmt(v)} (${fmt(d?.min)}–${fmt(d?.max)})${floor ? `; ÷ writers = ${(v / floor).toFixed(2)}` : ""}`);
    }
  }
  return out.join("\n");
}

console.log(`functai benchmarks — node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? "?"}, load ${loadavg().map((x) => x.toFixed(2)).join(" ")}`);
for (const f of PEER_FILES) await runFile(f, false);
for (const f of OURS_FILES) await runFile(f, true);
await runPairing(STEP_PAIRING);
// (before postgres.ts: its 8-process variant leaves the server busy for a while)
await runPairing(POSTGRES_PAIRING);
for (const f of LAST_FILES) await runFile(f, false);
if (oursStatuses.length > 0) {
  const all = (s: OursStatus) => oursStatuses.every((x) => x === s);
  oursStatus = all("measured") ? "measured" : all("missing") ? "missing" : all("failed") ? "failed" : "partly failed";
}

const rows = buildRows();
console.log("\n" + table(rows));
console.log(
  "\nratio = best peer ÷ ours for costs (µs, ms, bytes, flushes), ours ÷ best peer for rates (events/s): above 1, ours is better." +
  "\nFloors (plain loop, bare append+fsync, its writers, floor) are shown but never count as the best peer. Each figure: the median of its timed runs after warm-up (5 by default; 7 for per-step and concurrency figures, 11 for resume, 9 interleaved rounds for the durable figures: each row's detail has its runs), each SDK variant in its own process.",
);
console.log(spreads(rows));
if (oursStatus !== "measured") console.log(`\nours: not measured (${oursStatus}${oursStatus === "missing" ? ": bench/ours.ts does not exist" : ""})`);
for (const f of failures) console.log(`failed: ${f.file} ${f.variant}: ${f.why.split("\n")[0]}`);
const loads = load.map((l) => l.loadavg1);
if (loads.length) {
  const busy = Math.max(...loads) > cpus().length;
  console.log(`load average (1 min) before each variant: ${Math.min(...loads).toFixed(2)}–${Math.max(...loads).toFixed(2)} on ${cpus().length} cores${busy ? ": the machine was busy, figures are noisier than usual" : ""}`);
}
if (measuredCode.uncommitted_engine_files) console.log(`measured code: HEAD ${measuredCode.head?.slice(0, 12)} with ${measuredCode.uncommitted_engine_files} uncommitted file(s) under src/ and adapters/`);

if (write) {
  const measured = rows.map(({ metric, n, unit, ours, peers, best_peer, ratio, detail }) => ({ metric, n, unit, ours, peers, best_peer, ratio, detail }));
  mkdirSync(outDir, { recursive: true });
  // a run of some files only (a filter or a skip) replaces the rows it measured and keeps the others, never wipes them
  const partial = filters.length > 0 || skips.length > 0;
  const earlier = partial ? readEarlier(outDir) : null;
  const results = earlier ? mergeRows(earlier.rows, measured) : measured;
  writeFileSync(join(outDir, "results.json"), JSON.stringify(results, null, 2) + "\n");
  const meta = {
    at: new Date().toISOString(),
    took_s: Math.round((Date.now() - t0) / 1000),
    node: process.version,
    cpus: cpus().length,
    cpu: cpus()[0]?.model ?? null,
    memory_gib: Math.round(totalmem() / 2 ** 30),
    load_before_each: load,
    filters, skips,
    ours: oursStatus,
    git: measuredCode,
    failures,
    // (also in the detail of their rows, when the run measured those rows)
    paired_rounds: pairedDetails(),
    versions: Object.fromEntries(
      ["ai", "@ai-sdk/provider", "@openai/agents-core", "openai", "@langchain/langgraph", "@langchain/core", "@langchain/langgraph-checkpoint", "@langchain/langgraph-checkpoint-sqlite", "better-sqlite3", "zod", "tsx", "xstate"].map((p) => [p, versionOf(p)]),
    ),
    method: "each file:variant in its own `node --expose-gc --import tsx` process, one at a time; warm-up runs (per-step series: at least 10, 2 at n = 1,000 steps, and on until 1.5 s), then the median of 5 timed runs (7 for per-step and concurrency figures), one gc() before the warm-up, none between nor just before timed runs (a forced gc() drops the hidden classes the optimized code relies on: the warm-up re-optimizes after it), except runs of one large operation (resume, open: gc() before each); per-step figures are total loop time ÷ steps, nothing subtracted",
  };
  // a partial run's setting goes beside the earlier run's (whose rows it left), in the order the runs came
  const kept = earlier?.meta ? { ...earlier.meta, partial_runs: [...((earlier.meta["partial_runs"] as unknown[] | undefined) ?? []), { ...meta, rows: measured.map(rowKey) }] } : meta;
  writeFileSync(join(outDir, "results.meta.json"), JSON.stringify(kept, null, 2) + "\n");
  console.log(`\nwrote ${relative(process.cwd(), join(outDir, "results.json"))} and results.meta.json`);
}
