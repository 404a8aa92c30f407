/**
 * Hunt 121: a tracer whose `startSpan` throws for one tool call's span (a sampler or processor with a bug that
 * refuses it). The turn went on, but each later hook asked the tracer for that span again: an AI function used as a
 * tool, whose span was refused, was told of six times (its toolRun, each inner model call, its inner tool's run and
 * result, its own result), and every span of the calls inside it was lost with it (their parent could not be made,
 * so neither could they). Now a span the tracer refused is asked for once, told once, and the calls inside the tool
 * are traced under the turn's span.
 */
import { diag, DiagLogLevel, type Tracer } from "@opentelemetry/api";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { otel } from "../../adapters/otel/index.js";
import { ai, tool } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { idOf, named, one, parentOf, tracing } from "./tracing.js";

/** The SDK's tracer, refusing to start the span named `refused`. */
function refusing(inner: Tracer, refused: string): Tracer {
  return {
    startSpan: (name, options, ctx) => {
      if (name === refused) throw new Error(`sampler refused ${name}`);
      return inner.startSpan(name, options, ctx);
    },
    startActiveSpan: inner.startActiveSpan.bind(inner) as Tracer["startActiveSpan"],
  };
}

afterEach(() => diag.disable());

describe("otel() with a tracer that refuses one tool call's span", () => {
  it("told once; the calls made inside that tool are still traced, under the turn's span", async () => {
    const t = tracing();
    const told: string[] = [];
    const quiet = () => undefined;
    diag.setLogger({ error: (m) => void told.push(m), warn: quiet, info: quiet, debug: quiet, verbose: quiet }, DiagLogLevel.ERROR);
    const look = tool("look", { description: "Look.", input: { q: z.string() }, effects: "reads" }, ({ q }) => q);
    const helper = ai("helper", { description: "Helps.", input: { q: z.string() }, tools: [look] });
    const desk = ai("desk", { description: "Desk.", input: { m: z.string() }, tools: [helper] });
    const lm = scripted([
      { toolCalls: [{ name: "helper", input: { q: "a" } }] },
      { toolCalls: [{ name: "look", input: { q: "a" } }] },
      "seen",
      "Done.",
    ]);
    expect(await desk("Go.", { lm, plugins: [otel({ tracer: refusing(t.tracer, "execute_tool helper") })] })).toBe("Done.");
    expect(told).toEqual(["functai/otel: toolRun failed, the turn goes on: sampler refused execute_tool helper"]);
    const spans = t.spans();
    const turn = one(spans, "invoke_agent desk");
    const inner = [
      ...named(spans, "chat scripted").filter((s) => s.attributes["functai.site"] === "desk#1/helper#1"),
      one(spans, "execute_tool look"),
    ];
    expect(inner.map((s) => [s.name, parentOf(s)])).toEqual([
      ["chat scripted", idOf(turn)],
      ["chat scripted", idOf(turn)],
      ["execute_tool look", idOf(turn)],
    ]);
  });
});
