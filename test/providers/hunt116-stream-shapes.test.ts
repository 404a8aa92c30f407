/**
 * Streamed replies whose events are not of their kind's shape, and a
 * server that sends a call's arguments again once streamed, through the
 * real SDKs from a local server. The streams are the recorded real ones
 * (fixtures/hunt4-wire) with one event changed or added.
 *
 * A malformed event (OpenAI's `choices: [null]`, an Anthropic delta that is
 * null or for a block never begun) is `provider-response` naming what was
 * wrong, not a bare TypeError, and not read around (a tool call's input
 * lost unseen). vLLM's tool parsers flush a call's whole arguments at the
 * stream's end after streaming them (vllm-project/vllm#51697): the call is
 * the one the model made, not `{…}{…}` refused as JSON. llama.cpp's server
 * sends an error mid-stream in an `error:` field, which the SDK skips: it is
 * that error, not a stream cut short asked again. A whole reply whose calls
 * (blocks) are not objects is refused too, not a TypeError.
 */
import { describe, expect, it } from "vitest";
import { ask } from "./fixtures/two-orders.js";
import { dataOf, eventsOf } from "./fixtures/recorded-events.js";
import { modelsOver, streamed } from "./fixtures/models.js";
import { type MockServer, eachTestServer, failure, fixtureJson } from "./server.js";

let server: MockServer;
eachTestServer((s) => (server = s));

const { gpt, claude } = modelsOver(() => server);

/** gpt-4o-mini's recorded streamed call of get_capital({"country":"UK"}): its events, `[DONE]` last. */
const OPENAI_EVENTS = eventsOf("openai-chat-stream-02-response-tool-calls.sse");
/** The recorded stream with `data` (a chunk, as JSON's text) sent after its `after`th event. */
const openaiWith = (after: number, data: string): string =>
  [...OPENAI_EVENTS.slice(0, after), `data: ${data}\n\n`, ...OPENAI_EVENTS.slice(after)].join("");
/** A chunk of the recorded stream (its third, an arguments delta) with its first choice changed by `change`. */
function changedChunk(change: (choice: Record<string, unknown>) => unknown): string {
  const chunk = dataOf(OPENAI_EVENTS[2]!);
  const choice = (chunk.choices as Record<string, unknown>[])[0]!;
  return JSON.stringify({ ...chunk, choices: [change(structuredClone(choice))] });
}

describe("openai: a chunk not of a chunk's shape is provider-response naming it", () => {
  const cases: { name: string; data: string; says: string }[] = [
    { name: "choices: [null]", data: changedChunk(() => null), says: "a chunk whose choice is null" },
    { name: "tool_calls: [null]", data: changedChunk((c) => ({ ...c, delta: { tool_calls: [null] } })), says: "a tool call delta that is null" },
    {
      name: "tool_calls an object, not a list",
      data: changedChunk((c) => ({ ...c, delta: { tool_calls: { index: 0, function: { arguments: "UK" } } } })),
      says: "a delta whose tool_calls are",
    },
    { name: "a chunk that is null", data: "null", says: "a chunk that is null" },
  ];
  for (const { name, data, says } of cases) {
    it(`${name}: refused, not a TypeError, not asked again`, async () => {
      server.reply({ sse: openaiWith(3, data) }, { sse: OPENAI_EVENTS.join("") });
      const e = await failure(gpt().generate(ask, streamed));
      expect(e.code).toBe("provider-response");
      expect(e.message).toContain(`openai: the stream sent ${says}`);
      expect(server.requests).toHaveLength(1);
    });
  }
});

describe("openai: a call's whole arguments sent again after they were streamed (vLLM's end-of-stream flush)", () => {
  it("the call is the one the model made, its arguments read once", async () => {
    const again = changedChunk((c) => ({ ...c, delta: { tool_calls: [{ index: 0, function: { arguments: '{"country":"UK"}' } }] } }));
    // after the last arguments delta, before the finish
    server.reply({ sse: openaiWith(6, again) });
    const reply = await gpt().generate(ask, streamed);
    expect(reply.toolCalls).toEqual([{ id: "call_ZR5UUuTt3pf61kjwAJIYdVMj", name: "get_capital", input: { country: "UK" } }]);
  });
});

/** claude-sonnet-4's recorded streamed reply: text (block 0), then get_weather({"location":"Paris"}) (block 1). */
const ANTHROPIC_EVENTS = eventsOf("anthropic-stream-tool-use.sse");
const claudeEvent = (event: Record<string, unknown>): string => `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`;
/** The recorded stream with the event at `at` replaced by `events` (none: left out). */
const anthropicWith = (at: number, ...events: Record<string, unknown>[]): string =>
  [...ANTHROPIC_EVENTS.slice(0, at), ...events.map(claudeEvent), ...ANTHROPIC_EVENTS.slice(at + 1)].join("");
const indexOf = (type: string, index?: number): number =>
  ANTHROPIC_EVENTS.findIndex((e) => e.startsWith(`event: ${type}\n`) && (index === undefined || dataOf(e).index === index));

describe("anthropic: an event not of its kind's shape is provider-response naming it", () => {
  const firstDelta = indexOf("content_block_delta", 0);
  const cases: { name: string; stream: () => string; says: string }[] = [
    {
      name: "a content_block_delta whose delta is null",
      stream: () => anthropicWith(firstDelta, { type: "content_block_delta", index: 0, delta: null }),
      says: "a content_block_delta whose delta is null",
    },
    {
      name: "a content_block_start whose content_block is null",
      stream: () => anthropicWith(indexOf("content_block_start", 1), { type: "content_block_start", index: 1, content_block: null }),
      says: "a content_block_start whose content_block is null",
    },
    {
      name: "a message_delta whose delta is null",
      stream: () => anthropicWith(indexOf("message_delta"), { type: "message_delta", delta: null, usage: { output_tokens: 65 } }),
      says: "a message_delta whose delta is null",
    },
    {
      // a second call's start lost (a proxy dropped it): its input came, for a block never begun, and was dropped
      // unseen, the reply read as one of the first call alone
      name: "a tool call's input_json_delta for a block never begun",
      stream: () =>
        anthropicWith(
          indexOf("message_delta"),
          { type: "content_block_delta", index: 2, delta: { type: "input_json_delta", partial_json: '{"location": "Rome"}' } },
          dataOf(ANTHROPIC_EVENTS[indexOf("message_delta")]!),
        ),
      says: "a content_block_delta for block 2, which no content_block_start began",
    },
  ];
  for (const { name, stream, says } of cases) {
    it(`${name}: refused, not a TypeError, not read around`, async () => {
      server.reply({ sse: stream() }, { sse: ANTHROPIC_EVENTS.join("") });
      const e = await failure(claude().generate(ask, streamed));
      expect(e.code).toBe("provider-response");
      expect(e.message).toContain(`anthropic: the stream sent ${says}`);
      expect(server.requests).toHaveLength(1);
    });
  }
});

describe("openai-compatible: llama.cpp's error sent mid-stream in an `error:` field (HTTP 200), then [DONE]", () => {
  // llama.cpp's server_sent_event(sink, "error", error_data): no field of SSE, so the SDK skipped it
  const error = { code: 400, message: "the request exceeds the available context size, try increasing it", type: "exceed_context_size_error" };
  const stream = [...OPENAI_EVENTS.slice(0, 3), `error: ${JSON.stringify(error)}\n\n`, "data: [DONE]\n\n"].join("");

  it("is that error, in the server's words, with its code: not a stream cut short, not asked again", async () => {
    server.reply({ sse: stream }, { sse: OPENAI_EVENTS.join("") });
    const e = await failure(gpt().generate(ask, streamed));
    expect(e.code).toBe("provider-bad-request");
    expect(e.message).toContain("the request exceeds the available context size");
    expect(server.requests).toHaveLength(1);
  });
});

describe("a whole reply whose calls or blocks are not objects is provider-response showing it, not a TypeError", () => {
  const whole = (name: string): Record<string, unknown> => structuredClone(fixtureJson(`hunt4-wire/${name}`)) as Record<string, unknown>;

  it("openai: tool_calls: [null]", async () => {
    const body = whole("openai-chat-02-response-tool-calls.json") as { choices: { message: { tool_calls: unknown } }[] };
    body.choices[0]!.message.tool_calls = [null];
    server.reply({ json: body });
    const e = await failure(gpt().generate(ask));
    expect(e.code).toBe("provider-response");
    expect(e.message).toContain("openai: the response is not a completion whose tool_calls are a list of calls");
  });

  it("anthropic: content: [null]", async () => {
    const body = whole("anthropic-02-response-tool-use.json") as { content: unknown[] };
    body.content = [null];
    server.reply({ json: body });
    const e = await failure(claude().generate(ask));
    expect(e.code).toBe("provider-response");
    expect(e.message).toContain("anthropic: the response is not a message whose content is a list of blocks");
  });
});
