/**
 * Hunt 56: an `execute_tool` span is the tool's execution (the GenAI conventions: "describes tool execution";
 * `gen_ai.execute_tool.duration` is how long the tool ran). It started when the call was first seen (the
 * `toolCall` hook), before the built-in approval: an approve function that asks someone in this process (a
 * prompt, a chat message) counted its wait as the tool's duration, a refund shown taking minutes. It now starts
 * as the tool is about to run (the `toolRun` hook), after the approval; the span still says it was approved.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { otel } from "../../adapters/otel/index.js";
import { ai, tool, type Plugin } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { one, tracing } from "./tracing.js";

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
/** A span time ([seconds, nanoseconds]) in milliseconds. */
const hrTimeToMilliseconds = ([seconds, nanos]: [number, number]): number => Math.round(seconds * 1000 + nanos / 1e6);

function setup() {
  const ranAt: number[] = [];
  const refund = tool("refund", { description: "Refund.", input: { amount: z.number() }, effects: "changes" }, ({ amount }) => {
    ranAt.push(Date.now());
    return { refunded: amount };
  });
  const desk = ai("desk", { description: "Desk.", input: { message: z.string() }, tools: [refund] });
  const lm = scripted([{ toolCalls: [{ name: "refund", input: { amount: 39 } }] }, "Refunded."]);
  return { desk, lm, ranAt };
}

describe("otel(): execute_tool and an approval asked in this process", () => {
  it("the built-in approve function's wait is not in the tool's span: it starts once the call is approved", async () => {
    const t = tracing();
    const { desk, lm, ranAt } = setup();
    let answeredAt = 0;
    const approve = async () => {
      await sleep(120); // a person thinking it over
      answeredAt = Date.now();
      return true;
    };
    expect(await desk("Refund 39.", { lm, approve, plugins: [otel({ tracer: t.tracer })] })).toBe("Refunded.");
    const span = one(t.spans(), "execute_tool refund");
    expect(span.attributes).toMatchObject({ "functai.approval": "approved" });
    // (both on the wall clock in whole milliseconds: the span's start is taken with Date.now())
    expect(hrTimeToMilliseconds(span.startTime)).toBeGreaterThanOrEqual(answeredAt);
    expect(hrTimeToMilliseconds(span.startTime)).toBeLessThanOrEqual(ranAt[0]!);
  });

  it("nor is the wait for a plugin's question, answered by the approve function", async () => {
    const t = tracing();
    const { desk, lm } = setup();
    let answeredAt = 0;
    const asks: Plugin = { name: "limits", version: "1", hooks: { toolCall: () => ({ ask: "Refund 39?" }) } };
    const approve = async () => {
      await sleep(120);
      answeredAt = Date.now();
      return true;
    };
    // otel() first: its toolCall sees the call before the question is asked
    expect(await desk("Refund 39.", { lm, approve, plugins: [otel({ tracer: t.tracer }), asks] })).toBe("Refunded.");
    const span = one(t.spans(), "execute_tool refund");
    expect(hrTimeToMilliseconds(span.startTime)).toBeGreaterThanOrEqual(answeredAt);
  });
});
