/**
 * Two runs of one turn at once in one process (a run that lost its lease is
 * still waiting for its model while another handle claimed the turn): each
 * model call's span, and the tokens it used, go to the run that made the
 * call, found by the run's attempt, never by which run's call came back first.
 */
import { describe, expect, it } from "vitest";
import { otel } from "../../adapters/otel/index.js";
import { memoryStore, type LanguageModel } from "../../src/index.js";
import { faultyStore } from "../../src/testing/index.js";
import { build, memoryLog, World, worldLM, type ProgSpec } from "../durable/fixtures/world.js";
import { idOf, named, parentOf, tracing } from "./tracing.js";

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

const SLOW: ProgSpec = {
  root: { kind: "ai", fn: { name: "desk", tools: [{ kind: "reads", name: "look" }, { kind: "changes", name: "pay" }], steps: [["look"], ["pay"]] } },
  approve: null, deny: [],
};

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
    const t = tracing();
    const plugins = [otel({ tracer: t.tracer })];
    const inner = memoryStore();
    const effects = memoryLog();
    // A's renewals are held up (a stalled disk): its lease runs out while its slow model call is in flight
    const stalled = faultyStore(inner, {
      delayMs: (c) => (c?.records.some((r) => (r as { kind?: string }).kind === "lease") && !c.records.some((r) => (r as { kind?: string }).kind === "turn") ? 600 : 0),
    });
    const a = new World({ effects, latencyMs: 400 });
    const errA = build(SLOW, a).conversation("lease", { store: stalled, lm: costing(worldLM(a, SLOW), 1000), lease: { renewMs: 50, ttlMs: 150 }, plugins }).send({ text: "go" }).catch((e: unknown) => e);
    const b = new World({ effects });
    const chatB = build(SLOW, b).conversation("lease", { store: inner, lm: costing(worldLM(b, SLOW), 1), lease: { renewMs: 50, ttlMs: 150 }, plugins });
    let turn = (await chatB.turns())[0];
    for (let i = 0; i < 60 && turn?.state !== "interrupted"; i++) {
      await sleep(20);
      turn = (await chatB.turns())[0];
    }
    expect(turn!.state).toBe("interrupted");
    // B asks its first step's model while A's same step is still in flight, and is answered first
    expect(await turn!.resume()).toMatch(/^desk:/);
    expect(await errA).toMatchObject({ code: "lease-lost" });

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
