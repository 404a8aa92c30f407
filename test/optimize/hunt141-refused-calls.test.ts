/**
 * Hunt 141: a recorded run whose call was refused before it ran (a plugin blocked it, a person did not allow it)
 * told its model so in a plain tool result, with no error flag, and its example kept that result as if the call had
 * worked: once the tool's input schema changed, `withState` refused the saved state, saying the call was "shown as a
 * call that worked" when the model had been shown the refusal. An example now keeps `refused: true` on such a
 * result (in its steps and its saved state), the load leaves the call as it is, and the model is shown the refusal
 * as the run's model read it. A result whose text is a refusal's, in a state saved before the mark was kept, is
 * taken as one; and a written call the example does not show working (its arguments not JSON, or no result given)
 * is left as it is too.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { ai, bootstrapFewShot, refusalText, tool, type AIState, type Plugin } from "../../src/index.js";
import { status } from "../evaluate/desk.js";
import { modelsOver } from "../providers/fixtures/models.js";
import { eachTestServer, fixtureJson, type MockServer } from "../providers/server.js";

let server: MockServer;
eachTestServer((s) => (server = s));
const { claude } = modelsOver(() => server);

type Json = Record<string, any>;

/** Every tool_result block a Messages request sent, without its tool_use_id (an example's ids are its own). */
const toolResults = (body: Json): Json[] =>
  (body.messages as Json[])
    .flatMap((m) => (Array.isArray(m.content) ? (m.content as Json[]) : []))
    .filter((b) => b.type === "tool_result")
    .map(({ tool_use_id: _, ...rest }) => rest);

/** A request's messages from its first tool call to its last tool result, their call ids left out. */
const exchange = (body: Json): Json[] => {
  const messages = body.messages as Json[];
  const blocks = (m: Json): Json[] => (Array.isArray(m.content) ? (m.content as Json[]) : []);
  const first = messages.findIndex((m) => blocks(m).some((b) => b.type === "tool_use"));
  const last = messages.map((m) => blocks(m).some((b) => b.type === "tool_result")).lastIndexOf(true);
  return messages.slice(first, last + 1).map((m) => ({ ...m, content: blocks(m).map(({ id: _, tool_use_id: __, ...rest }) => rest) }));
};

/** The status desk as it is after its tools changed: each takes `{ order }` (they took `{ order_id }` when the state was saved). */
const moved = ai("status", {
  description: status.state().instructions,
  input: { question: z.string() },
  tools: [
    tool("lookup_order", { description: "The order's item and shipping status.", input: { order: z.string() }, effects: "reads" }, () => "?"),
    tool("refund", { description: "Refund an order.", input: { order: z.string() }, effects: "changes" }, () => "?"),
  ],
});

/** A Messages reply calling `refund` for A-1042 (the recorded tool_use reply, its call changed). */
const refundCall = (): Json => {
  const reply = fixtureJson("anthropic/tool-use.json") as Json;
  reply.content = [
    { type: "text", text: "I'll refund that order." },
    { type: "tool_use", id: "toolu_01FxRefundA1042aaaaaaa", name: "refund", input: { order_id: "A-1042" } },
  ];
  return reply;
};

const closed: Plugin = {
  name: "closed-desk",
  version: "1.0.0",
  hooks: { toolCall: (call) => (call.name === "lookup_order" ? { block: "the order desk is closed today" } : undefined) },
};

/**
 * Records one passing run whose one call did not run, then checks the example: its result keeps `mark`, the state
 * saved and loaded into the desk with changed tools loads, and every function made from it shows the model that
 * result as the run's model read it (`told`).
 */
async function keepsTheCall(fn: typeof status, call: Json, told: Json, mark: Json): Promise<void> {
  server.reply({ json: call }, { json: fixtureJson("anthropic/text.json") });
  const better = await bootstrapFewShot(fn, [{ question: "Where is A-1042?", result: "?" }], {
    teacher: claude(),
    metric: () => 1,
    maxBootstrapped: 1,
    maxLabeled: 0,
  });
  // what the run's model read of its call
  const read = toolResults(server.requests[1]!.body);
  expect(read).toEqual([told]);
  const seen = exchange(server.requests[1]!.body);
  expect(seen.map((m) => m.role)).toEqual(["assistant", "user"]);
  expect(better.demos[0]!.steps![0]!.results).toEqual([{ ...mark, id: expect.any(String), name: call.content[1].name, content: read[0]!.content }]);

  const saved = JSON.parse(JSON.stringify(better.state())) as AIState;
  // the tool now takes another input: the call never ran, and is not shown as a call that worked
  const loaded = moved.withState(saved);
  for (const shown of [better, loaded]) {
    server.reply({ json: fixtureJson("anthropic/text.json") });
    await shown("Where is D-4410?", { lm: claude() });
    expect(exchange(server.requests.at(-1)!.body)).toEqual(seen);
  }
}

describe("an example whose run had a call refused before it ran", () => {
  it("a call a plugin blocked is kept as refused, loads once its tool's input changed, and is shown as the run saw it", async () => {
    const told = "The call was blocked (closed-desk). Reason: the order desk is closed today";
    await keepsTheCall(
      status.using({ plugins: [closed] }),
      fixtureJson("anthropic/tool-use.json") as Json,
      { type: "tool_result", content: told },
      { refused: true },
    );
  });

  it("a call a person did not allow is kept as refused, loads once its tool's input changed, and is shown as the run saw it", async () => {
    const told = refusalText("Refunds need a manager.");
    await keepsTheCall(
      status.using({ approve: () => "Refunds need a manager." }),
      refundCall(),
      { type: "tool_result", content: told },
      { refused: true },
    );
  });

  it("(guard) a call whose input its tool refused keeps its error flag, and is shown as the run saw it", async () => {
    const call = fixtureJson("anthropic/tool-use.json") as Json;
    call.content[1].input = { id: "A-1042" };
    const told = { type: "tool_result", content: expect.stringMatching(/^Error: invalid input for lookup_order: /), is_error: true };
    await keepsTheCall(status, call, told, { isError: true });
  });

  it("(guard) a call that ran keeps no refused mark, and is still refused once its tool no longer takes its input", async () => {
    server.reply({ json: fixtureJson("anthropic/tool-use.json") }, { json: fixtureJson("anthropic/text.json") });
    const better = await bootstrapFewShot(status, [{ question: "Where is A-1042?", result: "?" }], {
      teacher: claude(),
      metric: () => 1,
      maxBootstrapped: 1,
      maxLabeled: 0,
    });
    expect(better.demos[0]!.steps![0]!.results[0]).not.toHaveProperty("refused");
    expect(() => moved.withState(better.state())).toThrow(/step 1 calls lookup_order with an input the tool no longer takes/);
  });
});

describe("a written example's call it does not show working", () => {
  const written = (call: Json, results: Json[]): AIState => ({
    instructions: status.state().instructions,
    demos: [
      {
        inputs: { question: "Where is A-1042?" },
        outputs: { result: "stuck at the carrier" },
        steps: [{ text: "", toolCalls: [call as never], results: results as never }],
      },
    ],
  });

  it("one whose arguments were not JSON loads though its result has no error flag (the engine never reads such arguments)", () => {
    const state = written({ id: "c1", name: "lookup_order", input: '{"order_id": "A-10', inputError: "Unexpected end of JSON input" }, [
      { id: "c1", name: "lookup_order", content: "Error: the input could not be read. Send valid JSON." },
    ]);
    expect(moved.withState(state).demos).toHaveLength(1);
  });

  it("one with no result loads, and is shown answered with an error", async () => {
    const state = written({ id: "c1", name: "lookup_order", input: { order_id: "A-1042" } }, []);
    server.reply({ json: fixtureJson("anthropic/text.json") });
    await moved.withState(state)("Where is D-4410?", { lm: claude() });
    expect(toolResults(server.requests[0]!.body)).toEqual([{ type: "tool_result", content: "(no result was recorded)", is_error: true }]);
  });

  it("one answered with a refusal's text in a state saved before refused was kept loads", () => {
    const state = written({ id: "c1", name: "lookup_order", input: { order_id: "A-1042" } }, [
      { id: "c1", name: "lookup_order", content: "The call was blocked (closed-desk). Reason: the order desk is closed today" },
    ]);
    expect(moved.withState(state).demos[0]!.steps![0]!.results[0]).not.toHaveProperty("refused");
  });

  it("one given a refusal's result, marked refused, loads and is sent as a plain result", async () => {
    const state = written({ id: "c1", name: "refund", input: { order_id: "A-1042" } }, [
      { id: "c1", name: "refund", content: refusalText("not today"), refused: true },
    ]);
    server.reply({ json: fixtureJson("anthropic/text.json") });
    await moved.withState(state)("Where is D-4410?", { lm: claude() });
    expect(toolResults(server.requests[0]!.body)).toEqual([{ type: "tool_result", content: refusalText("not today") }]);
  });
});
