/**
 * Hunt 143: the wait event of a run stopped by a call left in doubt (`turn-unfinished`) names the calls a person
 * must settle, and only those.
 *
 * - An AI function used as a tool, whose own changing call (an MCP refund whose server went away mid-call) was left
 *   in doubt: the tool call that ran the AI function stops too, and it was listed beside the refund
 *   (`["desk/refunder/refund", "desk/refunder"]`). The turn's records hold the refund alone as unfinished, and a
 *   person can settle only it (`resume({ results })` or `rerun`): the event named a call nobody can answer for.
 * - Two calls of one tool left in doubt in one step share a path: the event listed `desk/refund` twice, and said
 *   nothing a person could tell them apart by. It now gives each call's key too (`functai.wait.unfinished_ids`,
 *   `site:invocation`, the key `resume` takes), as the approvals' event gives their ids.
 * - A delegated turn stopped by its own call left in doubt: the calling turn's event named the delegate's call
 *   (`desk/billing`), which the calling turn's records do not hold as unfinished (a person settles the delegated
 *   turn's refund, in its conversation). It now names the delegated turn's calls, as a delegated wait names the
 *   approvals it waits for.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { mcpTools } from "../../adapters/mcp/index.js";
import { otel } from "../../adapters/otel/index.js";
import { ai, delegate, memoryStore } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { hungClient } from "./fixtures/hung-desk.js";
import { one, tracing } from "./tracing.js";

describe("otel(): a run stopped by a call left in doubt inside an AI function used as a tool", () => {
  it("its wait event names the inner call alone, as the turn's records do", async () => {
    const t = tracing();
    const refund = (await mcpTools(await hungClient())).filter((x) => x.name === "refund");
    const refunder = ai("refunder", { description: "Refund the order in full.", input: { order_id: z.string() }, tools: refund });
    const desk = ai("desk", { description: "Help the customer.", input: { message: z.string() }, tools: [refunder] });
    const lm = scripted([
      { toolCalls: [{ name: "refunder", input: { order_id: "HANG" } }] },
      { toolCalls: [{ name: "refund", input: { order_id: "HANG", amount: 5 } }] },
    ]);
    const chat = desk.conversation("sam", { store: memoryStore(), lm, plugins: [otel({ tracer: t.tracer })] });
    await expect(chat.send("Order HANG never arrived.")).rejects.toMatchObject({ code: "turn-unfinished" });
    const [turn] = await chat.turns();
    const unfinished = turn!.unfinished.map((u) => u.path);
    expect(unfinished).toEqual(["desk/refunder/refund"]);
    expect(turn!.unfinished.map((u) => `${u.site}:${u.invocation}`)).toEqual(["desk#1/refunder#1:1"]);
    const events = one(t.spans(), "invoke_agent desk").events;
    expect(events.map((e) => [e.name, e.attributes])).toEqual([
      ["functai.wait", { "functai.wait.unfinished": unfinished, "functai.wait.unfinished_ids": ["desk#1/refunder#1:1"] }],
    ]);
    // the AI function's own call still says it stopped for a person (not a failure): only the event's list changed
    expect(one(t.spans(), "execute_tool refunder").attributes["functai.turn.state"]).toBe("unfinished");
  });
});

describe("otel(): two calls of one tool left in doubt in one step", () => {
  // Decision: their paths are the same (`desk/refund`), so the event says alone which is which by the key a person
  // answers with (`resume({ results: { "<site>:<invocation>": … } })`), beside the paths as approvals have their ids.
  it("the wait event gives each call's key, the ones the turn's records give", async () => {
    const t = tracing();
    const desk = ai("desk", { description: "Help the customer.", input: { message: z.string() }, tools: await mcpTools(await hungClient()) });
    const hang = { name: "refund", input: { order_id: "HANG", amount: 5 } };
    const lm = scripted([{ toolCalls: [hang, hang] }]);
    const chat = desk.conversation("sam", { store: memoryStore(), lm, plugins: [otel({ tracer: t.tracer })] });
    await expect(chat.send("Order HANG never arrived, twice.")).rejects.toMatchObject({ code: "turn-unfinished" });
    const [turn] = await chat.turns();
    const unfinished = turn!.unfinished;
    expect(unfinished).toHaveLength(2);
    const [wait] = one(t.spans(), "invoke_agent desk").events;
    expect(wait!.attributes).toEqual({
      "functai.wait.unfinished": unfinished.map((u) => u.path),
      "functai.wait.unfinished_ids": unfinished.map((u) => `${u.site}:${u.invocation}`),
    });
    expect(new Set(wait!.attributes!["functai.wait.unfinished_ids"] as string[]).size).toBe(2);
  });
});

describe("otel(): a delegated turn stopped by its own call left in doubt", () => {
  it("the calling turn's wait event names the delegated turn's call, not the delegate's, which its records do not hold", async () => {
    const t = tracing();
    const refund = (await mcpTools(await hungClient())).filter((x) => x.name === "refund");
    const billing = ai("billing", { description: "Refund the order in full.", input: { question: z.string() }, tools: refund });
    const desk = ai("desk", { description: "Help the customer.", input: { message: z.string() }, tools: [delegate(billing)] });
    const lm = scripted([
      { toolCalls: [{ name: "billing", input: { question: "Refund HANG." } }] },
      { toolCalls: [{ name: "refund", input: { order_id: "HANG", amount: 5 } }] },
    ]);
    const chat = desk.conversation("sam", { store: memoryStore(), lm, plugins: [otel({ tracer: t.tracer })] });
    await expect(chat.send("Order HANG never arrived.")).rejects.toMatchObject({ code: "turn-unfinished" });
    const [turn] = await chat.turns();
    expect(turn!.unfinished).toEqual([]);
    const [delegated] = one(t.spans(), "invoke_agent billing").events;
    expect(delegated!.attributes).toEqual({ "functai.wait.unfinished": ["billing/refund"], "functai.wait.unfinished_ids": ["billing#1:1"] });
    const [calling] = one(t.spans(), "invoke_agent desk").events;
    expect([calling!.name, calling!.attributes]).toEqual([delegated!.name, delegated!.attributes]);
  });
});
