/**
 * Hunt 78: with `otel({ content: true })`, what a span records of contents had no bound: a tool's 10 MB result
 * became a 10 MB `gen_ai.tool.call.result`, and again in the next chat span's `gen_ai.input.messages` (each step's,
 * as the conversation goes on), its 10 MB error text a 10 MB status message. An exporter sends spans in batches, and
 * a collector refuses a request past its size (OTLP/gRPC's default: 4 MB): every span of that batch was lost, those
 * of other turns included. Now each content attribute (and a status message) is bounded: its long strings are cut,
 * each saying how long it was, and what is JSON stays JSON a backend can read.
 */
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { otel } from "../../adapters/otel/index.js";
import { ai, tool } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { named, one, tracing } from "./tracing.js";

const TEN_MB = 10_000_000;
/** Far under the 10 MB given, far over any attribute a turn of small messages makes: what a span may carry of one. */
const ATTRIBUTE_AT_MOST = 200_000;

/** Every string a span carries (attribute values, status message, event attributes), with where it is. */
function strings(spans: readonly ReadableSpan[]): { at: string; length: number }[] {
  const found: { at: string; length: number }[] = [];
  const add = (at: string, v: unknown) => {
    for (const s of Array.isArray(v) ? v : [v]) if (typeof s === "string") found.push({ at, length: s.length });
  };
  for (const span of spans) {
    for (const [k, v] of Object.entries(span.attributes)) add(`${span.name} ${k}`, v);
    add(`${span.name} status`, span.status.message);
    for (const e of span.events) for (const [k, v] of Object.entries(e.attributes ?? {})) add(`${span.name} ${e.name} ${k}`, v);
  }
  return found;
}

describe("otel({ content: true }) and contents of megabytes", () => {
  it("a tool's 10 MB result: no attribute carries more than a bounded part of it, the JSON ones still JSON, saying it was cut", async () => {
    const dump = tool("dump", { description: "Everything.", input: {}, effects: "reads" }, () => "r".repeat(TEN_MB));
    const answer = ai("answer", { description: "Answer.", input: { question: z.string() }, tools: [dump] });
    const t = tracing();
    const lm = scripted([{ toolCalls: [{ name: "dump", input: {} }] }, "Dumped."]);
    expect(await answer("Dump it.", { lm, plugins: [otel({ tracer: t.tracer, content: true })] })).toBe("Dumped.");
    const spans = t.spans();
    const long = strings(spans).filter((s) => s.length > ATTRIBUTE_AT_MOST);
    expect(long).toEqual([]);
    const result = one(spans, "execute_tool dump").attributes["gen_ai.tool.call.result"] as string;
    expect(result.startsWith("rrrr")).toBe(true);
    expect(result).toMatch(/10,000,000 characters/);
    // the second chat's request holds the tool's answer: still the conventions' JSON, its long text cut
    const chats = named(spans, "chat scripted");
    const messages = JSON.parse(chats.at(-1)!.attributes["gen_ai.input.messages"] as string) as { role: string; parts: { response?: string }[] }[];
    expect(messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool"]);
    expect(messages[3]!.parts[0]!.response).toMatch(/^r+.*10,000,000 characters/);
  });

  it("a tool's 10 MB error text and 10 MB input: bounded in the span's status and arguments", async () => {
    const fail = tool("fail", { description: "Fails.", input: { note: z.string() }, effects: "reads" }, () => {
      throw new Error("e".repeat(TEN_MB));
    });
    const answer = ai("answer", { description: "Answer.", input: { question: z.string() }, tools: [fail] });
    const t = tracing();
    const lm = scripted([{ toolCalls: [{ name: "fail", input: { note: "n".repeat(TEN_MB) } }] }, "It failed."]);
    expect(await answer("Try it.", { lm, plugins: [otel({ tracer: t.tracer, content: true })] })).toBe("It failed.");
    const spans = t.spans();
    expect(strings(spans).filter((s) => s.length > ATTRIBUTE_AT_MOST)).toEqual([]);
    const span = one(spans, "execute_tool fail");
    expect(JSON.parse(span.attributes["gen_ai.tool.call.arguments"] as string).note).toMatch(/^n+.*10,000,000 characters/);
    expect(span.status.message).toMatch(/eeee.*characters/);
  });
});
