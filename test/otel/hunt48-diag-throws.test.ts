/**
 * Hunt 48: a tracing failure never fails a turn, even when OpenTelemetry's diagnostics logger (where otel() tells
 * it) throws too: a logger writing to a closed stream or a full disk. The failure was thrown on from the hook, and
 * the turn failed plugin-failed after its changing tool had run, its reply lost.
 */
import { diag, DiagLogLevel } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type SpanProcessor } from "@opentelemetry/sdk-trace-base";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { otel } from "../../adapters/otel/index.js";
import { ai, tool } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

describe("otel() with a span processor that throws and a diagnostics logger that throws too", () => {
  afterEach(() => diag.disable());

  it("the turn ends as without tracing: its tool ran once, its answer is given", async () => {
    const told: string[] = [];
    const failing = (m: string): void => {
      told.push(m);
      throw new Error("EPIPE: the log stream is closed");
    };
    diag.setLogger({ error: failing, warn: failing, info: () => {}, debug: () => {}, verbose: () => {} }, DiagLogLevel.WARN);
    const broken: SpanProcessor = {
      onStart: () => {
        throw new Error("processor bug on start");
      },
      onEnd: () => {
        throw new Error("processor bug on end");
      },
      forceFlush: async () => {},
      shutdown: async () => {},
    };
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [broken, new SimpleSpanProcessor(exporter)] });
    const refunds: string[] = [];
    const refund = tool("refund", { description: "Refund.", input: { order_id: z.string() }, effects: "changes" }, ({ order_id }) => {
      refunds.push(order_id);
      return `refunded ${order_id}`;
    });
    const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [refund] });
    const lm = scripted([{ toolCalls: [{ name: "refund", input: { order_id: "A-1042" } }] }, "Refunded."]);
    const reply = await desk("Refund A-1042.", { lm, approve: () => true, plugins: [otel({ tracer: provider.getTracer("broken") })] });
    expect(reply).toBe("Refunded.");
    expect(refunds).toEqual(["A-1042"]);
    // the logger was asked (and threw)
    expect(told.some((m) => m.includes("processor bug"))).toBe(true);
  });
});
