/**
 * A tracer whose spans throw as attributes are set (a vendor's wrapper with a
 * bug, or one that refuses attributes it does not know): the turn goes on
 * (the plugin says so), and every span it started is still ended. Setting
 * the attributes and ending were one step: the throw skipped `end()`, and
 * the turn's, the model call's and the tool call's spans were never ended
 * (never exported, and held by the SDK's span processors for good).
 */
import { diag } from "@opentelemetry/api";
import type { Span, SpanOptions, Tracer } from "@opentelemetry/api";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { otel } from "../../adapters/otel/index.js";
import { ai, tool } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { tracing } from "./tracing.js";

/** The SDK's tracer, its spans refusing every attribute and event after they start. */
function refusing(inner: Tracer): Tracer {
  const wrap = (span: Span): Span =>
    new Proxy(span, {
      get(target, key) {
        if (key === "setAttribute" || key === "setAttributes" || key === "addEvent" || key === "setStatus")
          return () => {
            throw new Error(`span refuses ${String(key)}`);
          };
        const value = Reflect.get(target, key, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  return {
    startSpan: (name: string, options?: SpanOptions, ctx?: Parameters<Tracer["startSpan"]>[2]) => wrap(inner.startSpan(name, options, ctx)),
    startActiveSpan: inner.startActiveSpan.bind(inner) as Tracer["startActiveSpan"],
  };
}

describe("otel() with spans that throw as attributes are set", () => {
  afterEach(() => diag.disable());

  it("the turn goes on and every span it started is ended: turn, model calls, a tool call that failed and one that did not", async () => {
    const t = tracing();
    const look = tool("look", { description: "x", input: {}, effects: "reads" }, () => "seen");
    const broken = tool("broken", { description: "x", input: {}, effects: "reads" }, () => {
      throw new Error("down");
    });
    const fn = ai("fn", { description: "x", input: { q: z.string() }, tools: [look, broken] });
    const lm = scripted([
      {
        toolCalls: [
          { name: "look", input: {} },
          { name: "broken", input: {} },
        ],
      },
      "ok",
    ]);
    expect(await fn("go", { lm, plugins: [otel({ tracer: refusing(t.tracer) })] })).toBe("ok");
    expect(
      t
        .spans()
        .map((s) => s.name)
        .sort(),
    ).toEqual(["chat scripted", "chat scripted", "execute_tool broken", "execute_tool look", "invoke_agent fn"]);
  });

  it("a failed model call's span and a failed turn's span are ended too", async () => {
    const t = tracing();
    const fn = ai("fn", { description: "x", input: { q: z.string() } });
    await expect(fn("go", { lm: scripted([]), plugins: [otel({ tracer: refusing(t.tracer) })] })).rejects.toMatchObject({ code: "lm-script-ended" });
    expect(
      t
        .spans()
        .map((s) => s.name)
        .sort(),
    ).toEqual(["chat scripted", "invoke_agent fn"]);
  });
});
