/** An in-memory span exporter behind a real SDK tracer provider, and the spans it got, as plain data. */
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";

export function tracing() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { exporter, provider, tracer: provider.getTracer("functai-test"), spans: () => exporter.getFinishedSpans() };
}

export const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;
export const idOf = (span: ReadableSpan): string => span.spanContext().spanId;
export const named = (spans: readonly ReadableSpan[], name: string): ReadableSpan[] => spans.filter((s) => s.name === name);
export const one = (spans: readonly ReadableSpan[], name: string): ReadableSpan => {
  const found = named(spans, name);
  if (found.length !== 1) throw new Error(`expected one span ${name}, got ${found.length}: ${spans.map((s) => s.name).join(", ")}`);
  return found[0]!;
};
/** Everything a span says (name, attributes, events, links, status) as one text, to look for what it must not hold. */
export const everything = (spans: readonly ReadableSpan[]): string =>
  JSON.stringify(spans.map((s) => ({ name: s.name, attributes: s.attributes, events: s.events, links: s.links, status: s.status })));

/** A span as a child process prints it (JSON), for the parent to read: `spanJson` makes it. */
export interface ChildSpan {
  name: string;
  traceId: string;
  spanId: string;
  parent: string | null;
  links: { traceId: string; spanId: string }[];
  attributes: Record<string, unknown>;
  events: { name: string; attributes: Record<string, unknown> }[];
  status: { code: number; message?: string };
  ended: boolean;
}

/** A finished span as a child process prints it (see ChildSpan). */
export const spanJson = (s: ReadableSpan): ChildSpan => ({
  name: s.name,
  traceId: s.spanContext().traceId,
  spanId: s.spanContext().spanId,
  parent: s.parentSpanContext?.spanId ?? null,
  links: s.links.map((l) => ({ traceId: l.context.traceId, spanId: l.context.spanId })),
  attributes: s.attributes as Record<string, unknown>,
  events: s.events.map((e) => ({ name: e.name, attributes: (e.attributes ?? {}) as Record<string, unknown> })),
  status: s.status,
  ended: s.ended,
});
