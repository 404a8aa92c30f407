/**
 * otel()'s tool hooks given the attempt of the run making the call (a field
 * of `PluginToolCall`): two runs of one turn at once, both at the same tool
 * call (same turn, site and invocation), each call's span goes under its own
 * run's turn span and is ended by its own result, whichever comes first.
 */
import { describe, expect, it } from "vitest";
import { otel } from "../../adapters/otel/index.js";
import type { PluginToolCall, PluginTurn, PluginTurnEnd } from "../../src/index.js";
import { idOf, named, parentOf, tracing } from "./tracing.js";

const runOf = (attempt: number): PluginTurn => ({
  turn: "t1", name: "desk", mode: "conversation", attempt, resumed: attempt > 1, input: {}, kept: [], keep: () => undefined,
});
const call = (attempt: number, input: unknown): PluginToolCall => ({ name: "look", input, effects: "reads", path: "desk/look", site: "desk#1", invocation: 1, turn: "t1", attempt });

describe("otel() tool spans of two runs of one turn at once", () => {
  it("the stalled run's call, seen after the claiming run started, and the claiming run's same call: each under its own run, ended by its own result", async () => {
    const t = tracing();
    const { hooks } = otel({ tracer: t.tracer, content: true });
    await hooks.turnStart!(runOf(1));
    await hooks.turnStart!(runOf(2));
    await hooks.toolCall!(call(1, { from: "A" }));
    await hooks.toolCall!(call(2, { from: "B" }));
    await hooks.toolResult!({ ...call(2, { from: "B" }), output: "B's", approved: null });
    await hooks.toolResult!({ ...call(1, { from: "A" }), output: "A's", approved: null });
    await hooks.turnEnd!({ ...runOf(2), usage: { inputTokens: 0, outputTokens: 0 }, state: "done", result: "ok" } as PluginTurnEnd);
    await hooks.turnEnd!({ ...runOf(1), usage: { inputTokens: 0, outputTokens: 0 }, state: "interrupted", error: "lease lost" } as PluginTurnEnd);

    const turns = named(t.spans(), "invoke_agent desk");
    const turnOf = (attempt: number) => idOf(turns.find((s) => s.attributes["functai.attempt"] === attempt)!);
    const tools = named(t.spans(), "execute_tool look").map((s) => [parentOf(s), s.attributes["gen_ai.tool.call.arguments"], s.attributes["gen_ai.tool.call.result"]]);
    expect(tools.sort()).toEqual([
      [turnOf(1), '{"from":"A"}', "A's"],
      [turnOf(2), '{"from":"B"}', "B's"],
    ].sort());
  });
});
