/**
 * Vercel AI SDK (`ai` 6): `generateText` / `streamText` with one tool and
 * `MockLanguageModelV3` from `ai/test` answering instantly: n replies that
 * each ask for one tool call, then the final answer. `stopWhen:
 * stepCountIs(n + 1)` lets the loop run all n tool steps plus the answer.
 *
 * Not measured here: resume and journal bytes (the AI SDK keeps no durable
 * turn; a caller stores messages itself).
 */
import { generateText, stepCountIs, streamText, tool } from "ai";
import { MockLanguageModelV3, convertArrayToReadableStream } from "ai/test";
import type { LanguageModelV3GenerateResult, LanguageModelV3StreamPart, LanguageModelV3Usage } from "@ai-sdk/provider";
import { z } from "zod";
import {
  FINAL_TEXT, QUESTION, STEP_NS, STREAM_DELTAS, STREAM_FINAL_TEXT, STREAM_N, TEXT_STREAM_DELTAS, TEXT_STREAM_N, TEXT_STREAM_TEXT,
  gc, main, median, orderId, report, round, stepSeries, timed, toolOutput, streamRate,
} from "../lib/measure.js";

const NAME = "vercel ai";

const usage: LanguageModelV3Usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};

const tools = {
  lookup_order: tool({
    description: "The order's item and shipping status.",
    inputSchema: z.object({ order_id: z.string() }),
    execute: async ({ order_id }) => toolOutput(order_id),
  }),
};

function scriptedModel(n: number, deltas: readonly string[] = STREAM_DELTAS): MockLanguageModelV3 {
  let i = 0;
  return new MockLanguageModelV3({
    doGenerate: async (): Promise<LanguageModelV3GenerateResult> => {
      const k = i++;
      if (k < n) {
        return {
          content: [{ type: "tool-call", toolCallId: `call_${k}`, toolName: "lookup_order", input: JSON.stringify({ order_id: orderId(k) }) }],
          finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage, warnings: [],
        };
      }
      return { content: [{ type: "text", text: FINAL_TEXT }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] };
    },
    doStream: async () => {
      const k = i++;
      const parts: LanguageModelV3StreamPart[] = [{ type: "stream-start", warnings: [] }];
      if (k < n) {
        parts.push(
          { type: "tool-call", toolCallId: `call_${k}`, toolName: "lookup_order", input: JSON.stringify({ order_id: orderId(k) }) },
          { type: "finish", finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage },
        );
      } else {
        parts.push({ type: "text-start", id: "t" });
        for (const delta of deltas) parts.push({ type: "text-delta", id: "t", delta });
        parts.push({ type: "text-end", id: "t" }, { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage });
      }
      return { stream: convertArrayToReadableStream(parts) };
    },
  });
}

async function stepOverhead(): Promise<void> {
  await stepSeries(NAME, (n) => scriptedModel(n), async (model, n) => {
    const out = await generateText({ model, tools, prompt: QUESTION, stopWhen: stepCountIs(n + 1) });
    if (out.steps.length !== n + 1 || out.text !== FINAL_TEXT) throw new Error(`vercel: ${out.steps.length} steps, text ${out.text}`);
  });
}

async function streamEvents(): Promise<void> {
  await streamRun("stream_events_per_s", 0, TEXT_STREAM_N, TEXT_STREAM_DELTAS, TEXT_STREAM_TEXT);
  await streamRun("stream_tool_step_events_per_s", STREAM_N, STREAM_N, STREAM_DELTAS, STREAM_FINAL_TEXT);
}

/** One streamed run of `steps` tool steps, then a reply streamed as `deltas`; events/s through `for await`. */
async function streamRun(metric: string, steps: number, n: number, deltas: readonly string[], final: string): Promise<void> {
  const how = `streamText(...).fullStream, for await: ${steps} tool steps, then a reply of ${deltas.length} text deltas (MockLanguageModelV3 doStream)`;
  await streamRate({ metric, n, name: NAME, final, how }, () => scriptedModel(steps, deltas), async (model) => {
    const s = streamText({ model, tools, prompt: QUESTION, stopWhen: stepCountIs(steps + 1) });
    let events = 0;
    let text = "";
    for await (const part of s.fullStream) {
      events++;
      if (part.type === "text-delta") text += part.text;
      if (part.type === "error") throw part.error;
    }
    return { events, answer: text };
  });
}

await main({ step: stepOverhead, stream: streamEvents });
