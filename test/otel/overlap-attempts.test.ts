/**
 * Two runs of one turn at once in one process (a run that lost its lease is
 * still waiting for its model while another handle claimed the turn): each
 * model call's span, and the tokens it used, go to the run that made the
 * call, found by the run's attempt, never by which run's call came back first.
 */
import { describe, expect, it } from "vitest";
import type { LanguageModel } from "../../src/index.js";
import { idOf, named, parentOf } from "./tracing.js";
import { twoRuns } from "./two-runs.js";

/** The world's model, each reply using `tokens` input and output tokens: which run paid for a reply shows in its span. */
function costing(lm: LanguageModel, tokens: number): LanguageModel {
  return {
    ...lm,
    async generate(request, options) {
      const reply = await lm.generate(request, options);
      return { text: reply.text, toolCalls: reply.toolCalls, finishReason: reply.finishReason, usage: { inputTokens: tokens, outputTokens: tokens } };
    },
  };
}

describe("otel() with two runs of one turn at once: model calls by attempt", () => {
  it("the claiming run's reply, back first, ends its own chat span (not the stalled run's), and each turn span counts its own run's tokens", async () => {
    // A's reply costs 1000 tokens, B's 1: B is answered first, while A's same step is still in flight
    const t = await twoRuns({ latencyMs: 400, lmA: (lm) => costing(lm, 1000), lmB: (lm) => costing(lm, 1) });
    const runs = named(t.spans(), "invoke_agent desk");
    const runA = runs.find((s) => s.attributes["functai.attempt"] === 1)!;
    const runB = runs.find((s) => s.attributes["functai.attempt"] === 2)!;
    expect(runs.map((s) => s.attributes["functai.attempt"]).sort()).toEqual([1, 2]); // one turn span per run, no more
    const chats = named(t.spans(), "chat world");
    const under = (run: typeof runA) => chats.filter((s) => parentOf(s) === idOf(run));
    // A asked once (its first step), B three times (two tool steps and the answer); every one ended by its own reply
    expect(under(runA).map((s) => s.attributes["gen_ai.usage.input_tokens"])).toEqual([1000]);
    expect(under(runB).map((s) => s.attributes["gen_ai.usage.input_tokens"])).toEqual([1, 1, 1]);
    expect(runA.attributes["gen_ai.usage.input_tokens"]).toBe(1000);
    expect(runB.attributes["gen_ai.usage.input_tokens"]).toBe(3);
  });
});
