/**
 * otel() given below a turn's outermost call never sees the turn end: what it
 * keeps of tool calls that get no result (blocked, refused, waiting for a
 * person, cut off) must not stay for ever in a long-running process, and a
 * tool span that can no longer end is ended, saying why.
 */
import v8 from "node:v8";
import vm from "node:vm";
import type { Context } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan, type Span, type SpanProcessor } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { otel } from "../../adapters/otel/index.js";
import { LOOSE_LIMIT } from "../../adapters/otel/run.js";
import { ai, memoryStore, tool, Waiting, type Plugin, type PluginModelRequest, type PluginToolCall } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { named } from "./tracing.js";

v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc") as () => void;
/** Collects what nothing reaches any more, and lets the finalizers run (a WeakRef's target is kept until its job ends). */
async function collect(): Promise<void> {
  for (let i = 0; i < 3; i++) {
    await new Promise((r) => setTimeout(r, 5));
    gc();
  }
  await new Promise((r) => setTimeout(r, 20));
}

/** A tracer whose spans are counted as they start and end: the open ones are those started and never ended. */
function counting() {
  const exporter = new InMemorySpanExporter();
  let open = 0;
  const counter: SpanProcessor = {
    onStart: (_span: Span, _context: Context) => void open++,
    onEnd: (_span: ReadableSpan) => void open--,
    forceFlush: () => Promise.resolve(),
    shutdown: () => Promise.resolve(),
  };
  const provider = new BasicTracerProvider({ spanProcessors: [counter, new SimpleSpanProcessor(exporter)] });
  return { tracer: provider.getTracer("loose"), open: () => open, spans: () => exporter.getFinishedSpans() };
}

const state = (span: ReadableSpan): unknown => span.attributes["functai.turn.state"];

describe("otel() below the outermost call: calls with no result are let go", () => {
  it("a tool whose inner call waits for a person: its span is ended once the waiting run is gone, not left open", async () => {
    const t = counting();
    const refund = tool("refund", { description: "Refund.", input: { id: z.string() }, effects: "changes" }, ({ id }) => `refunded ${id}`);
    // only the refund is asked about (mid and sub, which call it, are not)
    const sub = ai("sub", { description: "Sub.", input: { q: z.string() }, tools: [refund] }).using({ approve: "changes" });
    const mid = ai("mid", { description: "Mid.", input: { q: z.string() }, tools: [sub] }).using({ plugins: [otel({ tracer: t.tracer })] });
    const desk = ai("desk", { description: "Desk.", input: { q: z.string() }, tools: [mid] });
    const turns = 20;
    await (async () => {
      for (let i = 0; i < turns; i++) {
        const lm = scripted([
          { toolCalls: [{ name: "mid", input: { q: `${i}` } }] },
          { toolCalls: [{ name: "sub", input: { q: `${i}` } }] },
          { toolCalls: [{ name: "refund", input: { id: `${i}` } }] },
        ]);
        const chat = desk.conversation(`c${i}`, { store: memoryStore(), lm });
        await expect(chat.send(`${i}`)).rejects.toBeInstanceOf(Waiting);
      }
    })();
    await collect();
    expect(t.open()).toBe(0);
    const subs = named(t.spans(), "execute_tool sub");
    expect(subs).toHaveLength(turns);
    for (const span of subs) expect(state(span)).toBe("abandoned");
  });

  // hooks called by hand (as a plugin may be): no turn to follow, so the plugin's spare run holds them
  const call = (turn: string, invocation: number, input: unknown): PluginToolCall => ({
    name: "refund", input, effects: "changes", path: "desk.mid.refund", site: "desk#1/mid#1", invocation, turn, attempt: 1,
  });
  const request = (turn: string, site: string, step: number): PluginModelRequest => ({
    turn, site, path: "desk.mid", step, attempt: 1, provider: "p", model: "m", request: { messages: [], tools: [] },
  });

  it("a blocked call is let go when its function asks the model again (its call is over)", async () => {
    const plugin: Plugin = otel({ tracer: counting().tracer });
    const refs: WeakRef<object>[] = [];
    await (async () => {
      for (let i = 0; i < 200; i++) {
        const input = { id: `${i}` };
        refs.push(new WeakRef(input));
        await plugin.hooks.toolCall!(call(`t${i}`, 1, input)); // blocked by a plugin after this one: no toolResult
        await plugin.hooks.modelRequest!(request(`t${i}`, "desk#1/mid#1", 2));
        await plugin.hooks.modelResponse!({ ...request(`t${i}`, "desk#1/mid#1", 2), error: "stopped" });
      }
    })();
    await collect();
    expect(refs.filter((r) => r.deref() !== undefined)).toHaveLength(0);
  });

  it("calls that never end (cut off, or waiting for good) are bounded: the oldest are let go, their spans ended as evicted", async () => {
    const t = counting();
    const plugin: Plugin = otel({ tracer: t.tracer });
    const calls = LOOSE_LIMIT + 50;
    for (let i = 0; i < calls; i++) {
      await plugin.hooks.toolCall!(call(`t${i}`, 1, { id: `${i}` }));
      // a model call inside the tool opens its span; the tool is then cut off (no toolResult)
      await plugin.hooks.modelRequest!(request(`t${i}`, "desk#1/mid#1/refund#1", 1));
      await plugin.hooks.modelResponse!({ ...request(`t${i}`, "desk#1/mid#1/refund#1", 1), error: "aborted" });
    }
    expect(t.open()).toBe(LOOSE_LIMIT);
    const evicted = named(t.spans(), "execute_tool refund");
    expect(evicted).toHaveLength(50);
    for (const span of evicted) expect(state(span)).toBe("evicted");
    expect(evicted.map((s) => s.attributes["functai.site"])).toEqual(Array(50).fill("desk#1/mid#1"));
  });
});
