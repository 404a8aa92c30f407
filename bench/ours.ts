/**
 * OUR side of every metric, written against DESIGN.md's public API
 * (`ai`, `tool`, `memoryStore`, `Waiting` from functai; `scripted` from
 * functai/testing; `fsStore` from functai/node-fs). Written before the
 * engine landed: until it does, this file fails to load and the runner
 * prints "ours: not measured". It never reports a number it did not measure.
 *
 * The workload is the peers' (bench/peers/*): one tool, `lookup_order`,
 * n model replies that each ask for one call to it, then the final answer,
 * from an instant `scripted` model, so only SDK cost is measured.
 *
 * What each variant measures:
 * - step: `overhead_per_tool_step_us`, n = 50 and 200: a conversation turn
 *   (`fn.conversation(id, { store: memoryStore() }).send(...)`), the tool
 *   `effects: "reads"`, total time ÷ n. (A plain call `fn(q, { lm })` is in the detail.)
 * - durable: the tool `effects: "changes"`; the same turn with `fsStore` on a
 *   temp dir and with `memoryStore`, in this process;
 *   `durable_overhead_per_changing_tool_us` = (fs − memory) ÷ n, beside n
 *   bare appends+fsyncs of the same bytes (async and sync API), all in
 *   interleaved rounds so each ratio is taken within one round;
 *   `flushes_per_changing_tool` = fsyncs made during the fs turn ÷ n
 *   (counted by wrapping FileHandle.prototype.sync/datasync and fs.fsync*, so
 *   every flush of the process counts, directory syncs included). Then the
 *   same with the tool `effects: "reads"`: `durable_overhead_per_step_reading_tool_us`
 *   and `flushes_per_step_reading_tool` (the replies are kept before each paid
 *   model call: one flush per call after the first, plus the turn's start and end).
 * - bytes: `journal_bytes_{100,200}_steps`: the conversation's JSONL file
 *   after one such turn (reads tool) with `fsStore`.
 * - resume: `resume_1000_steps_ms`: a turn of 1000 tool calls, the last one
 *   to a changing tool `refund` under `approve: "changes"`, waits (`Waiting`).
 *   Timed: a fresh `fsStore` on a copy of that journal (flushed to disk
 *   before the clock starts), the conversation
 *   opened anew, `(await turns()).at(-1).approve({ by })` to the answer, with
 *   a scripted model that holds only the final answer (replayed replies must
 *   not reach it: checked with `lm.requests.length === 1`).
 * - stream: `stream_events_per_s`: `fn.stream(q, { lm })` of one reply the
 *   scripted model streams word by word (TEXT_STREAM_N text deltas, through
 *   onText), events counted through `for await`, then `await s`;
 *   `stream_tool_step_events_per_s`: the same over STREAM_N tool steps.
 * - open10k: a conversation of 10,000 one-reply turns (two sent through the
 *   engine, the second's records repeated for the rest: see open10k);
 *   timed: a fresh `fsStore` + `fn.conversation(id, { store })` + `turns()`;
 *   `open_10k_turn_conversation_ms`, with the process's peak RSS and the
 *   peak heap seen during one open.
 */
import { randomUUID } from "node:crypto";
import { fsync, fsyncSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import fsModule from "node:fs";
import { open } from "node:fs/promises";
import { syncBuiltinESMExports } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { z } from "zod";
import { Waiting, ai, memoryStore, tool } from "../src/index.js";
import { scripted } from "../src/testing/index.js";
import { fsStore } from "../adapters/node-fs/index.js";
import { runChild } from "./lib/child.js";
import { interleaved, type Variant } from "./lib/interleave.js";
import {
  FINAL_TEXT, QUESTION, RESUME_N, STEP_NS, STREAM_FINAL_TEXT, STREAM_N, TEXT_STREAM_N, TEXT_STREAM_TEXT,
  RESUME_TIMING, STEP_RUNS, gc, stepWarmup, main, median, orderId, peakRssMiB, report, round, spread, stepSeries, timed, toolOutput, withHeapPeak, streamRate, copyWaitingJournal,
} from "./lib/measure.js";

const NAME = "ours";
const DESCRIPTION = "Answer the customer's question. Look the order up first.";
const tmp = (what: string) => mkdtempSync(join(tmpdir(), `functai-bench-${what}-`));

/** n replies each asking for one lookup_order call, then the final answer. */
const replies = (n: number, final = FINAL_TEXT, lastTool = "lookup_order") => [
  ...Array.from({ length: n }, (_, k) => ({
    toolCalls: [{ id: `call_${k}`, name: k === n - 1 ? lastTool : "lookup_order", input: { order_id: orderId(k) } }],
  })),
  final,
];

const lookupOrder = (effects: "reads" | "changes") =>
  tool("lookup_order", { description: "The order's item and shipping status.", input: { order_id: z.string() }, effects }, ({ order_id }) => toolOutput(order_id));

const refund = tool("refund", { description: "Refund an order.", input: { order_id: z.string() }, effects: "changes" }, ({ order_id }) => ({ refunded: order_id }));

const answerWith = (effects: "reads" | "changes", maxSteps: number) =>
  ai("answer", { description: DESCRIPTION, input: { question: z.string() }, output: z.string(), tools: [lookupOrder(effects), refund], maxSteps });

let convSeq = 0;
const nextId = () => `bench-${process.pid}-${++convSeq}`;

/**
 * The plain call `fn(q, { lm })` at n, µs per step: the row's detail. Measured
 * after the conversation's series at n (stepSeries' `extra`), not before it:
 * until 2026-12-03 the plain calls at every n (n = 1,000 too, in the paired
 * rounds as well) ran first, thousands of steps of the same engine code that
 * warmed ours before its first series, where each peer's process starts with
 * its series.
 */
async function plainCallUs(n: number): Promise<number> {
  const fn = answerWith("reads", n + 1);
  const plain = await timed(
    () => scripted(replies(n)),
    async (lm) => {
      const out = await fn(QUESTION, { lm });
      if (out !== FINAL_TEXT) throw new Error(`ours (plain call): answer ${String(out)}`);
    },
    { ...stepWarmup(n), runs: STEP_RUNS },
  );
  return round((plain.medianMs * 1000) / n);
}

async function stepOverhead(): Promise<void> {
  await stepSeries(
    NAME,
    (n) => ({ chat: answerWith("reads", n + 1).conversation(nextId(), { store: memoryStore(), lm: scripted(replies(n)) }) }),
    async ({ chat }) => {
      const out = await chat.send(QUESTION);
      if (out !== FINAL_TEXT) throw new Error(`ours: answer ${String(out)}`);
    },
    async (n) => ({ how: "conversation(id, { store: memoryStore() }).send", plain_call_us: await plainCallUs(n) }),
  );
}

/** Counts every fsync this process makes while `counting` is on. */
const flushCounter = await (async () => {
  let count = 0;
  let counting = false;
  const dir = tmp("probe");
  const fh = await open(join(dir, "probe"), "w");
  const proto = Object.getPrototypeOf(fh) as { sync: () => Promise<void>; datasync: () => Promise<void> };
  await fh.close();
  rmSync(dir, { recursive: true, force: true });
  for (const m of ["sync", "datasync"] as const) {
    const orig = proto[m];
    proto[m] = function (this: unknown) {
      if (counting) count++;
      return orig.call(this);
    };
  }
  const fsMut = fsModule as unknown as Record<string, (...a: unknown[]) => unknown>;
  for (const m of ["fsync", "fsyncSync", "fdatasync", "fdatasyncSync"]) {
    const orig = fsMut[m]!;
    fsMut[m] = function (this: unknown, ...a: unknown[]) {
      if (counting) count++;
      return orig.apply(this, a);
    };
  }
  syncBuiltinESMExports();
  void fsync; void fsyncSync; // (imported names are rebound by syncBuiltinESMExports)
  return {
    start() { count = 0; counting = true; },
    stop() { counting = false; return count; },
  };
})();

/** The rows of one tool kind: a changing tool (one flush per tool) or a reading one (one flush per paid model call). */
const DURABLE_ROWS = {
  changes: { overhead: "durable_overhead_per_changing_tool_us", flushes: "flushes_per_changing_tool", step: "changing-tool step" },
  reads: { overhead: "durable_overhead_per_step_reading_tool_us", flushes: "flushes_per_step_reading_tool", step: "reading-tool step" },
} as const;

async function durable(): Promise<void> {
  for (const effects of ["changes", "reads"] as const) {
    const fsyncsAt = new Map<number, number>();
    for (const n of STEP_NS) await durableTurn(effects, n, fsyncsAt);
  }
}

/** Timed rounds of the durable figures (after DURABLE_WARMUP), each running every variant once. */
const DURABLE_ROUNDS = 9;
const DURABLE_WARMUP = 3;

/**
 * `count` appends of `bytes`-byte lines to a fresh file, each flushed: with
 * FileHandle.write + sync (libuv's pool, as most Node stores do), or with
 * writeSync + fsyncSync in this thread (what the fs store does while one
 * conversation writes).
 */
const bareAppends = (dir: string, count: number, bytes: number, api: "async" | "sync"): Variant<string> => ({
  prepare: () => join(dir, `bare-${api}-${nextId()}.jsonl`),
  run: async (file) => {
    const line = Buffer.from(`${"x".repeat(Math.max(1, bytes - 1))}\n`);
    if (api === "sync") {
      const fd = fsModule.openSync(file, "a", 0o600);
      for (let i = 0; i < count; i++) {
        fsModule.writeSync(fd, line);
        fsModule.fsyncSync(fd);
      }
      fsModule.closeSync(fd);
      return;
    }
    const fh = await open(file, "a", 0o600);
    for (let i = 0; i < count; i++) {
      await fh.write(line);
      await fh.sync();
    }
    await fh.close();
  },
});

/**
 * One kind's rows at n; `fsyncsAt` holds the fsyncs of the kind's turns at
 * other n (the flushes one more step adds). Measured in interleaved rounds
 * (lib/interleave.ts): the memory turn, the fs turn, the least durable store,
 * and the bare appends (one per step, of the fs turn's bytes per flush), so
 * every ratio is taken within a round.
 */
async function durableTurn(effects: "changes" | "reads", n: number, fsyncsAt: Map<number, number>): Promise<void> {
  const rows = DURABLE_ROWS[effects];
  const fn = answerWith(effects, n + 1);
  const dir = tmp("durable");
  try {
    let adapterFlushes = 0;
    const flushes: number[] = [];
    // The least a durable store can do in the same turn: keep records in memory, and write each
    // batch as one JSON line then fsync it, in this thread (no lock, no checks, no file format).
    const leastStore = () => {
      const base = memoryStore();
      const fd = fsModule.openSync(join(dir, `least-${nextId()}.jsonl`), "a", 0o600);
      const store = {
        ...base,
        append: async (id: string, records: readonly object[], opts?: { expect?: number }) => {
          const length = await base.append(id, records, opts);
          fsModule.writeSync(fd, `${JSON.stringify(records)}\n`);
          fsModule.fsyncSync(fd);
          return length;
        },
      };
      return { chat: fn.conversation(nextId(), { store, lm: scripted(replies(n)) }), fd };
    };
    // a first fs turn, untimed: the bytes per flush the bare appends write
    const probeId = nextId();
    flushCounter.start();
    if ((await fn.conversation(probeId, { store: fsStore(dir), lm: scripted(replies(n)) }).send(QUESTION)) !== FINAL_TEXT)
      throw new Error("ours: wrong answer (fs)");
    const probeFlushes = flushCounter.stop();
    const bytesPerFlush = Math.round(statSync(journalOf(dir, probeId)).size / probeFlushes);
    const t = await interleaved(
      {
        memory: {
          prepare: () => fn.conversation(nextId(), { store: memoryStore(), lm: scripted(replies(n)) }),
          run: async (chat) => {
            if ((await chat.send(QUESTION)) !== FINAL_TEXT) throw new Error("ours: wrong answer (memory)");
          },
        },
        fs: {
          prepare: () => fn.conversation(nextId(), { store: fsStore(dir, { onFlush: () => adapterFlushes++ }), lm: scripted(replies(n)) }),
          run: async (chat) => {
            flushCounter.start();
            const out = await chat.send(QUESTION);
            flushes.push(flushCounter.stop());
            if (out !== FINAL_TEXT) throw new Error("ours: wrong answer (fs)");
          },
        },
        least: {
          prepare: leastStore,
          run: async ({ chat, fd }) => {
            if ((await chat.send(QUESTION)) !== FINAL_TEXT) throw new Error("ours: wrong answer (least)");
            fsModule.closeSync(fd);
          },
        },
        bareAsync: bareAppends(dir, n, bytesPerFlush, "async"),
        bareSync: bareAppends(dir, n, bytesPerFlush, "sync"),
      },
      { warmup: DURABLE_WARMUP, rounds: DURABLE_ROUNDS },
    );
    const perStep = (ms: readonly number[]) => ms.map((x) => (x * 1000) / n);
    const mem = perStep(t.memory);
    const over = perStep(t.fs).map((x, i) => x - mem[i]!);
    const least = perStep(t.least).map((x, i) => x - mem[i]!);
    const bareAsync = perStep(t.bareAsync);
    const bareSync = perStep(t.bareSync);
    const ratio = (a: readonly number[], b: readonly number[]) =>
      spread(
        a.map((x, i) => x / b[i]!),
        2,
      );
    report({
      metric: rows.overhead,
      n,
      unit: "us",
      name: NAME,
      value: round(median(over)),
      detail: {
        how: `per ${rows.step}: fsStore turn minus memoryStore turn, same process, ${DURABLE_ROUNDS} interleaved rounds after ${DURABLE_WARMUP} warm-up (each round: memory turn, fs turn, least durable store turn, ${n} bare appends async, ${n} bare appends sync)`,
        overhead_us: spread(over),
        memory_per_step_us: spread(mem),
        ratio_to_bare_append_fsync: ratio(over, bareAsync),
        ratio_to_bare_append_fsync_sync_api: ratio(over, bareSync),
        least_durable_store_us: spread(least),
        ratio_to_least_durable_store: ratio(over, least),
        least_durable_store_how:
          "memoryStore + writeSync(JSON of the batch) + fsyncSync per append, same turn: what any durable store pays in a turn here",
        bytes_per_flush: bytesPerFlush,
        tmpdir: tmpdir(),
      },
    });
    report({
      metric: rows.overhead,
      n,
      unit: "us",
      name: "bare append+fsync",
      value: round(median(bareAsync)),
      detail: {
        how: `${n} appends of ${bytesPerFlush} bytes (the fs turn's bytes per flush), FileHandle.write + sync each, in the same rounds`,
        per_append_us: spread(bareAsync),
      },
    });
    report({
      metric: rows.overhead,
      n,
      unit: "us",
      name: "bare append+fsync (sync API)",
      value: round(median(bareSync)),
      detail: { how: `${n} appends of ${bytesPerFlush} bytes, writeSync + fsyncSync each, in the same rounds`, per_append_us: spread(bareSync) },
    });
    const last = flushes.at(-1)!;
    // what one more step costs, from the turns at two n (the turn's start and end cancel out)
    const [otherN, other] = [...fsyncsAt].at(-1) ?? [];
    fsyncsAt.set(n, last);
    report({
      metric: rows.flushes,
      n,
      unit: "flushes",
      name: NAME,
      value: round(last / n),
      detail: {
        fsyncs_in_turn: last,
        adapter_onFlush_total_all_runs: adapterFlushes,
        every_run: flushes,
        model_calls: n + 1,
        ...(otherN === undefined || other === undefined
          ? {}
          : { flushes_per_added_step: round((other - last) / (otherN - n)), from: `n=${otherN} and n=${n}` }),
      },
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The one .jsonl file under dir (the store's layout is `<dir>/conversations/<id>.jsonl`). */
const journalOf = (dir: string, id: string) => join(dir, "conversations", `${id}.jsonl`);

async function bytes(): Promise<void> {
  for (const n of [100, 200]) {
    const dir = tmp("bytes");
    try {
      const id = nextId();
      const chat = answerWith("reads", n + 1).conversation(id, { store: fsStore(dir), lm: scripted(replies(n)) });
      if ((await chat.send(QUESTION)) !== FINAL_TEXT) throw new Error("ours: wrong answer (bytes)");
      const file = journalOf(dir, id);
      const lines = fsModule.readFileSync(file, "utf8").split("\n").filter(Boolean).length;
      report({
        metric: `journal_bytes_${n}_steps`, n, unit: "bytes", name: NAME, value: statSync(file).size,
        detail: { what: "the conversation's JSONL file after one turn of n tool steps (reads) + answer", records: lines },
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

async function resume(): Promise<void> {
  const base = tmp("resume");
  try {
    const id = nextId();
    const fn = answerWith("reads", RESUME_N + 1);
    const t0 = performance.now();
    const first = fn.conversation(id, { store: fsStore(join(base, "seed")), approve: "changes", lm: scripted(replies(RESUME_N, FINAL_TEXT, "refund")) });
    try {
      await first.send(QUESTION);
      throw new Error("ours: the turn did not wait for the refund approval");
    } catch (e) {
      if (!(e instanceof Waiting)) throw e;
    }
    const seedMs = performance.now() - t0;
    const seedBytes = statSync(journalOf(join(base, "seed"), id)).size;
    let k = 0;
    const r = await timed(
      () => {
        const dir = join(base, `run-${k++}`);
        copyWaitingJournal(join(base, "seed"), dir, journalOf(dir, id));
        return { dir, lm: scripted([FINAL_TEXT]) };
      },
      async ({ dir, lm }) => {
        const chat = fn.conversation(id, { store: fsStore(dir), approve: "changes", lm });
        const turn = (await chat.turns()).at(-1)!;
        const out = await turn.approve({ by: "bench" });
        if (out !== FINAL_TEXT) throw new Error(`ours resume: answer ${String(out)}`);
        if (lm.requests.length !== 1) throw new Error(`ours resume: the model was asked ${lm.requests.length} times (want 1)`);
      },
      RESUME_TIMING,
    );
    report({
      metric: "resume_1000_steps_ms", n: RESUME_N, unit: "ms", name: NAME, value: round(r.medianMs),
      detail: {
        how: "fresh fsStore on a copy of the waiting journal + conversation + turns() + approve() to the answer",
        journal_bytes: seedBytes, runs_ms: r.runsMs.map((x) => round(x)), first_run_to_waiting_ms: round(seedMs),
        dirs: readdirSync(base).length,
      },
    });
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

async function streamEvents(): Promise<void> {
  // the scripted model streams a reply's text word by word through onText: TEXT_STREAM_N deltas
  await streamRun("stream_events_per_s", 0, TEXT_STREAM_N, TEXT_STREAM_TEXT);
  await streamRun("stream_tool_step_events_per_s", STREAM_N, STREAM_N, STREAM_FINAL_TEXT);
}

async function streamRun(metric: string, steps: number, n: number, text: string): Promise<void> {
  const fn = answerWith("reads", steps + 1);
  const final = text.trim(); // a plain string answer is the reply's text, trimmed
  const how = `fn.stream(q, { lm }), for await, then await s: ${steps} tool steps, then a reply in the reply form (<result>…</result>, as a model is told to answer) that the scripted model streams word by word (onText)`;
  await streamRate({ metric, n, name: NAME, final, how }, () => scripted(replies(steps, text), { form: "reply" }), async (lm) => {
    const s = fn.stream(QUESTION, { lm });
    let events = 0;
    for await (const _e of s) events++;
    return { events, answer: await s };
  });
}

const TURNS = 10_000;

/**
 * Builds the 10k-turn journal here, then opens it in a child process of its
 * own, so the peak RSS is the open's alone.
 *
 * The journal is not made by 10,000 sends: a send's cost grows with the
 * conversation (its history is the next request), which makes 10k sends take
 * far longer than the open being measured. Two turns are sent through the
 * engine; the second turn's records (turn, lease, reply, ended, as the engine
 * wrote them) are then repeated with a fresh turn id, parent, input and reply
 * for each further turn, and appended to an fs store in batches.
 */
async function open10k(): Promise<void> {
  const dir = tmp("open10k");
  try {
    const id = nextId();
    const t0 = performance.now();
    const records = await journalOfTurns(id, TURNS);
    const store = fsStore(dir);
    for (let i = 0; i < records.length; i += 5000) await store.append(id, records.slice(i, i + 5000));
    const buildMs = performance.now() - t0;
    const out = await runChild(fileURLToPath(import.meta.url), [], { env: { FUNCTAI_BENCH_OPEN_DIR: dir, FUNCTAI_BENCH_OPEN_ID: id } });
    if (!out.ok) throw new Error(`ours open10k child: exit ${out.code ?? out.signal}\n${out.stderrTail}`);
    for (const s of out.samples) report({ ...s, detail: { ...s.detail, build_ms: round(buildMs), records: records.length, built: "2 turns sent through the engine, the 2nd turn's records repeated (new turn id, parent, input, reply) for the rest" } });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The records (without seq) of a conversation of `turns` one-reply turns; see open10k. */
async function journalOfTurns(id: string, turns: number): Promise<object[]> {
  const mem = memoryStore();
  const chat = chatFn().conversation(id, { store: mem });
  for (let i = 0; i < 2; i++) await chat.send(`message ${i}`, { lm: scripted([`reply ${i}`]) });
  const sent = (await mem.read(id)).map(({ seq: _seq, ...rest }) => rest as Record<string, unknown>);
  const turnIds = sent.filter((r) => r.kind === "turn").map((r) => r.turn as string);
  const [first, second] = turnIds as [string, string];
  const template = JSON.stringify(sent.filter((r) => r.turn === second));
  const out: object[] = sent.filter((r) => r.turn !== second);
  let parent = first;
  for (let i = 1; i < turns; i++) {
    const turn = randomUUID();
    const json = template
      .replaceAll(second, turn)
      .replaceAll(`"parent":"${first}"`, `"parent":"${parent}"`)
      .replaceAll('"message 1"', `"message ${i}"`)
      .replaceAll('"reply 1"', `"reply ${i}"`);
    out.push(...(JSON.parse(json) as object[]));
    parent = turn;
  }
  return out;
}

const chatFn = () => ai("chat", { description: "Chat.", input: { message: z.string() }, output: z.string() });

/** In the child: fresh fsStore + conversation + turns(), median of 5 after a warm-up; peak RSS and heap. */
async function open10kRead(dir: string, id: string): Promise<void> {
  const fn = chatFn();
  const fileBytes = statSync(journalOf(dir, id)).size;
  gc();
  const heapBefore = process.memoryUsage().heapUsed / 2 ** 20;
  const rssBefore = process.memoryUsage().rss / 2 ** 20; // the process with everything imported (tsx, the SDK), nothing opened
  let turnsSeen = 0;
  let peakHeap = 0;
  const r = await timed(
    () => fsStore(dir),
    async (store) => {
      const { value, peakHeapMiB } = await withHeapPeak(async () => (await fn.conversation(id, { store }).turns()).length);
      turnsSeen = value;
      peakHeap = Math.max(peakHeap, peakHeapMiB);
    },
    { warmup: 1, gc: "each" },
  );
  if (turnsSeen !== TURNS) throw new Error(`ours open10k: ${turnsSeen} turns`);
  report({
    metric: "open_10k_turn_conversation_ms", n: TURNS, unit: "ms", name: NAME, value: round(r.medianMs),
    detail: { how: "fresh fsStore + conversation(id, { store }).turns(), in a process that did nothing else", file_bytes: fileBytes, runs_ms: r.runsMs.map((x) => round(x)) },
  });
  report({ metric: "open_10k_turn_conversation_peak_rss_mib", n: TURNS, unit: "MiB", name: NAME, value: round(peakRssMiB(), 1), detail: { what: "peak RSS (getrusage) of the process that only opened the conversation (6 times)", rss_before_opening_mib: round(rssBefore, 1), peak_above_that_mib: round(peakRssMiB() - rssBefore, 1), note: "the child runs under tsx (node --import tsx): its RSS before opening anything is rss_before_opening_mib" } });
  // what an open keeps: the turns (their handles) held, everything else collected
  const held = await fn.conversation(id, { store: fsStore(dir) }).turns();
  gc();
  const retained = process.memoryUsage().heapUsed / 2 ** 20 - heapBefore;
  report({ metric: "open_10k_turn_conversation_heap_mib", n: TURNS, unit: "MiB", name: NAME, value: round(peakHeap - heapBefore, 1), detail: { what: "peak heapUsed during an open, above the heap before the opens", retained_with_turns_held_mib: round(retained, 1), turns_held: held.length } });
}

const openDir = process.env.FUNCTAI_BENCH_OPEN_DIR;
if (openDir) await open10kRead(openDir, process.env.FUNCTAI_BENCH_OPEN_ID ?? "");
else await main({ step: stepOverhead, durable, bytes, resume, stream: streamEvents, open10k });
