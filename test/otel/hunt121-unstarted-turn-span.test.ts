/**
 * Hunt 121: a tracer whose `startSpan` throws for a turn's span (a vendor's sampler with a bug, a processor that
 * refuses the first span of a trace). The turn goes on, told once, and its model and tool calls are still traced;
 * but the plugin kept no run for the turn, so the spans its calls started went to a spare run, which never sees its
 * turn end: a tool span open when the turn stopped (its inner call waits for a person) was left open, never
 * exported (held by the SDK until the runtime was collected, then ended as "abandoned"). Now the run is kept
 * without a turn span, and its turn's end ends what it left open, as for any run.
 */
import { diag, DiagLogLevel, type Tracer } from "@opentelemetry/api";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { otel } from "../../adapters/otel/index.js";
import { ai, memoryStore, tool, Waiting } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { named, tracing } from "./tracing.js";

/** The SDK's tracer, refusing to start any turn's span (`invoke_agent …`). */
function noTurnSpans(inner: Tracer): Tracer {
  return {
    startSpan: (name, options, ctx) => {
      if (name.startsWith("invoke_agent")) throw new Error("sampler refused");
      return inner.startSpan(name, options, ctx);
    },
    startActiveSpan: inner.startActiveSpan.bind(inner) as Tracer["startActiveSpan"],
  };
}

afterEach(() => diag.disable());

describe("otel() with a tracer that cannot start a turn's span", () => {
  it("a tool whose inner call waits for a person: its span is ended with the turn's run (waiting), not left open", async () => {
    const t = tracing();
    const told: string[] = [];
    const quiet = () => undefined;
    diag.setLogger({ error: (m) => void told.push(m), warn: quiet, info: quiet, debug: quiet, verbose: quiet }, DiagLogLevel.ERROR);
    const refund = tool("refund", { description: "Refund.", input: { amount: z.number() }, effects: "changes" }, () => "ok");
    const billing = ai("billing", { description: "Billing.", input: { q: z.string() }, tools: [refund] });
    const desk = ai("desk", { description: "Desk.", input: { q: z.string() }, tools: [billing] });
    const lm = scripted([{ toolCalls: [{ name: "billing", input: { q: "refund 5" } }] }, { toolCalls: [{ name: "refund", input: { amount: 5 } }] }]);
    const chat = desk.conversation("sam", { store: memoryStore(), lm, approve: ["refund"], plugins: [otel({ tracer: noTurnSpans(t.tracer) })] });
    await expect(chat.send("Refund 5.")).rejects.toBeInstanceOf(Waiting);
    // the model calls were traced and ended; so is the billing call, ended as its run ended
    expect(named(t.spans(), "chat scripted")).toHaveLength(2);
    expect(named(t.spans(), "execute_tool billing").map((s) => s.attributes["functai.turn.state"])).toEqual(["waiting"]);
    // told once, as the turn's span could not start
    expect(told).toEqual(["functai/otel: turnStart failed, the turn goes on: sampler refused"]);
  });
});
