/**
 * Hunt 56: with the `toolRun` hook, otel() starts a tool's `execute_tool` span as the tool is about to run,
 * before anything says how it ends. Every span started is ended exactly once on every path: the tool threw, its
 * inner call waits for a person (and the resumed run makes its own), the turn was stopped or lost its lease
 * while the tool ran, another plugin's `toolRun` broke its rules, a parallel call failed the step.
 * (The SDK reports a second end() through diag, and never exports a span that was not ended.)
 */
import { diag, DiagLogLevel } from "@opentelemetry/api";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
  type Span,
  type SpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { otel } from "../../adapters/otel/index.js";
import { ai, memoryStore, tool, Waiting, type Plugin } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { stalledRenewals } from "../fixtures/another-host.js";
import { named } from "./tracing.js";

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A tracer whose spans are all seen as they start and end, and the SDK's complaints (a second end()). */
function watched() {
  const exporter = new InMemorySpanExporter();
  const started: Span[] = [];
  const ends = new Map<string, number>();
  const counting: SpanProcessor = {
    onStart: (span) => void started.push(span as Span),
    onEnd: (span: ReadableSpan) => void ends.set(span.spanContext().spanId, (ends.get(span.spanContext().spanId) ?? 0) + 1),
    forceFlush: async () => undefined,
    shutdown: async () => undefined,
  };
  const complaints: string[] = [];
  diag.setLogger(
    {
      error: (m) => void complaints.push(m),
      warn: (m) => void complaints.push(m),
      info: () => undefined,
      debug: () => undefined,
      verbose: () => undefined,
    },
    DiagLogLevel.WARN,
  );
  const provider = new BasicTracerProvider({ spanProcessors: [counting, new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer("functai-test");
  /** Each span started, ended exactly once, and nothing complained. */
  const allEndedOnce = () => {
    expect(started.length).toBeGreaterThan(0);
    expect(started.map((s) => [s.name, ends.get(s.spanContext().spanId) ?? 0])).toEqual(started.map((s) => [s.name, 1]));
    expect(complaints).toEqual([]);
  };
  return { tracer, spans: () => exporter.getFinishedSpans(), allEndedOnce };
}

afterEach(() => diag.disable());

describe("otel(): each span ended exactly once, with toolRun", () => {
  it("a tool that throws", async () => {
    const w = watched();
    const broken = tool("broken", { description: "Fails.", input: {}, effects: "reads" }, () => {
      throw new Error("down");
    });
    const desk = ai("desk", { description: "Desk.", input: { q: z.string() }, tools: [broken] });
    await desk("Go.", { lm: scripted([{ toolCalls: [{ name: "broken", input: {} }] }, "sorry"]), plugins: [otel({ tracer: w.tracer })] });
    w.allEndedOnce();
    expect(named(w.spans(), "execute_tool broken")).toHaveLength(1);
  });

  it("a tool whose inner call waits for a person, then the resumed run", async () => {
    const w = watched();
    const refunds: number[] = [];
    const refund = tool(
      "refund",
      { description: "Refund.", input: { amount: z.number() }, effects: "changes" },
      ({ amount }) => (refunds.push(amount), "ok"),
    );
    const billing = ai("billing", { description: "Billing.", input: { q: z.string() }, tools: [refund] });
    const desk = ai("desk", { description: "Desk.", input: { q: z.string() }, tools: [billing] });
    const lm = scripted([
      { toolCalls: [{ name: "billing", input: { q: "refund 5" } }] },
      { toolCalls: [{ name: "refund", input: { amount: 5 } }] },
      "refunded",
      "done",
    ]);
    const chat = desk.conversation("sam", { store: memoryStore(), lm, approve: ["refund"], plugins: [otel({ tracer: w.tracer })] });
    await expect(chat.send("Refund 5.")).rejects.toBeInstanceOf(Waiting);
    const [turn] = await chat.turns();
    expect(await turn!.approve({ by: "maria" })).toBe("done");
    expect(refunds).toEqual([5]);
    w.allEndedOnce();
    // the billing call's span in each run: ended with its run (waiting), then done
    expect(named(w.spans(), "execute_tool billing").map((s) => s.attributes["functai.turn.state"] ?? "ended")).toEqual(["waiting", "ended"]);
  });

  it("a turn stopped while its tool runs", async () => {
    const w = watched();
    const controller = new AbortController();
    const slow = tool("slow", { description: "Slow.", input: {}, effects: "reads" }, async (_input, ctx) => {
      controller.abort();
      await sleep(10);
      if (ctx.signal.aborted) throw new Error("stopped");
      return "done";
    });
    const desk = ai("desk", { description: "Desk.", input: { q: z.string() }, tools: [slow] });
    await expect(
      desk("Go.", {
        lm: scripted([{ toolCalls: [{ name: "slow", input: {} }] }, "ok"]),
        signal: controller.signal,
        plugins: [otel({ tracer: w.tracer })],
      }),
    ).rejects.toMatchObject({ code: "turn-aborted" });
    w.allEndedOnce();
  });

  it("a turn that loses its lease while its tool runs", async () => {
    const w = watched();
    const inner = memoryStore();
    const stalled = stalledRenewals(inner);
    let runs = 0;
    const look = tool("look", { description: "Look.", input: {}, effects: "reads" }, async (_input, ctx) => {
      if (++runs > 1) return "seen";
      await new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => resolve(), { once: true }));
      throw new Error("gave up");
    });
    const desk = ai("desk", { description: "Desk.", input: { q: z.string() }, tools: [look] });
    const lm = () =>
      scripted(
        Array.from(
          { length: 4 },
          () => (r: { messages: { role: string }[] }) =>
            r.messages.some((m) => m.role === "tool") ? "ok" : { toolCalls: [{ name: "look", input: {} }] },
        ),
      );
    const lease = { renewMs: 50, ttlMs: 150 };
    const plugins = [otel({ tracer: w.tracer })];
    const sent = desk
      .conversation("lease", { store: stalled, lm: lm(), lease, plugins })
      .send("Go.")
      .catch((e: unknown) => e);
    const other = desk.conversation("lease", { store: inner, lm: lm(), lease, plugins });
    let turn = (await other.turns())[0];
    for (let i = 0; i < 100 && turn?.state !== "interrupted"; i++) {
      await sleep(20);
      turn = (await other.turns())[0];
    }
    expect(turn!.state).toBe("interrupted");
    expect(await turn!.resume()).toBe("ok");
    expect(await sent).toMatchObject({ code: "lease-lost" });
    w.allEndedOnce();
    expect(named(w.spans(), "execute_tool look")).toHaveLength(2);
  }, 20_000);

  for (const where of ["before", "after"] as const) {
    it(`another plugin's toolRun that breaks its rules (${where} otel)`, async () => {
      const w = watched();
      const swap = {
        name: "swap",
        version: "1",
        hooks: { toolRun: async (_c: unknown, run: () => Promise<unknown>) => (await run(), "swapped") },
      } as unknown as Plugin;
      const look = tool("look", { description: "Look.", input: {}, effects: "reads" }, () => "seen");
      const desk = ai("desk", { description: "Desk.", input: { q: z.string() }, tools: [look] });
      const o = otel({ tracer: w.tracer });
      await expect(
        desk("Go.", { lm: scripted([{ toolCalls: [{ name: "look", input: {} }] }, "ok"]), plugins: where === "before" ? [swap, o] : [o, swap] }),
      ).rejects.toMatchObject({ code: "plugin-failed" });
      w.allEndedOnce();
      expect(named(w.spans(), "execute_tool look")).toHaveLength(1);
    });
  }

  it("a parallel call that fails the step while another tool still runs", async () => {
    const w = watched();
    let slowEnded = false;
    const slow = tool("slow", { description: "Slow.", input: {}, effects: "reads" }, async () => {
      await sleep(50);
      slowEnded = true;
      return "slow";
    });
    const guarded = tool("guarded", { description: "Guarded.", input: {}, effects: "reads" }, () => "never");
    // fails the guarded call (plugin-failed: it never lets it run) while slow runs beside it
    const broken = {
      name: "broken",
      version: "1",
      hooks: { toolRun: (c: { name: string }, run: () => Promise<unknown>) => (c.name === "guarded" ? Promise.resolve("faked") : run()) },
    } as unknown as Plugin;
    const desk = ai("desk", { description: "Desk.", input: { q: z.string() }, tools: [slow, guarded] });
    const lm = scripted([
      {
        toolCalls: [
          { name: "slow", input: {} },
          { name: "guarded", input: {} },
        ],
      },
      "ok",
    ]);
    await expect(desk("Go.", { lm, plugins: [otel({ tracer: w.tracer }), broken] })).rejects.toMatchObject({ code: "plugin-failed" });
    await sleep(80);
    expect(slowEnded).toBe(true);
    w.allEndedOnce();
  });
});
