/**
 * The Postgres store against the same server (found or started the way
 * .ci/run does: .ci/postgres.sh; without one every variant says so and
 * reports nothing). Each variant uses a schema of its own and drops it.
 *
 * - ours: `postgres_durable_overhead_per_changing_tool_us` at n = 200, 50:
 *   a conversation turn of n changing-tool steps on `postgresStore` minus the
 *   same on `memoryStore`, ÷ n. Peer "bare insert+commit": one autocommit
 *   INSERT of a record's JSON per append the turn kept before it resolved
 *   (not those only written, `durable: false`: a changing tool's result
 *   before the next request, which count as our overhead), on one
 *   connection of the store's pool (the floor any durable SQL store pays).
 *   Peer PG_RULE_FLOOR: those INSERTs, and one with synchronous_commit off
 *   per append the turn only wrote (the floor of DESIGN's rules, two
 *   commits a changing step). The four (memory, postgres, bare, floor) are
 *   timed in turn, run by run, not one block after another: a load that
 *   comes and goes weighs on each alike.
 *   Then `postgres_append_server_side_us`: pgbench (no Node client) running
 *   our append function against the bare INSERT (see `serverSide`): the part
 *   of the ratio the server and the wire account for.
 * - langgraph: LangGraph's graph with `PostgresSaver` minus `MemorySaver`,
 *   per step, on the same server ("langgraph (PostgresSaver)": its default
 *   `durability: "async"`, each checkpoint written while the next step
 *   runs), and the same with `durability: "sync"` ("langgraph (PostgresSaver,
 *   durability sync)": saved before the next step starts, the promise ours
 *   keeps), the three timed in turn as ours are. The runner's ratio is to
 *   the faster of the two (its best SDK peer), as with every peer.
 * - concurrent: `postgres_concurrent_steps_per_s`: 8 processes × 25
 *   conversations at once, each running turns of STEPS changing-tool
 *   steps: total steps ÷ wall time from a common start (every process
 *   ready first); peers: 8 processes × 25 loops of bare INSERT+COMMITs (one
 *   per step, STEPS per turn), and the same with a relaxed INSERT after
 *   each (PG_RULE_FLOOR). Each process uses one pool of POOL
 *   connections, ours and bare alike (8 × (5 + a lock session) stays well
 *   under max_connections = 100).
 *   Each worker first does WARM_TURNS (40) untimed rounds of its work
 *   (warm-up: until its CPU per step stops falling), then each of its
 *   conversations runs TIMED_TURNS (4) turns one after another, timed.
 *
 * `FUNCTAI_BENCH_PG_SMALL=1` runs a small version (2 processes × 5
 * conversations, one fleet each, fewer timed runs) to check it works.
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { MemorySaver } from "@langchain/langgraph";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import pg from "pg";
import { z } from "zod";
import { postgresStore } from "../adapters/postgres/index.js";
import { ai, memoryStore, tool, type Store } from "../src/index.js";
import { isDurable } from "../src/store/checks.js";
import { scripted } from "../src/testing/index.js";
import { FINAL_TEXT, PG_RULE_FLOOR, QUESTION, RUNS, STEP_NS, main, median, orderId, report, round, spread, toolOutput } from "./lib/measure.js";
import { ScriptedChatModel, buildGraph, finalText } from "./peers/langgraph.js";
import { interleaved } from "./lib/interleave.js";

const SMALL = process.env["FUNCTAI_BENCH_PG_SMALL"] === "1";
const PROCESSES = SMALL ? 2 : 8;
const CONVERSATIONS = SMALL ? 5 : 25;
const STEPS = 10;
/**
 * Untimed rounds of each worker's work before the common start: enough for
 * the steady state a serving process runs in. With 8 processes on two
 * cores the JIT tiers up slowly: a worker's CPU per step stops falling by
 * about 40 rounds (measured round count by round count: the README's
 * "Warm-up", under the benchmark notes).
 */
const WARM_TURNS = SMALL ? 1 : 40;
/**
 * Timed turns each of a worker's conversations runs, one after another (on
 * a new conversation each): a window of a few seconds, not one turn's
 * second, whose start and tail weighed on each fleet's figure (the README's
 * "Timed window").
 */
const TIMED_TURNS = SMALL ? 1 : 4;
/** Fleets of each kind, alternating ours and bare. */
const FLEETS = SMALL ? 1 : 3;
/** Connections per process in the concurrent variant (ours and bare alike). */
const POOL = 5;
/** Timed rounds of a per-step figure, after warm-up rounds (lib/interleave.ts). */
const rounds = SMALL ? { warmup: 2, rounds: 3 } : { warmup: 10, rounds: RUNS };

/** The server's URL, or null (said on stderr) when none can be found or started. */
function serverUrl(): string | null {
  try {
    const url = execFileSync(fileURLToPath(new URL("../.ci/postgres.sh", import.meta.url)), [], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    }).trim();
    return url || null;
  } catch {
    console.error("bench/postgres: no PostgreSQL server (see .ci/postgres.sh): nothing measured");
    return null;
  }
}

const schemaName = (what: string) => `bench_${what}_${process.pid}_${Date.now().toString(36)}`;
const replies = (n: number) => [
  ...Array.from({ length: n }, (_, k) => ({ toolCalls: [{ id: `call_${k}`, name: "lookup_order", input: { order_id: orderId(k) } }] })),
  FINAL_TEXT,
];
const answer = (n: number) =>
  ai("answer", {
    description: "Answer the customer's question. Look the order up first.",
    input: { question: z.string() },
    output: z.string(),
    tools: [
      tool(
        "lookup_order",
        { description: "The order's item and shipping status.", input: { order_id: z.string() }, effects: "changes" },
        ({ order_id }) => toolOutput(order_id),
      ),
    ],
    maxSteps: n + 1,
  });

/**
 * A store that counts the appends kept before they resolve (`appends`: the
 * turn's first records, one per changing step, the end) and those only
 * written (`written`: `durable: false`, a tool's result before the next
 * request), and, with `sizing`, the JSON the kept ones carried. Sizing
 * writes each batch's JSON once more, about 25 us per append, so only the
 * first (warm-up) turn is sized: the timed turns only count.
 */
function counting(inner: Store, sizing: boolean): Store & { appends: number; written: number; bytes: number } {
  const c = Object.assign(Object.create(inner) as Store, { appends: 0, written: 0, bytes: 0 });
  c.append = (id, records, opts) => {
    if (!isDurable(opts)) c.written++;
    else {
      c.appends++;
      if (sizing) c.bytes += JSON.stringify(records).length;
    }
    return inner.append(id, records, opts);
  };
  return c as Store & { appends: number; written: number; bytes: number };
}

/** A one-record append's JSON of about `bytes` bytes (the bare inserts' and pgbench's record). */
const recordOfSize = (bytes: number): string => JSON.stringify([{ kind: "x", pad: "x".repeat(Math.max(0, Math.round(bytes) - 30)) }]);

/** An autocommit INSERT whose commit does not wait for the WAL flush (set for its own transaction only). */
const relaxedInsert = (table: string): string =>
  `WITH relaxed AS (SELECT set_config('synchronous_commit', 'off', true)) INSERT INTO ${table} (record) SELECT $1::json FROM relaxed`;

let seq = 0;
const nextId = () => `b${process.pid}-${++seq}`;

async function ours(): Promise<void> {
  const url = serverUrl();
  if (!url) return;
  const schema = schemaName("ours");
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  const store = postgresStore({ pool }, { schema });
  await pool.query(`CREATE TABLE IF NOT EXISTS ${schema}_bare (id bigserial PRIMARY KEY, record json NOT NULL)`);
  let recordJson = "";
  try {
    for (const n of STEP_NS) {
      const fn = answer(n);
      let appends = 0;
      let written = 0;
      let bytesPerAppend = 0; // (of the first turn, a warm-up: the only one sized)
      // taken in turn (memory, postgres, bare, memory, …): a load that comes and goes weighs on each alike
      const t = await interleaved(
        {
          memory: {
            prepare: () => fn.conversation(nextId(), { store: memoryStore(), lm: scripted(replies(n)) }),
            run: async (chat) => {
              if ((await chat.send(QUESTION)) !== FINAL_TEXT) throw new Error("wrong answer (memory)");
            },
          },
          postgres: {
            prepare: () => {
              const s = counting(store, bytesPerAppend === 0);
              return { s, chat: fn.conversation(nextId(), { store: s, lm: scripted(replies(n)) }) };
            },
            run: async ({ s, chat }) => {
              if ((await chat.send(QUESTION)) !== FINAL_TEXT) throw new Error("wrong answer (postgres)");
              if (bytesPerAppend === 0) bytesPerAppend = s.bytes / s.appends;
              appends = s.appends;
              written = s.written;
            },
          },
          // one durable INSERT per append our last turn kept (the floor of its guarantee), each their average JSON size
          bare: {
            prepare: () => recordOfSize(bytesPerAppend),
            run: async (record) => {
              for (let i = 0; i < appends; i++) await pool.query(`INSERT INTO ${schema}_bare (record) VALUES ($1::json)`, [record]);
            },
          },
          // the same, and one relaxed INSERT per append our turn only wrote: the floor of DESIGN's rules (PG_RULE_FLOOR)
          floor: {
            prepare: () => recordOfSize(bytesPerAppend),
            run: async (record) => {
              // (one of each in turn, as a turn's steps go: a relaxed commit's WAL is flushed by the next durable one)
              for (let i = 0; i < Math.max(appends, written); i++) {
                if (i < appends) await pool.query(`INSERT INTO ${schema}_bare (record) VALUES ($1::json)`, [record]);
                if (i < written) await pool.query(relaxedInsert(`${schema}_bare`), [record]);
              }
            },
          },
        },
        rounds,
      );
      if (recordJson === "") recordJson = recordOfSize(bytesPerAppend);
      const mem = { medianMs: median(t.memory), runsMs: t.memory };
      const pgRun = { medianMs: median(t.postgres), runsMs: t.postgres };
      const bare = { medianMs: median(t.bare), runsMs: t.bare };
      // each round's overhead ÷ that round's bare figure, and ÷ its floor figure
      const ratios = spread(t.postgres.map((x, i) => (x - t.memory[i]!) / t.bare[i]!), 2);
      const toFloor = spread(t.postgres.map((x, i) => (x - t.memory[i]!) / t.floor[i]!), 2);
      const floorToBare = spread(t.floor.map((x, i) => x / t.bare[i]!), 2);
      const perStep = ((pgRun.medianMs - mem.medianMs) * 1000) / n;
      report({
        metric: "postgres_durable_overhead_per_changing_tool_us",
        n,
        unit: "us",
        name: "ours",
        value: round(perStep),
        detail: {
          how: "postgresStore turn minus memoryStore turn, ÷ n; pool of one connection; the server on this machine",
          appends_per_turn: appends,
          written_not_flushed_per_turn: written,
          ratio_to_bare_insert_commit: ratios,
          ratio_to_floor: toFloor,
          postgres_runs_ms: pgRun.runsMs.map((x) => round(x)),
          memory_runs_ms: mem.runsMs.map((x) => round(x)),
        },
      });
      report({
        metric: "postgres_durable_overhead_per_changing_tool_us",
        n,
        unit: "us",
        name: "bare insert+commit",
        value: round((bare.medianMs * 1000) / n),
        detail: {
          how: `${appends} autocommit INSERTs (one per append our turn kept durably before it resolved: not its ${written} written without waiting for the flush; their JSON size) on the same connection, ÷ n`,
          runs_ms: bare.runsMs.map((x) => round(x)),
        },
      });
      report({
        metric: "postgres_durable_overhead_per_changing_tool_us",
        n,
        unit: "us",
        name: PG_RULE_FLOOR,
        value: round((median(t.floor) * 1000) / n),
        detail: {
          how: `the ${appends} autocommit INSERTs of "bare insert+commit" and, one after each in turn, ${written} with synchronous_commit off (one per append our turn wrote without waiting for the flush: a changing tool's result, committed before the next request), on the same connection, ÷ n`,
          ratio_to_bare_insert_commit: floorToBare,
          runs_ms: t.floor.map((x) => round(x)),
        },
      });
    }
    // (the runner's paired rounds want the durable figures only: FUNCTAI_BENCH_PG_DURABLE_ONLY)
    if (process.env["FUNCTAI_BENCH_PG_DURABLE_ONLY"] !== "1") serverSide(url, schema, recordJson);
  } finally {
    await pool.query(`DROP TABLE IF EXISTS ${schema}_bare`).catch(() => undefined);
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
    await store.close();
    await pool.end();
  }
}

/** pgbench (it comes with Debian's postgresql, beside the server), or null. */
function findPgbench(): string | null {
  const dirs = existsSync("/usr/lib/postgresql") ? readdirSync("/usr/lib/postgresql").sort().reverse() : [];
  for (const bin of ["pgbench", ...dirs.map((v) => `/usr/lib/postgresql/${v}/bin/pgbench`)]) {
    try {
      execFileSync(bin, ["--version"], { stdio: "ignore" });
      return bin;
    } catch {
      // not this one
    }
  }
  return null;
}

/** SERVER_RUNS rounds of pgbench, each SERVER_SECONDS per script. */
const SERVER_RUNS = SMALL ? 1 : 3;
const SERVER_SECONDS = SMALL ? 1 : 3;

/**
 * `postgres_append_server_side_us`: what the server (and the wire) take, no
 * Node client at all: pgbench, one client, prepared statements, our append
 * function against a bare INSERT+COMMIT of the same JSON (the average append
 * of our n=200 turn), SERVER_SECONDS each, in turn, SERVER_RUNS rounds. The
 * append runs without its fence (the fence's two lock tries need a held lock
 * session, which pgbench has not): it compares and sets the length, inserts
 * the batch's row and looks for waiters. This is the part of the overhead ratio
 * that no client-side change can remove.
 */
function serverSide(url: string, schema: string, recordJson: string): void {
  const bin = findPgbench();
  if (!bin) {
    console.error("bench/postgres: no pgbench (Debian: postgresql): the server-side figure is not measured");
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), "functai-bench-pgbench-"));
  const scripts = {
    bare: `INSERT INTO ${schema}_bare (record) VALUES (:rec::json);\n`,
    ours: `SELECT "${schema}".append(:conv, :rec::json, NULL, NULL, NULL, NULL, 1);\n`, // (the JSON holds one record)
  };
  const latencyUs = (which: keyof typeof scripts): number => {
    const file = join(dir, `${which}.sql`);
    writeFileSync(file, scripts[which]);
    const out = execFileSync(
      bin,
      ["-n", "-M", "prepared", "-T", String(SERVER_SECONDS), "-f", file, "-D", `rec=${recordJson}`, "-D", `conv=pgbench-${process.pid}`, url],
      { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] },
    );
    const ms = /latency average = ([\d.]+) ms/.exec(out)?.[1];
    if (ms === undefined) throw new Error(`pgbench printed no latency:\n${out}`);
    return Number(ms) * 1000;
  };
  const runs = { ours: [] as number[], bare: [] as number[] };
  try {
    for (let r = 0; r < SERVER_RUNS; r++) for (const which of ["bare", "ours"] as const) runs[which].push(latencyUs(which));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const how = `pgbench -M prepared, one client, ${SERVER_SECONDS} s per run, ${SERVER_RUNS} rounds (bare, ours in turn), ${recordJson.length} bytes of JSON per call: the server and the wire only, no Node client`;
  report({
    metric: "postgres_append_server_side_us",
    n: null,
    unit: "us",
    name: "ours",
    value: round(median(runs.ours)),
    detail: {
      how: `${how}; our append function without its fence (two lock tries, which need a held lock session)`,
      runs_us: runs.ours.map((x) => round(x)),
      ratio_to_bare_insert_commit: spread(runs.ours.map((x, i) => x / runs.bare[i]!), 2),
    },
  });
  report({
    metric: "postgres_append_server_side_us",
    n: null,
    unit: "us",
    name: "bare insert+commit",
    value: round(median(runs.bare)),
    detail: { how: `${how}; one autocommit INSERT`, runs_us: runs.bare.map((x) => round(x)) },
  });
}

async function langgraph(): Promise<void> {
  const url = serverUrl();
  if (!url) return;
  const schema = schemaName("lg");
  const saver = PostgresSaver.fromConnString(url, { schema });
  await saver.setup();
  let thread = 0;
  try {
    for (const n of STEP_NS) {
      const run = (graph: ReturnType<typeof buildGraph>, durability?: "sync") => async () => {
        const out = await graph.invoke(
          { messages: [{ role: "user", content: QUESTION }] },
          { recursionLimit: 2 * n + 10, configurable: { thread_id: `t${++thread}` }, ...(durability ? { durability } : {}) },
        );
        if (finalText(out.messages) !== FINAL_TEXT) throw new Error("langgraph: wrong answer");
      };
      // taken in turn, as ours (memory, postgres, postgres with durability "sync", memory, …)
      const t = await interleaved(
        {
          memory: { prepare: () => buildGraph(new ScriptedChatModel(n), new MemorySaver()), run: (g) => run(g)() },
          postgres: { prepare: () => buildGraph(new ScriptedChatModel(n), saver), run: (g) => run(g)() },
          postgresSync: { prepare: () => buildGraph(new ScriptedChatModel(n), saver), run: (g) => run(g, "sync")() },
        },
        rounds,
      );
      // the like-for-like guarantee: each step's checkpoint saved before the next step starts, as ours keeps a
      // changing step's record before its tool runs (a second row: the default above stays the peer users run)
      report({
        metric: "postgres_durable_overhead_per_changing_tool_us",
        n,
        unit: "us",
        name: "langgraph (PostgresSaver, durability sync)",
        value: round(((median(t.postgresSync) - median(t.memory)) * 1000) / n),
        detail: {
          how: "graph with PostgresSaver, invoke(…, { durability: \"sync\" }), minus MemorySaver, ÷ n, taken in turn with the default's runs",
          durability: "\"sync\": a step's checkpoint is saved before the next step starts",
          postgres_runs_ms: t.postgresSync.map((x) => round(x)),
          memory_runs_ms: t.memory.map((x) => round(x)),
        },
      });
      report({
        metric: "postgres_durable_overhead_per_changing_tool_us",
        n,
        unit: "us",
        name: "langgraph (PostgresSaver)",
        value: round(((median(t.postgres) - median(t.memory)) * 1000) / n),
        detail: {
          how: "graph with PostgresSaver minus MemorySaver, ÷ n (every step checkpointed; LangGraph has no effects), taken in turn with the runs below",
          // (ours waits for a changing step's record to commit before its tool runs: the peer's default is the weaker guarantee)
          durability: "LangGraph's default, \"async\": a step's checkpoint is written while the next step runs, all awaited at the end of invoke()",
          postgres_runs_ms: t.postgres.map((x) => round(x)),
          memory_runs_ms: t.memory.map((x) => round(x)),
        },
      });
    }
  } finally {
    await saver.end().catch(() => undefined);
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await c.end();
  }
}

/**
 * One worker process of the concurrent variant: prints {"ready"} once warm,
 * starts at the moment its parent writes on stdin, then prints {"steps", "end"}.
 */
async function worker(kind: string, url: string, schema: string): Promise<void> {
  const fn = answer(STEPS);
  const pool = new pg.Pool({ connectionString: url, max: POOL });
  const store = postgresStore({ pool }, { schema });
  await store.read("warm");
  const record = recordOfSize(330);
  /**
   * One turn of a conversation's work: ours, a turn of STEPS changing-tool
   * steps; bare, STEPS INSERT+COMMITs; floor (PG_RULE_FLOOR), STEPS pairs of
   * an INSERT+COMMIT and a relaxed one.
   */
  const turn = async (id: string): Promise<void> => {
    if (kind === "ours") {
      const out = await fn.conversation(id, { store, lm: scripted(replies(STEPS)) }).send(QUESTION);
      if (out !== FINAL_TEXT) throw new Error("wrong answer");
      return;
    }
    for (let k = 0; k < STEPS; k++) {
      await pool.query(`INSERT INTO "${schema}".bare (record) VALUES ($1::json)`, [record]);
      if (kind === "floor") await pool.query(relaxedInsert(`"${schema}".bare`), [record]);
    }
  };
  // warm-up (as every timed figure has): WARM_TURNS rounds of the same work before the common start, so the timed
  // steps run tiered-up code, not the JIT's first passes (which weigh on a turn's engine far more than on an INSERT)
  for (let w = 0; w < WARM_TURNS; w++) await Promise.all(Array.from({ length: CONVERSATIONS }, (_, i) => turn(`warm${w}-${process.pid}-${i}`)));
  process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
  const goAt = await new Promise<number>((resolve) => process.stdin.once("data", (d: Buffer) => resolve(Number(d.toString().trim()))));
  await new Promise((r) => setTimeout(r, Math.max(0, goAt - Date.now())));
  const cpu = process.cpuUsage();
  await Promise.all(
    Array.from({ length: CONVERSATIONS }, async (_, i) => {
      for (let t = 0; t < TIMED_TURNS; t++) await turn(`w${t}-${process.pid}-${i}`);
    }),
  );
  const used = process.cpuUsage(cpu);
  process.stdout.write(`${JSON.stringify({ steps: CONVERSATIONS * STEPS * TIMED_TURNS, end: Date.now(), cpuUs: used.user + used.system })}\n`);
  await store.close();
  await pool.end();
}

/**
 * PROCESSES workers of one kind, started together once all are ready: total
 * steps ÷ seconds from the start to the last end, and the workers' own CPU
 * time per step (µs; what they take of the machine's 2 cores from the server).
 */
async function fleet(kind: string, url: string, schema: string): Promise<{ rate: number; cpuUsPerStep: number }> {
  const self = fileURLToPath(import.meta.url);
  const children = Array.from({ length: PROCESSES }, () => {
    const child = spawn(process.execPath, ["--conditions=functai-source", "--import", "tsx", self], {
      env: { ...process.env, FUNCTAI_BENCH_WORKER: JSON.stringify({ kind, url, schema }) },
      stdio: ["pipe", "pipe", "inherit"],
    });
    const lines: Record<string, unknown>[] = [];
    let ready!: () => void;
    const isReady = new Promise<void>((r) => (ready = r));
    let out = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      for (let i = out.indexOf("\n"); i >= 0; i = out.indexOf("\n")) {
        const line = JSON.parse(out.slice(0, i)) as Record<string, unknown>;
        out = out.slice(i + 1);
        lines.push(line);
        if (line["ready"]) ready();
      }
    });
    const done = new Promise<{ steps: number; end: number; cpuUs: number }>((resolve, reject) =>
      child.on("close", (code) =>
        code === 0 ? resolve(lines.at(-1) as { steps: number; end: number; cpuUs: number }) : reject(new Error(`worker exit ${code}`)),
      ),
    );
    done.catch(() => ready()); // a worker that dies before it is ready fails the fleet, not hangs it
    return { child, isReady, done };
  });
  await Promise.all(children.map((c) => c.isReady));
  const goAt = Date.now() + 200;
  for (const c of children) c.child.stdin.end(`${goAt}\n`);
  const ends = await Promise.all(children.map((c) => c.done));
  const steps = ends.reduce((a, e) => a + e.steps, 0);
  return {
    rate: steps / ((Math.max(...ends.map((e) => e.end)) - goAt) / 1000),
    cpuUsPerStep: ends.reduce((a, e) => a + e.cpuUs, 0) / steps,
  };
}

async function concurrent(): Promise<void> {
  const url = serverUrl();
  if (!url) return;
  const schema = schemaName("conc");
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query(`CREATE SCHEMA "${schema}"; CREATE TABLE "${schema}".bare (id bigserial PRIMARY KEY, record json NOT NULL)`);
  try {
    const oursRuns: number[] = [];
    const bareRuns: number[] = [];
    const oursCpu: number[] = [];
    const bareCpu: number[] = [];
    const floorRuns: number[] = [];
    // the order turned by one each round (as lib/interleave.ts does): a fleet leaves the server busy for a while
    // after it (checkpoint, vacuum), and a fixed order would always hand that to the same kind
    const kinds = ["ours", "bare", "floor"] as const;
    for (let run = 0; run < FLEETS; run++) {
      for (let i = 0; i < kinds.length; i++) {
        const kind = kinds[(i + run) % kinds.length]!;
        const f = await fleet(kind, url, schema);
        if (kind === "ours") {
          oursRuns.push(f.rate);
          oursCpu.push(f.cpuUsPerStep);
        } else if (kind === "bare") {
          bareRuns.push(f.rate);
          bareCpu.push(f.cpuUsPerStep);
        } else floorRuns.push(f.rate);
      }
    }
    // (every conversation of ours, warm-up ones too, ran the same turn: records per conversation are records per turn)
    const { rows } = await c.query(`SELECT count(*)::int AS n, count(DISTINCT conversation)::int AS c FROM "${schema}".records`);
    const appendsPerTurn = Math.round(rows[0].n / rows[0].c);
    const detail = {
      processes: PROCESSES,
      conversations_each: CONVERSATIONS,
      timed_turns_each: TIMED_TURNS,
      warm_rounds: WARM_TURNS,
      steps_per_turn: STEPS,
      records_per_turn: appendsPerTurn,
      pool_per_process: POOL,
    };
    const ratios = oursRuns.map((x, i) => round(x / bareRuns[i]!, 3));
    report({
      metric: "postgres_concurrent_steps_per_s",
      n: PROCESSES * CONVERSATIONS,
      unit: "steps/s",
      name: "ours",
      value: round(median(oursRuns), 1),
      detail: {
        ...detail,
        runs: oursRuns.map((x) => round(x, 1)),
        ratio_to_bare_per_run: ratios,
        ratio_to_floor_per_run: oursRuns.map((x, i) => round(x / floorRuns[i]!, 3)),
        client_cpu_us_per_step: oursCpu.map((x) => round(x)),
      },
    });
    report({
      metric: "postgres_concurrent_steps_per_s",
      n: PROCESSES * CONVERSATIONS,
      unit: "steps/s",
      name: "bare insert+commit",
      value: round(median(bareRuns), 1),
      detail: {
        ...detail,
        how: `each step one autocommit INSERT`,
        runs: bareRuns.map((x) => round(x, 1)),
        client_cpu_us_per_step: bareCpu.map((x) => round(x)),
      },
    });
    report({
      metric: "postgres_concurrent_steps_per_s",
      n: PROCESSES * CONVERSATIONS,
      unit: "steps/s",
      name: PG_RULE_FLOOR,
      value: round(median(floorRuns), 1),
      detail: {
        ...detail,
        how: "each step an autocommit INSERT, then one with synchronous_commit off (a changing step's two commits under DESIGN's rules)",
        runs: floorRuns.map((x) => round(x, 1)),
        ratio_to_bare_per_run: floorRuns.map((x, i) => round(x / bareRuns[i]!, 3)),
      },
    });
  } finally {
    await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await c.end();
  }
}

const w = process.env["FUNCTAI_BENCH_WORKER"];
if (w) {
  const { kind, url, schema } = JSON.parse(w) as { kind: string; url: string; schema: string };
  await worker(kind, url, schema);
} else await main({ ours, langgraph, concurrent });
