/**
 * Hunt: no span is left open when a run of a turn ends early: its lease lost to another run (two-runs.ts,
 * reused here with a tracer whose spans are counted as they start and end), or its caller's signal aborting it
 * mid-tool (a tool that listens to ctx.signal, and one that does not).
 */
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan, type SpanProcessor } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { otel } from "../../adapters/otel/index.js";
import { ai, tool, type LMRequest } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { idOf, named, parentOf } from "./tracing.js";

/** Every span started and not yet ended, by name (filled by the counting processor of the mocked tracing()). */
const open = vi.hoisted(() => new Map<object, string>());
/** How many spans the counting processor saw start (so a test knows the mocked tracer is the one in use). */
const started = vi.hoisted(() => ({ count: 0 }));

vi.mock("./tracing.js", async (importOriginal) => {
  const original = await importOriginal<typeof import("./tracing.js")>();
  return {
    ...original,
    tracing: () => {
      const exporter = new InMemorySpanExporter();
      const counter: SpanProcessor = {
        onStart: (span) => {
          started.count += 1;
          open.set(span, span.name);
        },
        onEnd: (span: ReadableSpan) => void open.delete(span),
        forceFlush: () => Promise.resolve(),
        shutdown: () => Promise.resolve(),
      };
      const provider = new BasicTracerProvider({ spanProcessors: [counter, new SimpleSpanProcessor(exporter)] });
      return { exporter, provider, tracer: provider.getTracer("functai-test"), spans: () => exporter.getFinishedSpans() };
    },
  };
});

const { tracing } = await import("./tracing.js");
const { twoRuns } = await import("./two-runs.js");

describe("a run that lost its lease", () => {
  it("ends every span it started (its turn span interrupted, its model call's span too); none is left open", async () => {
    open.clear();
    started.count = 0;
    const t = await twoRuns({ latencyMs: 300 });
    await expect.poll(() => [...open.values()], { timeout: 5000 }).toEqual([]);
    expect(started.count).toBe(t.spans().length);
    expect(started.count).toBeGreaterThan(4);
    const runs = named(t.spans(), "invoke_agent desk");
    const lost = runs.find((s) => s.attributes["functai.attempt"] === 1)!;
    expect(lost.attributes["functai.turn.state"]).toBe("interrupted");
    // its model call (in flight when the lease was lost) ended under it
    const chats = t.spans().filter((s) => s.name.startsWith("chat") && parentOf(s) === idOf(lost));
    expect(chats).toHaveLength(1);
  });
});

/** A tool loop whose tool waits until stopped (`listens`) or until `release()` (deaf). */
function waiter(listens: boolean) {
  let release!: () => void;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  const ran = { started: 0, ended: 0 };
  const wait = tool("wait_for_it", { description: "Waits.", input: {}, effects: "reads" }, async (_input, ctx) => {
    ran.started += 1;
    await (listens ? new Promise<void>((r) => ctx.signal.addEventListener("abort", () => r(), { once: true })) : gate);
    ran.ended += 1;
    return "waited";
  });
  const fn = ai("waiter", { description: "Call wait_for_it.", input: { q: z.string() }, tools: [wait] });
  const lm = scripted(Array.from({ length: 4 }, () => (r: LMRequest) => (r.messages.at(-1)!.role === "tool" ? "done" : { toolCalls: [{ name: "wait_for_it", input: {} }] })));
  return { fn, lm, ran, release };
}

describe("a turn stopped by its signal mid-tool", () => {
  it("a tool that listens: the turn span ends stopped, the tool's span ends, nothing is left open", async () => {
    open.clear();
    const t = tracing();
    const { fn, lm, ran } = waiter(true);
    const controller = new AbortController();
    const call = fn("go", { lm, signal: controller.signal, plugins: [otel({ tracer: t.tracer })] });
    call.catch(() => {});
    await expect.poll(() => ran.started).toBe(1);
    controller.abort(new Error("enough"));
    await expect(call).rejects.toMatchObject({ code: "turn-aborted" });
    await expect.poll(() => [...open.values()], { timeout: 5000 }).toEqual([]);
    const turn = named(t.spans(), "invoke_agent waiter");
    expect(turn.map((s) => s.attributes["functai.turn.state"])).toEqual(["stopped"]);
    // the tool ran (and returned once told to stop): one span for it, under the turn
    expect(named(t.spans(), "execute_tool wait_for_it").map(parentOf)).toEqual([idOf(turn[0]!)]);
  });

  it("a tool deaf to its signal, ending after the turn was stopped: no span left open, and no tool span outside the turn's trace", async () => {
    open.clear();
    const t = tracing();
    const { fn, lm, ran, release } = waiter(false);
    const controller = new AbortController();
    const call = fn("go", { lm, signal: controller.signal, plugins: [otel({ tracer: t.tracer })] });
    call.catch(() => {});
    await expect.poll(() => ran.started).toBe(1);
    controller.abort(new Error("enough"));
    // the call settles once its run let go of the turn: after the deaf tool ended
    let settled = false;
    void call.catch(() => (settled = true));
    await new Promise((r) => setTimeout(r, 100));
    expect(settled).toBe(false);
    release();
    await expect(call).rejects.toMatchObject({ code: "turn-aborted" });
    expect(ran.ended).toBe(1);
    await expect.poll(() => [...open.values()], { timeout: 5000 }).toEqual([]);
    const turn = named(t.spans(), "invoke_agent waiter");
    expect(turn).toHaveLength(1);
    const traceId = turn[0]!.spanContext().traceId;
    for (const s of t.spans()) expect([s.name, s.spanContext().traceId]).toEqual([s.name, traceId]);
    expect(named(t.spans(), "execute_tool wait_for_it").map(parentOf)).toEqual([idOf(turn[0]!)]);
  });
});
