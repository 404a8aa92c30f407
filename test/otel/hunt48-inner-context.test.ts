/**
 * Hunt 48: otel() given below a turn's outermost call (an AI function's `using`), in a service whose requests are
 * traced (a context manager, the request's span active while it calls the desk). The spans it makes (the inner
 * function's model calls, its tool calls) started under the context that was active when otel() was made, once,
 * at start-up: each request's spans were roots of traces of their own, never under the request that made them (and
 * had otel() been made inside some request, every later request's spans would have gone into that one's trace).
 */
import { context } from "@opentelemetry/api";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { otel } from "../../adapters/otel/index.js";
import { ai, tool } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { LocalStorageContext } from "./fixtures/hunt48-context.js";
import { idOf, named, parentOf, tracing } from "./tracing.js";

describe("otel() below the outermost call, in a traced request", () => {
  afterEach(() => context.disable());

  it("its spans are in the trace of the request that called the desk, under the request's span", async () => {
    expect(context.setGlobalContextManager(new LocalStorageContext())).toBe(true);
    const t = tracing();
    const look = tool("look", { description: "Look.", input: { id: z.string() }, effects: "reads" }, ({ id }) => `found ${id}`);
    const sub = ai("sub", { description: "Sub.", input: { q: z.string() }, tools: [look] }).using({ plugins: [otel({ tracer: t.tracer })] });
    const desk = ai("desk", { description: "Desk.", input: { q: z.string() }, tools: [sub] });
    const lmFor = (id: string) =>
      scripted([{ toolCalls: [{ name: "sub", input: { q: id } }] }, { toolCalls: [{ name: "look", input: { id } }] }, "sub done", "desk done"]);
    // two requests, one after the other, each traced by the service's own span
    for (const id of ["a", "b"]) {
      await t.tracer.startActiveSpan(`GET /desk/${id}`, async (request) => {
        await desk(id, { lm: lmFor(id) });
        request.end();
      });
    }
    const spans = t.spans();
    for (const id of ["a", "b"]) {
      const request = named(spans, `GET /desk/${id}`)[0]!;
      const traceId = request.spanContext().traceId;
      const inTrace = spans.filter((s) => s.spanContext().traceId === traceId).map((s) => s.name);
      expect(inTrace.sort(), id).toEqual([`GET /desk/${id}`, "chat scripted", "chat scripted", "execute_tool look"].sort());
      const chats = named(spans, "chat scripted").filter((s) => s.spanContext().traceId === traceId);
      expect(chats.map(parentOf), id).toEqual([idOf(request), idOf(request)]);
    }
  });
});
