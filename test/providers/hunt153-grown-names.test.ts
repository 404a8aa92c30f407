/**
 * hunt 153: a streamed tool call's name sent as all of it so far in each
 * delta (OpenAI-compatible).
 *
 * Servers that send a call's arguments cumulatively (hunt 144) may send its
 * name so too: `get`, `get_weather`, `get_weather`. The reader joined names
 * as OpenAI's pieces are joined (hunt 139), so the call was named
 * `getget_weatherget_weather`, a tool that does not exist, and the tool asked
 * for never ran. Now, before a call's arguments begin, a name that begins
 * with the name so far is that name again, grown (nameRead in
 * openai-wire.ts), unless the two joined begin an offered tool's name: the
 * normal form, an offered tool's name in pieces, is never read so, however it
 * is cut (a property below). The one form left ambiguous is a name so far
 * and the next one that, joined, begin another offered tool's name (tools
 * `a` and `aab`, a server sending `a` then `ab`): read as a piece.
 *
 * Hunt 139 left `get` then `get_weather` with no ids at one index (both
 * offered, no arguments between them) read as two calls, `get` with `{}`
 * and `get_weather`: read so, a server growing the name ran a tool the
 * model never called. It is now the one call of `get_weather` (a server that
 * puts every call at index 0 without ids sends each whole, with arguments;
 * `ping` then `lookup_order`, no name growing from the other, stay two:
 * hunt139-split-names pins it).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, tool } from "../../src/index.js";
import type { LMRequest, ToolSpec } from "../../src/lm/types.js";
import { callDeltas, callStream, pieces, type Shape } from "./fixtures/call-deltas.js";
import { chunkEvent, usageEvent } from "./fixtures/hunt51-wire.js";
import { modelsOver, streamed } from "./fixtures/models.js";
import { ask } from "./fixtures/two-orders.js";
import { type MockServer, eachTestServer } from "./server.js";

let server: MockServer;
eachTestServer((s) => (server = s));
const MODEL = "deepseek-chat";
const { gpt } = modelsOver(() => server, { gpt: MODEL, apiKey: "none", maxRetries: 0 });

const spec = (name: string): ToolSpec => ({
  name,
  description: `${name}.`,
  parameters: { type: "object", properties: { city: { type: "string" } } },
});
const offering = (...names: string[]): LMRequest => ({ ...ask, tools: names.map(spec) });
const ARGS = JSON.stringify({ city: "Paris" });

const calls = (got: Awaited<ReturnType<ReturnType<typeof gpt>["generate"]>>) =>
  got.toolCalls.map(({ name, input, inputError }) => ({ name, input, ...(inputError === undefined ? {} : { inputError }) }));

describe("a name sent as all of it so far in each delta is the one name", () => {
  it("through the tool loop: `get`, `get_weather`, then arguments each beside `get_weather`, runs get_weather once", async () => {
    const seen: unknown[] = [];
    const weather = tool("get_weather", { description: "The weather in a city.", input: { city: z.string() }, effects: "reads" }, (input) => {
      seen.push(input);
      return { sky: "clear" };
    });
    const answer = ai("answer", { description: "Answer the question.", input: { question: z.string() }, tools: [weather] });
    const deltas = callDeltas(
      { id: "call_1", index: 0, name: "get_weather", args: ARGS },
      [3],
      [5],
      { ids: "every", indexed: true },
      { grown: true, repeat: true },
    );
    expect(deltas.map((d) => (d.function as { name?: string }).name)).toEqual(["get", "get_weather", "get_weather", "get_weather"]);
    server.reply(
      { sse: callStream(deltas, MODEL) },
      { sse: `${chunkEvent({ content: "<result>\nClear.\n</result>" }, "stop", MODEL)}${usageEvent(60, 5, MODEL)}data: [DONE]\n\n` },
    );
    await expect(answer("Weather in Paris?", { lm: gpt() })).resolves.toBe("Clear.");
    expect(seen).toEqual([{ city: "Paris" }]);
    const messages = server.requests[1]!.body.messages as { tool_calls?: { function: { name: string } }[] }[];
    expect(messages.flatMap((m) => m.tool_calls ?? []).map((c) => c.function.name)).toEqual(["get_weather"]);
  });

  it("no ids, one index, `get` and `get_weather` both offered: `get` then `get_weather` is the one call of get_weather", async () => {
    server.reply({
      sse: callStream(
        [
          { index: 0, type: "function", function: { name: "get", arguments: "" } },
          { index: 0, function: { name: "get_weather", arguments: "" } },
          { index: 0, function: { arguments: ARGS } },
        ],
        MODEL,
      ),
    });
    expect(calls(await gpt().generate(offering("get", "get_weather"), streamed))).toEqual([{ name: "get_weather", input: { city: "Paris" } }]);
  });

  it("a name no tool has, grown: the model is told of it by that name, not the prefixes joined", async () => {
    const deltas = callDeltas(
      { id: "call_1", index: 0, name: "find_parcel", args: ARGS },
      [4, 8],
      [3],
      { ids: "first", indexed: true },
      { grown: true },
    );
    server.reply({ sse: callStream(deltas, MODEL) });
    expect(calls(await gpt().generate(offering("get_weather"), streamed))).toEqual([{ name: "find_parcel", input: { city: "Paris" } }]);
  });

  /** The names a form sends before a call's arguments begin: where two after another, joined, begin a tool's name, a piece is read. */
  const ambiguous = (sent: readonly string[], offered: readonly string[]): boolean =>
    sent.some((next, i) => i > 0 && offered.some((tool) => tool.startsWith(sent[i - 1]! + next)));

  it("property: an offered tool's name in pieces, grown, or repeated, with ids or none, indexed or not, is its own name", async () => {
    const word = fc.stringMatching(/^[a-z][a-z_]{0,9}$/);
    const shape: fc.Arbitrary<Shape> = fc.record({
      ids: fc.constantFrom("every" as const, "first" as const, "none" as const),
      indexed: fc.boolean(),
    });
    const cuts = fc.array(fc.nat(20), { maxLength: 4 });
    const form = fc.constantFrom("pieces" as const, "grown" as const, "grown, repeated" as const, "repeated" as const);
    await fc.assert(
      fc.asyncProperty(
        word,
        fc.array(fc.nat(20), { maxLength: 3 }),
        fc.array(word, { maxLength: 2 }),
        shape,
        cuts,
        cuts,
        form,
        async (name, prefixAt, others, how, nameCuts, argCuts, f) => {
          // offered: the tool called, tools whose names are prefixes of it (`get` beside `get_weather`), and others
          const offered = [...new Set([name, ...prefixAt.map((at) => name.slice(0, 1 + (at % name.length))), ...others])];
          const grown = f.startsWith("grown");
          const repeat = f.endsWith("repeated");
          const sent = grown ? pieces(name, nameCuts).map((_, i, all) => all.slice(0, i + 1).join("")) : repeat ? [name] : [];
          fc.pre(!ambiguous(repeat ? [...sent, name] : sent, offered));
          const deltas = callDeltas({ id: "call_1", index: 0, name, args: ARGS }, nameCuts, argCuts, how, { grown, repeat });
          server.reply({ sse: callStream(deltas, MODEL) });
          expect(calls(await gpt().generate(offering(...offered), streamed)), JSON.stringify({ offered, deltas })).toEqual([
            { name, input: { city: "Paris" } },
          ]);
        },
      ),
      { numRuns: 80 },
    );
  });
});
