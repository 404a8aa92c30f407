/**
 * A call's `signal` aborted at each point of the tool loop (README
 * "Streams": "an AbortSignal in the call's options stops it"; DESIGN: ctx
 * carries `signal`, "aborted when the turn stops"; callable.ts: a call made
 * once its turn was stopped does not begin): the call rejects with
 * `turn-aborted` (the signal's reason its cause), nothing runs after the
 * abort, and a conversation's records say the turn stopped with what did run.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, FunctaiError, LM_SPEC, tool, type LanguageModel, type LMResponse, type Plugin, type PluginTurnEnd } from "../../src/index.js";
import { memoryStore, scripted } from "../../src/testing/index.js";

const codeOf = (e: unknown) => (e instanceof FunctaiError ? e.code : String(e));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A model that takes `ms` to answer and does not listen to the signal (a provider that cannot cancel). */
function slowModel(ms: number, replies: LMResponse[], onCall: () => void): LanguageModel & { sent: number; signals: AbortSignal[] } {
  const state = { sent: 0, signals: [] as AbortSignal[] };
  const generate = async (_request: unknown, options?: { signal?: AbortSignal }): Promise<LMResponse> => {
    const reply = replies[state.sent++];
    if (options?.signal) state.signals.push(options.signal);
    onCall();
    await sleep(ms);
    if (!reply) throw new Error("no more replies");
    return reply;
  };
  return Object.assign(state, { specificationVersion: LM_SPEC, provider: "slow", model: "slow-1", nativeTools: true, generate });
}
const usage = { inputTokens: 1, outputTokens: 1 };
const callsRefund: LMResponse = { text: "", toolCalls: [{ id: "c1", name: "refund", input: { order_id: "A-1" } }], finishReason: "tool_calls", usage };

function desk(onRun: () => void = () => undefined) {
  const REFUNDS: string[] = [];
  const SIGNALS: boolean[] = [];
  const refund = tool("refund", { description: "Refund.", input: { order_id: z.string() }, effects: "changes" }, async ({ order_id }, ctx) => {
    onRun();
    await sleep(40);
    SIGNALS.push(ctx.signal.aborted);
    REFUNDS.push(order_id);
    return `refunded ${order_id}`;
  });
  return { fn: ai("desk", { description: "Help.", input: { message: z.string() }, tools: [refund] }), REFUNDS, SIGNALS };
}

describe("a call's signal aborted", () => {
  it("during a model call whose model does not stop: turn-aborted with the reason; the tools of the reply that came late never run", async () => {
    const { fn, REFUNDS } = desk();
    const controller = new AbortController();
    const reason = new Error("the customer left");
    const lm = slowModel(40, [callsRefund, { text: "done", toolCalls: [], finishReason: "stop", usage }], () => setTimeout(() => controller.abort(reason), 5));
    const ends: PluginTurnEnd[] = [];
    const told: string[] = [];
    const watch: Plugin = {
      name: "watch",
      version: "1",
      hooks: { turnEnd: (e) => void ends.push(e), modelResponse: (r) => void told.push("response" in r ? "response" : `error: ${r.error}`) },
    };
    const call = fn("Refund A-1.", { lm, signal: controller.signal, plugins: [watch] }).catch((e: unknown) => e);
    const err = await call;
    expect(codeOf(err)).toBe("turn-aborted");
    expect((err as Error).cause).toBe(reason);
    expect(lm.signals[0]!.aborted).toBe(true); // the model was given the turn's signal, and it aborted
    expect(lm.sent).toBe(1);
    await sleep(80);
    expect(REFUNDS).toEqual([]);
    expect(ends.map((e) => e.state)).toEqual(["stopped"]);
    expect(told).toEqual(["response"]);
  });

  it("while an approve function decides: its yes comes too late, the tool never runs and nothing more is paid", async () => {
    const { fn, REFUNDS } = desk();
    const lm = scripted([{ toolCalls: [{ name: "refund", input: { order_id: "A-1" } }] }, "done"]);
    const controller = new AbortController();
    let asked = 0;
    const approve = async () => {
      asked++;
      controller.abort(); // the caller leaves while the answer is being made
      await sleep(30);
      return true;
    };
    const call = fn("Refund A-1.", { lm, signal: controller.signal, approve }).catch((e: unknown) => e);
    expect(codeOf(await call)).toBe("turn-aborted");
    await sleep(60);
    expect(asked).toBe(1);
    expect(REFUNDS).toEqual([]);
    expect(lm.requests).toHaveLength(1);
  });

  it("during a changing tool in a conversation: the tool sees its signal aborted, its end is kept, the turn reads stopped, no model call follows", async () => {
    const controller = new AbortController();
    const { fn, REFUNDS, SIGNALS } = desk(() => setTimeout(() => controller.abort(), 5));
    const lm = scripted([{ toolCalls: [{ name: "refund", input: { order_id: "A-1" } }] }, "done"]);
    const store = memoryStore();
    const chat = fn.conversation("sam", { store, lm });
    const sent = chat.send("Refund A-1.", { signal: controller.signal }).catch((e: unknown) => e);
    expect(codeOf(await sent)).toBe("turn-aborted");
    expect(REFUNDS).toEqual(["A-1"]); // it ran to its end (it did not listen), and is not run again
    expect(SIGNALS).toEqual([true]);
    expect(lm.requests).toHaveLength(1);
    const tools = (await store.read("sam")).filter((r) => r.kind === "tool").map((r) => (r as { state?: string }).state);
    expect(tools).toEqual(["started", "done"]);
    const [turn] = await chat.turns();
    expect(turn!.state).toBe("stopped");
    expect(turn!.unfinished).toEqual([]);
  });

  it("two tools of one reply, one slow, aborted between them: both end, each keeps its record, the turn stops", async () => {
    const RAN: string[] = [];
    const controller = new AbortController();
    const look = tool("look", { description: "Look.", input: { ms: z.number(), tag: z.string() }, effects: "reads" }, async ({ ms, tag }) => {
      await sleep(ms);
      if (tag === "fast") controller.abort(); // aborted once the first has ended, while the second still runs
      RAN.push(tag);
      return tag;
    });
    const fn = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [look] });
    const lm = scripted([{ toolCalls: [{ name: "look", input: { ms: 1, tag: "fast" } }, { name: "look", input: { ms: 40, tag: "slow" } }] }, "done"]);
    const store = memoryStore();
    const sent = fn.conversation("c2", { store, lm }).send("go", { signal: controller.signal }).catch((e: unknown) => e);
    expect(codeOf(await sent)).toBe("turn-aborted");
    expect(RAN).toEqual(["fast", "slow"]);
    expect(lm.requests).toHaveLength(1);
    const done = (await store.read("c2")).filter((r) => r.kind === "tool").map((r) => (r as { output?: unknown }).output);
    expect(done).toEqual(["fast", "slow"]);
  });
});
