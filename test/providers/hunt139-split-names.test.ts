/**
 * hunt 139: a streamed tool call's name in pieces (OpenAI-compatible).
 *
 * A chat-completion stream may give a call's name in pieces, `"lookup_"` in
 * one delta and `"order"` in the next, before its arguments (OpenAI's delta
 * form allows it: openai/openai-agents-python#326; Mistral's SDK joins
 * such pieces; Gemini has sent them: continuedev/continue#5849). The reader
 * took the second piece for another call: two calls, one to `lookup_` with
 * `{}` and one to `order` with the arguments, tools that do not exist, so
 * the tool asked for never ran. Other servers repeat the whole name in
 * every delta (MiniMax through NVIDIA NIM): that must stay one name, not
 * `lookup_orderlookup_order` (hunt44-stream-calls pins it too). The rule
 * (see namePiece in openai-wire.ts): before a call's arguments begin, the
 * offered tools' names tell a piece (the two joined begin a tool's name:
 * `lo` then `o` too) from the name repeated (the name so far is a tool's,
 * the same again) or another call (a tool's, then another name: servers
 * that give no ids and put every call at index 0); a name no tool has is
 * joined with a different piece, kept once when the same comes again.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, tool } from "../../src/index.js";
import type { LMRequest, ToolSpec } from "../../src/lm/types.js";
import { ask } from "./fixtures/two-orders.js";
import { callDeltas, callStream as streamOf } from "./fixtures/call-deltas.js";
import { chunkEvent, usageEvent } from "./fixtures/hunt51-wire.js";
import { modelsOver, streamed } from "./fixtures/models.js";
import { type MockServer, eachTestServer } from "./server.js";

let server: MockServer;
eachTestServer((s) => (server = s));
const MODEL = "gemini-2.5-flash";
const { gpt } = modelsOver(() => server, { gpt: MODEL, apiKey: "none", maxRetries: 0 });

/** A stream of these tool-call deltas from the file's model (see call-deltas.ts). */
const callStream = (deltas: Record<string, unknown>[]): string => streamOf(deltas, MODEL);

const LOOKUP = { id: "call_lookup", index: 0, name: "lookup_order", args: JSON.stringify({ order_id: "A-1042" }) };
const REFUND = { id: "call_refund", index: 1, name: "refund", args: JSON.stringify({ order_id: "B-2210" }) };

const calls = (got: Awaited<ReturnType<ReturnType<typeof gpt>["generate"]>>) =>
  got.toolCalls.map(({ name, input, inputError }) => ({ name, input, ...(inputError === undefined ? {} : { inputError }) }));

describe("a name in pieces is the one name", () => {
  it("through the tool loop: `lookup_` then `order`, then the arguments, runs lookup_order with them", async () => {
    const seen: unknown[] = [];
    const lookup = tool("lookup_order", { description: "The order's status.", input: { order_id: z.string() }, effects: "reads" }, (input) => {
      seen.push(input);
      return { status: "shipped" };
    });
    const answer = ai("answer", { description: "Answer the customer's question.", input: { question: z.string() }, tools: [lookup] });
    const deltas = callDeltas(LOOKUP, [7], [12], { ids: "first", indexed: true });
    expect(deltas.map((d) => (d.function as { name?: string }).name).filter(Boolean)).toEqual(["lookup_", "order"]);
    server.reply(
      { sse: callStream(deltas) },
      { sse: `${chunkEvent({ content: "<result>\nShipped.\n</result>" }, "stop", MODEL)}${usageEvent(60, 5, MODEL)}data: [DONE]\n\n` },
    );
    const turn = answer.stream("Where is A-1042?", { lm: gpt() });
    const shown: string[] = [];
    for await (const e of turn) if (e.type === "text") shown.push(e.delta);
    expect(await turn).toBe("Shipped.");
    expect(shown.join("")).toBe("Shipped.");
    expect(seen).toEqual([{ order_id: "A-1042" }]);
    // the model's next request answers the one call it made, under its id and name
    const messages = server.requests[1]!.body.messages as { role: string; tool_calls?: { id: string; function: { name: string } }[] }[];
    expect(messages.flatMap((m) => m.tool_calls ?? []).map((c) => [c.id, c.function.name])).toEqual([["call_lookup", "lookup_order"]]);
  });

  it("a piece that is the name so far again (`mur`, `mur`, `_hash`): the two joined begin a tool's name, so a piece", async () => {
    const murmur: ToolSpec = {
      name: "murmur_hash",
      description: "Hashes a text.",
      parameters: { type: "object", properties: { text: { type: "string" } } },
    };
    const deltas = ["mur", "mur", "_hash"].map((name, i) => ({
      index: 0,
      ...(i === 0 ? { id: "call_1", type: "function" } : {}),
      function: { name },
    }));
    server.reply({ sse: callStream([...deltas, { index: 0, function: { arguments: '{"text":"A-1042"}' } }]) });
    expect(calls(await gpt().generate({ ...ask, tools: [murmur] }, streamed))).toEqual([{ name: "murmur_hash", input: { text: "A-1042" } }]);
  });

  it("a name no tool has, in pieces, is joined (the model is told there is no such tool, by its whole name)", async () => {
    server.reply({ sse: callStream(callDeltas({ ...LOOKUP, name: "find_parcel" }, [5], [4], { ids: "first", indexed: true })) });
    expect(calls(await gpt().generate(ask, streamed))).toEqual([{ name: "find_parcel", input: { order_id: "A-1042" } }]);
  });

  it("given as a stream's text though asked whole (a server that streams regardless): the one name too", async () => {
    server.reply({
      raw: callStream(callDeltas(LOOKUP, [3, 9], [5], { ids: "first", indexed: true })),
      headers: { "content-type": "text/event-stream" },
    });
    expect(calls(await gpt().generate(ask))).toEqual([{ name: "lookup_order", input: { order_id: "A-1042" } }]);
  });

  it("property: however the name and the arguments of two calls are cut, with ids or none, each call is its own, named whole", async () => {
    const shape = fc.record({ ids: fc.constantFrom("every" as const, "first" as const, "none" as const), indexed: fc.boolean() });
    const cuts = fc.array(fc.nat(40), { maxLength: 5 });
    await fc.assert(
      fc.asyncProperty(shape, cuts, cuts, cuts, cuts, fc.boolean(), async (how, nameA, argsA, nameB, argsB, two) => {
        // (without an index or an id, two calls are told apart only by their names and whole arguments: still so)
        const deltas = [...callDeltas(LOOKUP, nameA, argsA, how), ...(two ? callDeltas(REFUND, nameB, argsB, how) : [])];
        server.reply({ sse: callStream(deltas) });
        const want = [{ name: "lookup_order", input: { order_id: "A-1042" } }, ...(two ? [{ name: "refund", input: { order_id: "B-2210" } }] : [])];
        expect(calls(await gpt().generate(ask, streamed)), JSON.stringify(deltas)).toEqual(want);
      }),
      { numRuns: 60 },
    );
  });
});

describe("a name repeated whole in every delta is still named once (guard)", () => {
  it("property: the whole name beside each argument piece, with ids or none", async () => {
    const shape = fc.record({ ids: fc.constantFrom("every" as const, "first" as const, "none" as const), indexed: fc.boolean() });
    await fc.assert(
      fc.asyncProperty(shape, fc.array(fc.nat(40), { maxLength: 5 }), async (how, argCuts) => {
        const deltas = callDeltas(LOOKUP, [], argCuts, how, { repeat: true });
        server.reply({ sse: callStream(deltas) });
        expect(calls(await gpt().generate(ask, streamed)), JSON.stringify(deltas)).toEqual([{ name: "lookup_order", input: { order_id: "A-1042" } }]);
      }),
      { numRuns: 30 },
    );
  });
});

describe("no ids, one index: a call of a tool without arguments, then another, are two calls (guard)", () => {
  const spec = (name: string, properties: Record<string, unknown> = {}): ToolSpec => ({
    name,
    description: `${name}.`,
    parameters: { type: "object", properties },
  });
  const request: LMRequest = { ...ask, tools: [spec("ping"), spec("lookup_order", { order_id: { type: "string" } })] };

  it("`ping` with no arguments, then `lookup_order`: ping is an offered tool and `pinglookup_order` begins none", async () => {
    server.reply({
      sse: callStream([
        { index: 0, type: "function", function: { name: "ping", arguments: "" } },
        { index: 0, type: "function", function: { name: "lookup_order", arguments: "" } },
        { index: 0, function: { arguments: LOOKUP.args } },
      ]),
    });
    expect(calls(await gpt().generate(request, streamed))).toEqual([
      { name: "ping", input: {} },
      { name: "lookup_order", input: { order_id: "A-1042" } },
    ]);
  });
});
