/**
 * hunt 144: a streamed tool call's arguments as some OpenAI-compatible
 * servers send them, and a name that comes after them.
 *
 * DeepSeek's and Baidu Qianfan's endpoints may send all of a call's
 * arguments so far in every delta, not the next piece
 * (NousResearch/hermes-agent#35718). Joined, as OpenAI's pieces are, they
 * were `{"order_id"{"order_id": "A-1042"…`: no JSON, the call not run and
 * the model told its arguments were broken, again on every try. Now, where
 * the joined text is no JSON object, each delta began with the one before
 * and the last is whole, the last is the arguments (argumentsOfCall in
 * openai-wire.ts). Pieces of an object joined are that object, so the
 * normal form is never read so: a property cuts arguments anywhere, in
 * both forms.
 *
 * A name after a call's arguments began, neither the same name again nor
 * with an id or whole arguments to start a call of its own, is no piece of
 * the name (hunt 139): it was dropped, and the call ran under the name so
 * far, `refund` where `refund_all` was streamed. It is now a clear failure
 * (provider-response), no tool run.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, tool } from "../../src/index.js";
import type { ToolSpec } from "../../src/lm/types.js";
import { callDeltas, callStream, type Shape } from "./fixtures/call-deltas.js";
import { chunkEvent, usageEvent } from "./fixtures/hunt51-wire.js";
import { modelsOver, streamed } from "./fixtures/models.js";
import { ask } from "./fixtures/two-orders.js";
import { type MockServer, eachTestServer, failure } from "./server.js";

let server: MockServer;
eachTestServer((s) => (server = s));
const MODEL = "deepseek-chat";
const { gpt } = modelsOver(() => server, { gpt: MODEL, apiKey: "none", maxRetries: 0 });

const REFUND = { id: "call_00_refund", index: 0, name: "refund", args: JSON.stringify({ order_id: "B-2210", reason: "arrived broken" }) };
const LOOKUP = { id: "call_01_lookup", index: 1, name: "lookup_order", args: JSON.stringify({ order_id: "A-1042" }) };
const EVERY = { ids: "every", indexed: true } as const;

const calls = (got: Awaited<ReturnType<ReturnType<typeof gpt>["generate"]>>) =>
  got.toolCalls.map(({ name, input, inputError }) => ({ name, input, ...(inputError === undefined ? {} : { inputError }) }));

describe("arguments sent whole so far in every delta", () => {
  it("through the tool loop: the refund runs once, with the arguments the model wrote", async () => {
    const refunds: unknown[] = [];
    const refund = tool(
      "refund",
      { description: "Refunds an order.", input: { order_id: z.string(), reason: z.string() }, effects: "changes" },
      (input) => {
        refunds.push(input);
        return { refunded: true };
      },
    );
    const desk = ai("desk", { description: "Do what the customer asks.", input: { ask: z.string() }, tools: [refund] });
    const deltas = callDeltas(REFUND, [], [12, 26, 40], EVERY, { cumulative: true });
    // (as the server sends them: each delta all the arguments so far)
    expect(deltas.slice(1, 3).map((d) => (d.function as { arguments: string }).arguments)).toEqual(['{"order_id":', '{"order_id":"B-2210","reas']);
    server.reply(
      { sse: callStream(deltas, MODEL) },
      { sse: `${chunkEvent({ content: "<result>\nRefunded.\n</result>" }, "stop", MODEL)}${usageEvent(60, 5, MODEL)}data: [DONE]\n\n` },
    );
    await expect(desk("Refund B-2210, it arrived broken.", { lm: gpt() })).resolves.toBe("Refunded.");
    expect(refunds).toEqual([{ order_id: "B-2210", reason: "arrived broken" }]);
  });

  it("two calls, each its own, with ids and indexes or with none", async () => {
    for (const how of [EVERY, { ids: "first", indexed: true }, { ids: "none", indexed: false }] satisfies Shape[]) {
      const deltas = [...callDeltas(REFUND, [], [9, 30], how, { cumulative: true }), ...callDeltas(LOOKUP, [], [5, 14], how, { cumulative: true })];
      server.reply({ sse: callStream(deltas, MODEL) });
      expect(calls(await gpt().generate(ask, streamed)), JSON.stringify(how)).toEqual([
        { name: "refund", input: JSON.parse(REFUND.args) },
        { name: "lookup_order", input: { order_id: "A-1042" } },
      ]);
    }
  });

  it("cut off by the length limit before the arguments were whole: the call is cut short, not run (guard)", async () => {
    const deltas = callDeltas({ ...REFUND, args: REFUND.args.slice(0, 30) }, [], [12, 20], EVERY, { cumulative: true });
    const sse = callStream(deltas, MODEL).replace('"finish_reason":"tool_calls"', '"finish_reason":"length"');
    server.reply({ sse });
    const [call] = (await gpt().generate(ask, streamed)).toolCalls;
    expect(call!.name).toBe("refund");
    expect(call!.inputError).toBeDefined();
  });

  it('pieces that happen each to begin with the one before (`{"a":`, `{"a":`, `1}}`): joined, the object written (guard)', async () => {
    const deltas = ['{"a":', '{"a":', "1}}"].map((args, i) => ({
      index: 0,
      ...(i === 0 ? { id: "call_0", type: "function" } : {}),
      function: { ...(i === 0 ? { name: "refund" } : {}), arguments: args },
    }));
    server.reply({ sse: callStream(deltas, MODEL) });
    expect(calls(await gpt().generate(ask, streamed))).toEqual([{ name: "refund", input: { a: { a: 1 } } }]);
  });

  it("property: however arguments are cut, each piece sent or all so far sent each time, the call's input is the object written", async () => {
    const args = fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }).map((o) => JSON.stringify(o));
    const shape = fc.record({ ids: fc.constantFrom("every" as const, "first" as const, "none" as const), indexed: fc.boolean() });
    await fc.assert(
      fc.asyncProperty(args, fc.array(fc.nat(200), { maxLength: 8 }), shape, fc.boolean(), async (text, cuts, how, cumulative) => {
        const deltas = callDeltas({ ...REFUND, args: text }, [], cuts, how, { cumulative });
        server.reply({ sse: callStream(deltas, MODEL) });
        expect(calls(await gpt().generate(ask, streamed)), JSON.stringify(deltas)).toEqual([{ name: "refund", input: JSON.parse(text) }]);
      }),
      { numRuns: 80 },
    );
  });
});

describe("a name after the arguments began", () => {
  const tools: ToolSpec[] = ["refund", "refund_all"].map((name) => ({ ...ask.tools[1]!, name }));

  it("`refund`, arguments begun, then `_all`: provider-response naming both; through the tool loop, neither tool runs", async () => {
    const deltas = [
      { index: 0, id: "call_0", type: "function", function: { name: "refund", arguments: "" } },
      { index: 0, function: { arguments: '{"order_id": ' } },
      { index: 0, function: { name: "_all", arguments: '"B-2210"}' } },
    ];
    server.reply({ sse: callStream(deltas, MODEL) });
    const e = await failure(gpt().generate({ ...ask, tools }, streamed));
    expect(e.code).toBe("provider-response");
    expect(e.message).toContain('naming "_all" after the arguments of the call named "refund" began');

    const ran: string[] = [];
    const desk = ai("desk", {
      description: "Do what the customer asks.",
      input: { ask: z.string() },
      tools: tools.map((t) =>
        tool(t.name, { description: t.description, input: { order_id: z.string() }, effects: "changes" }, () => ran.push(t.name)),
      ),
    });
    server.reply({ sse: callStream(deltas, MODEL) });
    expect((await failure(desk("Refund them all.", { lm: gpt() }))).code).toBe("provider-response");
    expect(ran).toEqual([]);
  });

  it("the same name again beside its arguments (MiniMax through NIM) is still the one call (guard)", async () => {
    const deltas = callDeltas({ ...REFUND, name: "refund_all" }, [], [7, 19], { ids: "none", indexed: true }, { repeat: true });
    server.reply({ sse: callStream(deltas, MODEL) });
    expect(calls(await gpt().generate({ ...ask, tools }, streamed))).toEqual([{ name: "refund_all", input: JSON.parse(REFUND.args) }]);
  });
});
