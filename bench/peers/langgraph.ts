/**
 * LangGraph (`@langchain/langgraph` 1.7, `@langchain/core` 1): a ReAct-style
 * graph built the documented way: `StateGraph(MessagesAnnotation)`, an
 * `agent` node calling the chat model, a prebuilt `ToolNode`, and
 * `toolsCondition` between them. The chat model is a `BaseChatModel`
 * subclass answering instantly: n replies that each ask for one tool call,
 * then the final answer. It reads which step it is at from the message
 * count (one human message, then an AI + tool message per step), so a thread
 * resumed from a checkpoint gets the right reply.
 *
 * Variants, each in its own process: no checkpointer, `MemorySaver`,
 * `SqliteSaver` on a temp file as it comes (it sets WAL; better-sqlite3's
 * build then syncs at WAL checkpoints, not at every commit), and the same
 * with `PRAGMA synchronous=FULL` (an fsync per commit, durable per step).
 *
 * Journal bytes: the SQLite file after a thread of n steps (WAL folded in
 * with `wal_checkpoint(TRUNCATE)`), at n = 100 and 200.
 * Resume: the tool calls `interrupt()` on the last of RESUME_N calls; resuming
 * opens the file anew and sends `Command({ resume })` to the final answer.
 * Open: a 10k-turn thread's state loaded from a fresh SqliteSaver (see open10k).
 * Concurrent: CONCURRENT_TURNS threads of one compiled graph on one saver,
 * each a CONCURRENT_STEPS-step invoke, all started at once (see concurrentRate).
 */
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, AIMessageChunk, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { ChatGenerationChunk, type ChatResult } from "@langchain/core/outputs";
import { tool } from "@langchain/core/tools";
import { Command, END, MemorySaver, MessagesAnnotation, START, StateGraph, interrupt, type BaseCheckpointSaver } from "@langchain/langgraph";
import { ToolNode, toolsCondition } from "@langchain/langgraph/prebuilt";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import Database from "better-sqlite3";
import { closeSync, copyFileSync, fsyncSync, mkdtempSync, openSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { z } from "zod";
import {
  CONCURRENT_STEPS, CONCURRENT_TURNS, concurrentRate, FINAL_TEXT, QUESTION, RESUME_N, RESUME_TIMING, STREAM_DELTAS, STREAM_FINAL_TEXT, STREAM_N, TEXT_STREAM_DELTAS, TEXT_STREAM_N, TEXT_STREAM_TEXT,
  gc, main, orderId, peakRssMiB, report, round, stepSeries, timed, toolOutput, withHeapPeak, streamRate,
} from "../lib/measure.js";
import { runChild } from "../lib/child.js";

const stepOf = (messages: readonly BaseMessage[]): number => (messages.length - 1) / 2;

export class ScriptedChatModel extends BaseChatModel {
  constructor(readonly n: number, readonly final = FINAL_TEXT, readonly deltas: readonly string[] = STREAM_DELTAS) {
    super({});
  }
  _llmType(): string {
    return "scripted";
  }
  private message(k: number): AIMessage {
    if (k < this.n) {
      return new AIMessage({ content: "", tool_calls: [{ id: `call_${k}`, name: "lookup_order", args: { order_id: orderId(k) }, type: "tool_call" }] });
    }
    return new AIMessage({ content: this.final });
  }
  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const message = this.message(stepOf(messages));
    return { generations: [{ message, text: typeof message.content === "string" ? message.content : "" }] };
  }
  // Like a provider's model (and LangChain's own FakeStreamingChatModel), each token is reported to the run's callbacks: that is what `streamMode: "messages"` streams.
  async *_streamResponseChunks(messages: BaseMessage[], _options: this["ParsedCallOptions"], runManager?: CallbackManagerForLLMRun): AsyncGenerator<ChatGenerationChunk> {
    const k = stepOf(messages);
    if (k < this.n) {
      const args = JSON.stringify({ order_id: orderId(k) });
      yield new ChatGenerationChunk({
        message: new AIMessageChunk({ content: "", tool_call_chunks: [{ id: `call_${k}`, name: "lookup_order", args, index: 0, type: "tool_call_chunk" }] }),
        text: "",
      });
      return;
    }
    for (const delta of this.deltas) {
      const chunk = new ChatGenerationChunk({ message: new AIMessageChunk({ content: delta }), text: delta });
      yield chunk;
      await runManager?.handleLLMNewToken(delta, undefined, undefined, undefined, undefined, { chunk });
    }
  }
}

const lookupOrder = (interruptAt?: number) =>
  tool(
    async ({ order_id }: { order_id: string }) => {
      if (interruptAt !== undefined && order_id === orderId(interruptAt)) {
        const answer = interrupt({ question: `May I look up ${order_id}?` }) as string;
        if (answer !== "yes") return "The person did not allow this call.";
      }
      return JSON.stringify(toolOutput(order_id));
    },
    { name: "lookup_order", description: "The order's item and shipping status.", schema: z.object({ order_id: z.string() }) },
  );

export function buildGraph(model: BaseChatModel, checkpointer?: BaseCheckpointSaver, interruptAt?: number) {
  const g = new StateGraph(MessagesAnnotation)
    .addNode("agent", async (state) => ({ messages: [await model.invoke(state.messages)] }))
    .addNode("tools", new ToolNode([lookupOrder(interruptAt)]))
    .addEdge(START, "agent")
    .addConditionalEdges("agent", toolsCondition, ["tools", END])
    .addEdge("tools", "agent");
  return checkpointer ? g.compile({ checkpointer }) : g.compile();
}

export const finalText = (messages: readonly BaseMessage[]) => {
  const last = messages.at(-1);
  return typeof last?.content === "string" ? last.content : "";
};

function sqliteSaver(file: string, synchronousFull: boolean): { saver: SqliteSaver; db: Database.Database; synchronous: number } {
  const db = new Database(file);
  const saver = new SqliteSaver(db);
  // SqliteSaver sets WAL on first use; set it now so the synchronous pragma below applies to WAL mode.
  db.pragma("journal_mode = WAL");
  if (synchronousFull) db.pragma("synchronous = FULL");
  return { saver, db, synchronous: db.pragma("synchronous", { simple: true }) as number };
}

const tmp = () => mkdtempSync(join(tmpdir(), "functai-bench-lg-"));

type Saver = "none" | "memory" | "sqlite" | "sqlite-full";
const NAMES: Record<Saver, string> = {
  none: "langgraph",
  memory: "langgraph (MemorySaver)",
  sqlite: "langgraph (SqliteSaver)",
  "sqlite-full": "langgraph (SqliteSaver, sync=FULL)",
};

function stepOverhead(kind: Saver) {
  return async () => {
    const dir = tmp();
    try {
      const dbs: Database.Database[] = [];
      let synchronous: number | undefined;
      let run = 0;
      await stepSeries(
        NAMES[kind],
        (n) => {
          // a fresh thread (and for SQLite a fresh file) per run
          let saver: BaseCheckpointSaver | undefined;
          if (kind === "memory") saver = new MemorySaver();
          if (kind === "sqlite" || kind === "sqlite-full") {
            const s = sqliteSaver(join(dir, `cp-${run++}.db`), kind === "sqlite-full");
            saver = s.saver;
            synchronous = s.synchronous;
            dbs.push(s.db);
          }
          return buildGraph(new ScriptedChatModel(n), saver);
        },
        async (graph, n) => {
          const out = await graph.invoke(
            { messages: [{ role: "user", content: QUESTION }] },
            { recursionLimit: 2 * n + 10, configurable: { thread_id: "t1" } },
          );
          if (out.messages.length !== 2 * n + 2 || finalText(out.messages) !== FINAL_TEXT) throw new Error(`langgraph: ${out.messages.length} messages`);
        },
        () => (synchronous === undefined ? {} : { sqlite_synchronous: synchronous }),
      );
      for (const db of dbs) db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

async function threadOf(file: string, n: number, interruptAt?: number): Promise<Database.Database> {
  const { saver, db } = sqliteSaver(file, false);
  const graph = buildGraph(new ScriptedChatModel(n), saver, interruptAt);
  await graph.invoke({ messages: [{ role: "user", content: QUESTION }] }, { recursionLimit: 2 * n + 10, configurable: { thread_id: "t1" } });
  return db;
}

async function bytes(): Promise<void> {
  const dir = tmp();
  try {
    for (const n of [100, 200]) {
      const file = join(dir, `bytes-${n}.db`);
      const db = await threadOf(file, n);
      db.pragma("wal_checkpoint(TRUNCATE)");
      const rows = db.prepare("SELECT count(*) AS c, sum(length(checkpoint)) + sum(length(metadata)) AS b FROM checkpoints").get() as { c: number; b: number };
      const writes = db.prepare("SELECT count(*) AS c, sum(length(value)) AS b FROM writes").get() as { c: number; b: number | null };
      db.close();
      const fileBytes = statSync(file).size;
      report({
        metric: `journal_bytes_${n}_steps`, n, unit: "bytes", name: "langgraph (SqliteSaver)", value: fileBytes,
        detail: {
          what: "SQLite file after one thread of n tool steps + answer, WAL checkpointed into it",
          checkpoints: rows.c, checkpoint_payload_bytes: rows.b, writes: writes.c, writes_payload_bytes: writes.b ?? 0,
        },
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function resume(): Promise<void> {
  const dir = tmp();
  try {
    const file = join(dir, "resume.db");
    const t0 = performance.now();
    const db0 = await threadOf(file, RESUME_N, RESUME_N - 1);
    db0.pragma("wal_checkpoint(TRUNCATE)");
    db0.close();
    const buildMs = performance.now() - t0;
    const size = statSync(file).size;
    const copies: string[] = [];
    let r0 = 0;
    const r = await timed(
      () => {
        // each run resumes its own copy of the interrupted thread
        // (the file is large: quadratic in steps, each checkpoint holds every message so far)
        for (const old of copies.splice(0)) rmSync(old, { force: true });
        const copy = join(dir, `resume-${r0++}.db`);
        copyFileSync(file, copy);
        copies.push(copy);
        // on disk before the clock starts, as a thread being resumed is and as ours' copy is
        // (copyWaitingJournal): else the kernel writes hundreds of MB of the copy back during the run
        const fd = openSync(copy, "r+");
        try {
          fsyncSync(fd);
        } finally {
          closeSync(fd);
        }
        return copy;
      },
      async (copy) => {
        const { saver } = sqliteSaver(copy, false);
        const graph = buildGraph(new ScriptedChatModel(RESUME_N), saver, RESUME_N - 1);
        const out = await graph.invoke(new Command({ resume: "yes" }), { recursionLimit: 2 * RESUME_N + 10, configurable: { thread_id: "t1" } });
        if (finalText(out.messages) !== FINAL_TEXT) throw new Error(`langgraph resume: ${finalText(out.messages)}`);
      },
      RESUME_TIMING,
    );
    report({
      metric: "resume_1000_steps_ms", n: RESUME_N, unit: "ms", name: "langgraph (SqliteSaver)", value: round(r.medianMs),
      detail: {
        how: "open the SQLite file anew + compile the graph + invoke(Command({ resume })) from the interrupt() on tool call 1000 to the final answer",
        file_bytes: size, runs_ms: r.runsMs.map((x) => round(x)), first_run_to_interrupt_ms: round(buildMs),
      },
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function streamEvents(): Promise<void> {
  await streamRun("stream_events_per_s", 0, TEXT_STREAM_N, TEXT_STREAM_DELTAS, TEXT_STREAM_TEXT);
  await streamRun("stream_tool_step_events_per_s", STREAM_N, STREAM_N, STREAM_DELTAS, STREAM_FINAL_TEXT);
}

/** One streamed run of `steps` tool steps, then a reply streamed as `deltas` (token chunks); events/s through `for await`. */
async function streamRun(metric: string, steps: number, n: number, deltas: readonly string[], final: string): Promise<void> {
  const how = `graph.stream(..., { streamMode: ["updates", "messages"] }), for await: ${steps} tool steps, then a reply of ${deltas.length} token chunks (a BaseChatModel's _streamResponseChunks)`;
  await streamRate({ metric, n, name: "langgraph", final, how }, () => buildGraph(new ScriptedChatModel(steps, final, deltas)), async (graph) => {
    const s = await graph.stream(
      { messages: [{ role: "user", content: QUESTION }] },
      { recursionLimit: 2 * steps + 10, streamMode: ["updates", "messages"] },
    );
    let events = 0;
    let text = "";
    for await (const [mode, chunk] of s) {
      events++;
      if (mode === "messages") {
        const [msg, meta] = chunk as [BaseMessage, { langgraph_node?: string }];
        if (meta.langgraph_node === "agent" && typeof msg.content === "string") text += msg.content;
      }
    }
    return { events, answer: text };
  });
}

const TURNS = 10_000;

/**
 * A 10k-turn thread, as LangGraph keeps it: its latest checkpoint holds every
 * message. Made with one `updateState` carrying 10,000 human/AI message pairs
 * (sending 10,000 turns would store 10,000 ever-growing checkpoints: many GB),
 * then opened in a child process of its own: a fresh SqliteSaver on the file
 * and `graph.getState(thread)`.
 */
async function open10k(): Promise<void> {
  const dir = tmp();
  try {
    const file = join(dir, "open10k.db");
    const t0 = performance.now();
    const { saver, db } = sqliteSaver(file, false);
    const graph = buildGraph(new ScriptedChatModel(0), saver);
    const messages: BaseMessage[] = [];
    for (let i = 0; i < TURNS; i++) messages.push(new HumanMessage(`message ${i}`), new AIMessage(`reply ${i}`));
    await graph.updateState({ configurable: { thread_id: "t1" } }, { messages }, "agent");
    db.pragma("wal_checkpoint(TRUNCATE)");
    db.close();
    const buildMs = performance.now() - t0;
    const out = await runChild(fileURLToPath(import.meta.url), [], { env: { FUNCTAI_BENCH_LG_OPEN: file } });
    if (!out.ok) throw new Error(`langgraph open10k child: exit ${out.code ?? out.signal}\n${out.stderrTail}`);
    for (const x of out.samples) report({ ...x, detail: { ...x.detail, build_ms: round(buildMs), file_bytes: statSync(file).size } });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function open10kRead(file: string): Promise<void> {
  gc();
  const heapBefore = process.memoryUsage().heapUsed / 2 ** 20;
  const rssBefore = process.memoryUsage().rss / 2 ** 20; // the process with everything imported (tsx, the SDK), nothing opened
  let peakHeap = 0;
  const dbs: Database.Database[] = [];
  const r = await timed(
    () => {
      const s = sqliteSaver(file, false);
      dbs.push(s.db);
      return buildGraph(new ScriptedChatModel(0), s.saver);
    },
    async (graph) => {
      const { value, peakHeapMiB } = await withHeapPeak(async () => (await graph.getState({ configurable: { thread_id: "t1" } })).values.messages.length as number);
      if (value !== 2 * TURNS) throw new Error(`langgraph open10k: ${value} messages`);
      peakHeap = Math.max(peakHeap, peakHeapMiB);
    },
    { warmup: 1, gc: "each" },
  );
  for (const db of dbs) db.close();
  const name = "langgraph (SqliteSaver)";
  report({ metric: "open_10k_turn_conversation_ms", n: TURNS, unit: "ms", name, value: round(r.medianMs), detail: { how: "fresh SqliteSaver on the file + graph.getState(thread), in a process that did nothing else", runs_ms: r.runsMs.map((x) => round(x)) } });
  report({ metric: "open_10k_turn_conversation_peak_rss_mib", n: TURNS, unit: "MiB", name, value: round(peakRssMiB(), 1), detail: { what: "peak RSS (getrusage) of the process that only opened the thread (6 times)", rss_before_opening_mib: round(rssBefore, 1), peak_above_that_mib: round(peakRssMiB() - rssBefore, 1), note: "the child runs under tsx (node --import tsx): its RSS before opening anything is rss_before_opening_mib" } });
  report({ metric: "open_10k_turn_conversation_heap_mib", n: TURNS, unit: "MiB", name, value: round(peakHeap - heapBefore, 1), detail: { what: "peak heapUsed during an open, above the heap before the opens" } });
}

/** CONCURRENT_TURNS threads at once on one saver; every step is checkpointed (LangGraph has no effects to tell a changing step by). */
function concurrent(kind: Saver) {
  return async () => {
    const dir = tmp();
    let run = 0;
    let onStep = (): void => {};
    const lookup = tool(async ({ order_id }: { order_id: string }) => {
      onStep();
      return JSON.stringify(toolOutput(order_id));
    }, { name: "lookup_order", description: "The order's item and shipping status.", schema: z.object({ order_id: z.string() }) });
    const durable = kind === "sqlite" || kind === "sqlite-full";
    try {
      await concurrentRate(
        {
          metric: durable ? "concurrent_durable_steps_per_s" : "concurrent_memory_steps_per_s",
          heapMetric: durable ? "concurrent_heap_per_turn_kb" : "concurrent_memory_heap_per_turn_kb",
          name: NAMES[kind],
          how: `${CONCURRENT_TURNS} threads of one graph on one saver, each invoke() of ${CONCURRENT_STEPS} tool steps, all started at once; steps ÷ wall time`,
          cleanup: ({ db }) => void db?.close(),
        },
        () => {
          let saver: BaseCheckpointSaver = new MemorySaver();
          let db: Database.Database | undefined;
          if (durable) ({ saver, db } = sqliteSaver(join(dir, `conc-${run++}.db`), kind === "sqlite-full"));
          const graph = new StateGraph(MessagesAnnotation)
            .addNode("agent", async (state) => ({ messages: [await model.invoke(state.messages)] }))
            .addNode("tools", new ToolNode([lookup]))
            .addEdge(START, "agent")
            .addConditionalEdges("agent", toolsCondition, ["tools", END])
            .addEdge("tools", "agent")
            .compile({ checkpointer: saver });
          return { graph, db, run };
        },
        async ({ graph, run }, step) => {
          onStep = step;
          const outs = await Promise.all(Array.from({ length: CONCURRENT_TURNS }, (_, t) =>
            graph.invoke({ messages: [{ role: "user", content: QUESTION }] }, { recursionLimit: 2 * CONCURRENT_STEPS + 10, configurable: { thread_id: `t${run}-${t}` } })));
          const wrong = outs.filter((o) => finalText(o.messages) !== FINAL_TEXT).length;
          if (wrong > 0) throw new Error(`langgraph concurrent: ${wrong} wrong answers`);
        },
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}
const model = new ScriptedChatModel(CONCURRENT_STEPS);

const lgOpen = process.env.FUNCTAI_BENCH_LG_OPEN;
if (lgOpen) await open10kRead(lgOpen);
// run as a benchmark file, not when bench/postgres.ts imports its graph
else if (process.argv[1] === fileURLToPath(import.meta.url))
  await main({
  step: stepOverhead("none"),
  "step-memory": stepOverhead("memory"),
  "step-sqlite": stepOverhead("sqlite"),
  "step-sqlite-full": stepOverhead("sqlite-full"),
  bytes,
  stream: streamEvents,
  resume,
  open10k,
  "concurrent-memory": concurrent("memory"),
  "concurrent-sqlite": concurrent("sqlite"),
  "concurrent-sqlite-full": concurrent("sqlite-full"),
});
