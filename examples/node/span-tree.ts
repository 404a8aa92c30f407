/** Prints finished OpenTelemetry spans as a tree, each with the attributes worth reading. */
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { dim } from "./shared.js";

const ns = (s: ReadableSpan): number => s.startTime[0] * 1e9 + s.startTime[1];

function summary(s: ReadableSpan): string {
  const a = s.attributes;
  const parts: string[] = [];
  if (a["gen_ai.usage.input_tokens"] !== undefined) parts.push(`tokens in ${String(a["gen_ai.usage.input_tokens"])}, out ${String(a["gen_ai.usage.output_tokens"])}`);
  if (a["gen_ai.response.finish_reasons"] !== undefined) parts.push(`finish ${String(a["gen_ai.response.finish_reasons"])}`);
  if (a["functai.effects"] !== undefined) parts.push(`${String(a["functai.effects"])}, #${String(a["functai.invocation"])}, ${String(a["functai.approval"])}`);
  if (a["functai.turn.state"] !== undefined && a["gen_ai.operation.name"] === "invoke_agent") parts.push(String(a["functai.turn.state"]));
  for (const e of s.events) parts.push(`event ${e.name}`);
  if (s.links.length > 0) parts.push(`linked to ${s.links.length} earlier run(s)`);
  return parts.join("; ");
}

/** The spans as lines: roots first, children under their parent in the order they started. */
export function spanTree(spans: readonly ReadableSpan[]): string[] {
  const ids = new Set(spans.map((s) => s.spanContext().spanId));
  const children = new Map<string | undefined, ReadableSpan[]>();
  for (const s of [...spans].sort((x, y) => ns(x) - ns(y))) {
    const parent = s.parentSpanContext?.spanId;
    const key = parent !== undefined && ids.has(parent) ? parent : undefined;
    children.set(key, [...(children.get(key) ?? []), s]);
  }
  const lines: string[] = [];
  const walk = (parent: string | undefined, prefix: string): void => {
    const list = children.get(parent) ?? [];
    list.forEach((s, i) => {
      const last = i === list.length - 1;
      const branch = parent === undefined ? "" : last ? "└─ " : "├─ ";
      lines.push(`${prefix}${branch}${s.name}  ${dim(summary(s))}`);
      walk(s.spanContext().spanId, parent === undefined ? prefix : `${prefix}${last ? "   " : "│  "}`);
    });
  };
  walk(undefined, "");
  return lines;
}
