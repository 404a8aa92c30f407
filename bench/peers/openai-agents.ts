/**
 * OpenAI Agents SDK (`@openai/agents-core` 0.14): an `Agent` with one
 * function tool and a fake `Model` that answers instantly: n replies that each
 * ask for one function call, then the final message. Run through a `Runner`
 * with tracing disabled (no exporter is installed with agents-core alone;
 * disabling it only removes work, so the figure is kind to the peer).
 *
 * The fake model reads which step it is at from the request (the number of
 * input items), not from a counter, so a run resumed from a serialized
 * `RunState` gets the right reply.
 *
 * Resume: the tool needs approval on the last of RESUME_N calls; the run
 * stops there, its `RunState` is serialized (`toString`); resuming is
 * `RunState.fromString` + `approve` + `run` to the final answer. The state's
 * size at n = 100 and 200 is reported as this SDK's journal bytes (what a
 * caller persists to resume a turn).
 */
import { Agent, Runner, RunState, Usage, tool, type Model, type ModelRequest, type ModelResponse, type StreamEvent } from "@openai/agents-core";
import { performance } from "node:perf_hooks";
import { z } from "zod";
import {
  FINAL_TEXT, QUESTION, RESUME_N, RESUME_TIMING, STREAM_DELTAS, STREAM_FINAL_TEXT, STREAM_N, TEXT_STREAM_DELTAS, TEXT_STREAM_N, TEXT_STREAM_TEXT,
  main, orderId, report, round, stepSeries, timed, toolOutput, streamRate,
} from "../lib/measure.js";

const NAME = "openai agents";

const stepOf = (req: ModelRequest): number =>
  typeof req.input === "string" ? 0 : req.input.filter((x) => (x as { type?: string }).type === "function_call_result").length;

function reply(k: number, n: number, final: string): ModelResponse["output"] {
  if (k < n) {
    return [{ type: "function_call", callId: `call_${k}`, name: "lookup_order", arguments: JSON.stringify({ order_id: orderId(k) }), status: "completed" }];
  }
  return [{ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: final }] }];
}

/** `stepOf` counts results in the input: O(steps) per call, the same scan for every step count. Kept because it makes resume honest. */
class ScriptedModel implements Model {
  calls = 0;
  constructor(readonly n: number, readonly deltas: readonly string[] = STREAM_DELTAS, readonly streamed = STREAM_FINAL_TEXT) {}
  async getResponse(req: ModelRequest): Promise<ModelResponse> {
    this.calls++;
    return { usage: new Usage({ requests: 1, inputTokens: 10, outputTokens: 5, totalTokens: 15 }), output: reply(stepOf(req), this.n, FINAL_TEXT), responseId: `resp_${this.calls}` };
  }
  async *getStreamedResponse(req: ModelRequest): AsyncIterable<StreamEvent> {
    this.calls++;
    const k = stepOf(req);
    yield { type: "response_started" };
    if (k >= this.n) for (const delta of this.deltas) yield { type: "output_text_delta", delta };
    yield {
      type: "response_done",
      response: { id: `resp_${this.calls}`, usage: { requests: 1, inputTokens: 10, outputTokens: 5, totalTokens: 15 }, output: reply(k, this.n, this.streamed) },
    } as StreamEvent;
  }
}

const lookupOrder = (approveLast?: number) =>
  tool({
    name: "lookup_order",
    description: "The order's item and shipping status.",
    parameters: z.object({ order_id: z.string() }),
    ...(approveLast === undefined ? {} : { needsApproval: async (_ctx: unknown, input: { order_id: string }) => input.order_id === orderId(approveLast) }),
    execute: async ({ order_id }) => toolOutput(order_id),
  });

const runner = new Runner({ tracingDisabled: true });
const agentFor = (model: Model, approveLast?: number) =>
  new Agent({ name: "answer", instructions: "Answer the customer's question. Look the order up first.", tools: [lookupOrder(approveLast)], model });

async function stepOverhead(): Promise<void> {
  await stepSeries(NAME, (n) => agentFor(new ScriptedModel(n)), async (agent, n) => {
    const out = await runner.run(agent, QUESTION, { maxTurns: n + 5 });
    if (out.finalOutput !== FINAL_TEXT) throw new Error(`openai agents: final ${String(out.finalOutput)}`);
  }, () => ({ tracing: "disabled" }));
}

async function streamEvents(): Promise<void> {
  await streamRun("stream_events_per_s", 0, TEXT_STREAM_N, TEXT_STREAM_DELTAS, TEXT_STREAM_TEXT);
  await streamRun("stream_tool_step_events_per_s", STREAM_N, STREAM_N, STREAM_DELTAS, STREAM_FINAL_TEXT);
}

/** One streamed run of `steps` tool steps, then a reply streamed as `deltas`; events/s through `for await`. */
async function streamRun(metric: string, steps: number, n: number, deltas: readonly string[], final: string): Promise<void> {
  const how = `run(agent, q, { stream: true }), for await over the StreamedRunResult: ${steps} tool steps, then a reply of ${deltas.length} output_text_delta events from a fake Model`;
  await streamRate({ metric, n, name: NAME, final, how }, () => agentFor(new ScriptedModel(steps, deltas, final)), async (agent) => {
    const s = await runner.run(agent, QUESTION, { stream: true, maxTurns: steps + 5 });
    let events = 0;
    for await (const _e of s) events++;
    await s.completed;
    return { events, answer: s.finalOutput };
  });
}

/** Runs n steps, the n-th tool call needing approval; returns the serialized state at the interruption. */
async function interruptedAt(n: number): Promise<string> {
  const agent = agentFor(new ScriptedModel(n), n - 1);
  const out = await runner.run(agent, QUESTION, { maxTurns: n + 5 });
  if (out.interruptions.length !== 1) throw new Error(`openai agents: ${out.interruptions.length} interruptions`);
  return out.state.toString();
}

async function resume(): Promise<void> {
  const t0 = performance.now();
  const saved = await interruptedAt(RESUME_N);
  const buildMs = performance.now() - t0;
  const r = await timed(
    () => agentFor(new ScriptedModel(RESUME_N), RESUME_N - 1),
    async (agent) => {
      const state = await RunState.fromString(agent, saved);
      const pending = state.getInterruptions();
      if (pending.length !== 1) throw new Error("openai agents: no pending approval after fromString");
      state.approve(pending[0]!);
      const out = await runner.run(agent, state, { maxTurns: RESUME_N + 5 });
      if (out.finalOutput !== FINAL_TEXT) throw new Error(`openai agents resume: ${String(out.finalOutput)}`);
    },
    RESUME_TIMING,
  );
  report({
    metric: "resume_1000_steps_ms", n: RESUME_N, unit: "ms", name: NAME, value: round(r.medianMs),
    detail: {
      how: "RunState.fromString(serialized state at the approval on step 1000) + approve + run to the final answer",
      state_bytes: Buffer.byteLength(saved), runs_ms: r.runsMs.map((x) => round(x)), first_run_to_interruption_ms: round(buildMs),
    },
  });
}

async function stateBytes(): Promise<void> {
  for (const n of [100, 200]) {
    const saved = await interruptedAt(n);
    report({
      metric: `journal_bytes_${n}_steps`, n, unit: "bytes", name: NAME, value: Buffer.byteLength(saved),
      detail: { what: `RunState.toString() at the approval on tool call ${n} (what a caller persists to resume)` },
    });
  }
}

await main({ step: stepOverhead, stream: streamEvents, resume, bytes: stateBytes });
