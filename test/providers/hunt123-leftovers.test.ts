/**
 * Replies a part of which is not what its kind holds, through the real SDKs
 * from a local server: the recorded real streams and bodies (fixtures/hunt4-wire)
 * with one part changed or one event added.
 *
 * OpenAI: a streamed tool call whose `function.name` is no string (a number,
 * an object) was a call whose name was 42 or an object (whole: named "", no
 * tool's, the server's fault unseen); a `function` that is a string, a call
 * with no name at all; a streamed `refusal` that is no string was the text
 * "42" or "[object Object]" (whole: a reply whose text was no string). Now
 * each is `provider-response` naming the part. A whole reply's call with no
 * `function` was dropped, the others run as though asked for alone: now
 * refused too. Old vLLM's error sent mid-stream unwrapped (`{ object:
 * "error", message, type, code }`, no `choices`) was read as an empty chunk,
 * the stream then cut short and asked again: now it is the server's error,
 * with the code its `code` names.
 *
 * Anthropic: an `input_json_delta` whose `partial_json` is null was read as
 * the text "null" (a call's arguments `{}`: it ran on arguments the model
 * never gave), a `thinking_delta` or `signature_delta` of null as "null" in
 * the thinking given back; a second `content_block_start` at an index
 * already begun overwrote the block (a started tool call lost unseen); a
 * `tool_use` whose name is no string was a call whose name was 42 (null:
 * null, not "" as OpenAI's is). Now each is `provider-response` naming the
 * part (a null or missing name is "", as OpenAI's is).
 */
import { describe, expect, it } from "vitest";
import { ask } from "./fixtures/two-orders.js";
import { dataOf, eventsOf } from "./fixtures/recorded-events.js";
import { modelsOver, streamed } from "./fixtures/models.js";
import { type MockServer, eachTestServer, failure, fixtureJson } from "./server.js";

let server: MockServer;
eachTestServer((s) => (server = s));

const { gpt, claude } = modelsOver(() => server);

const clone = <T>(value: T): T => structuredClone(value);

/** gpt-4o-mini's recorded streamed call of get_capital({"country":"UK"}): its events, `[DONE]` last. */
const OPENAI_EVENTS = eventsOf("openai-chat-stream-02-response-tool-calls.sse");
/** The recorded stream with its `at`th event's chunk changed by `change`. */
function openaiChanged(at: number, change: (chunk: Record<string, unknown>) => unknown): string {
  const events = [...OPENAI_EVENTS];
  events[at] = `data: ${JSON.stringify(change(clone(dataOf(events[at]!))))}\n\n`;
  return events.join("");
}
/** A chunk's first choice's delta. */
const deltaOf = (chunk: Record<string, unknown>): Record<string, unknown> => (chunk.choices as { delta: Record<string, unknown> }[])[0]!.delta;
/** A chunk's first tool call delta's `function`. */
const functionOf = (chunk: Record<string, unknown>): Record<string, unknown> =>
  (deltaOf(chunk).tool_calls as { function: Record<string, unknown> }[])[0]!.function;

describe("openai, streamed: a tool call whose function or name is not of its shape is provider-response naming it", () => {
  const cases: { name: string; change: (chunk: Record<string, unknown>) => void; says: string }[] = [
    { name: "name 42", change: (c) => void (functionOf(c).name = 42), says: "a tool call delta whose function.name is 42, not a string" },
    {
      name: "name an object",
      change: (c) => void (functionOf(c).name = { name: "get_capital" }),
      says: "a tool call delta whose function.name is",
    },
    {
      name: "function a string",
      change: (c) => void ((deltaOf(c).tool_calls as Record<string, unknown>[])[0]!.function = "get_capital"),
      says: 'a tool call delta whose function is "get_capital", not an object',
    },
  ];
  for (const { name, change, says } of cases) {
    it(`${name}: refused, no call named so, not asked again`, async () => {
      server.reply({
        sse: openaiChanged(0, (chunk) => {
          change(chunk);
          return chunk;
        }),
      });
      const e = await failure(gpt().generate(ask, streamed));
      expect(e.code).toBe("provider-response");
      expect(e.message).toContain(`openai: the stream sent ${says}`);
      expect(server.requests).toHaveLength(1);
    });
  }
});

describe("openai, streamed: a refusal that is not text is provider-response, never the text [object Object]", () => {
  for (const [name, refusal] of [
    ["a number", 42],
    ["an object", { text: "I can't help with that." }],
  ] as const) {
    it(`refusal ${name}`, async () => {
      server.reply({
        sse: openaiChanged(1, (chunk) => ({ ...chunk, choices: [{ index: 0, delta: { refusal }, logprobs: null, finish_reason: null }] })),
      });
      const e = await failure(gpt().generate(ask, streamed));
      expect(e.code).toBe("provider-response");
      expect(e.message).toContain("openai: the stream sent a delta whose refusal is");
      expect(server.requests).toHaveLength(1);
    });
  }
});

describe("openai, whole: a call's name or the refusal not of its shape is provider-response naming it", () => {
  type Completion = { choices: { message: Record<string, unknown> & { tool_calls: { function: Record<string, unknown> }[] } }[] };
  const whole = (): Completion => clone(fixtureJson("hunt4-wire/openai-chat-02-response-tool-calls.json")) as Completion;
  const cases: { name: string; change: (body: Completion) => void; says: string }[] = [
    {
      name: "name 42",
      change: (b) => void (b.choices[0]!.message.tool_calls[0]!.function.name = 42),
      says: "tool calls' names are strings (one's function.name is 42)",
    },
    {
      name: "name an object",
      change: (b) => void (b.choices[0]!.message.tool_calls[0]!.function.name = { n: 1 }),
      says: "tool calls' names are strings (one's function.name is {",
    },
    { name: "refusal 42", change: (b) => void (b.choices[0]!.message.refusal = 42), says: "refusal is a string (it is 42)" },
    { name: "refusal an object", change: (b) => void (b.choices[0]!.message.refusal = { text: "No." }), says: "refusal is a string (it is {" },
  ];
  for (const { name, change, says } of cases) {
    it(name, async () => {
      const body = whole();
      change(body);
      server.reply({ json: body });
      const e = await failure(gpt().generate(ask));
      expect(e.code).toBe("provider-response");
      expect(e.message).toContain(`openai: the response is not a completion whose ${says}`);
    });
  }
});

describe("openai-compatible: old vLLM's error sent mid-stream unwrapped (no choices), HTTP 200", () => {
  const error = {
    object: "error",
    message: "This model's maximum context length is 4096 tokens. However, you requested 4200 tokens.",
    type: "BadRequestError",
    param: null,
    code: 400,
  };
  const stream = [...OPENAI_EVENTS.slice(0, 3), `data: ${JSON.stringify(error)}\n\n`, "data: [DONE]\n\n"].join("");

  it("is that error, in the server's words, with the code its code names: not a stream cut short, not asked again", async () => {
    server.reply({ sse: stream }, { sse: OPENAI_EVENTS.join("") });
    const e = await failure(gpt().generate(ask, streamed));
    expect(e.code).toBe("provider-bad-request");
    expect(e.message).toContain("maximum context length is 4096 tokens");
    expect(server.requests).toHaveLength(1);
  });
});

/** claude-sonnet-4's recorded streamed reply: text (block 0), then get_weather({"location":"Paris"}) (block 1). */
const ANTHROPIC_EVENTS = eventsOf("anthropic-stream-tool-use.sse");
const claudeEvent = (event: Record<string, unknown>): string => `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`;
const indexOf = (type: string, index?: number): number =>
  ANTHROPIC_EVENTS.findIndex((e) => e.startsWith(`event: ${type}\n`) && (index === undefined || dataOf(e).index === index));
/** The recorded stream with the events from `from` up to `to` (not included) replaced by `events`. */
const anthropicSpliced = (from: number, to: number, ...events: Record<string, unknown>[]): string =>
  [...ANTHROPIC_EVENTS.slice(0, from), ...events.map(claudeEvent), ...ANTHROPIC_EVENTS.slice(to)].join("");
const inputDelta = (partial_json: unknown) => ({ type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json } });

describe("anthropic: an input_json_delta whose partial_json is null is provider-response, never the text null", () => {
  const firstInput = indexOf("content_block_delta", 1);
  const stop = indexOf("content_block_stop", 1);
  const cases: { name: string; stream: () => string }[] = [
    // read as "null", the call's input was JSON's null: {}, the tool run on arguments the model never gave
    { name: "its only input delta", stream: () => anthropicSpliced(firstInput, stop, inputDelta(null)) },
    { name: "after the input", stream: () => anthropicSpliced(stop, stop, inputDelta(null)) },
  ];
  for (const { name, stream } of cases) {
    it(name, async () => {
      server.reply({ sse: stream() }, { sse: ANTHROPIC_EVENTS.join("") });
      const e = await failure(claude().generate(ask, streamed));
      expect(e.code).toBe("provider-response");
      expect(e.message).toContain("anthropic: the stream sent an input_json_delta whose partial_json is null, not a string");
      expect(server.requests).toHaveLength(1);
    });
  }
});

describe("anthropic: a thinking block's delta that is null is provider-response, never the text null given back", () => {
  const thinkingStart = { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "", signature: "" } };
  const textStart = indexOf("content_block_start", 0);
  for (const [kind, delta] of [
    ["thinking_delta", { type: "thinking_delta", thinking: null }],
    ["signature_delta", { type: "signature_delta", signature: null }],
  ] as const) {
    it(kind, async () => {
      // a thinking block (index 0) before the reply's text, its blocks renumbered
      const rest = ANTHROPIC_EVENTS.slice(textStart).map((e) => {
        const data = dataOf(e);
        return typeof data.index === "number" ? claudeEvent({ ...data, index: data.index + 1 }) : e;
      });
      const stream = [
        ...ANTHROPIC_EVENTS.slice(0, textStart),
        claudeEvent(thinkingStart),
        claudeEvent({ type: "content_block_delta", index: 0, delta }),
        claudeEvent({ type: "content_block_stop", index: 0 }),
        ...rest,
      ].join("");
      server.reply({ sse: stream });
      const e = await failure(claude().generate(ask, streamed));
      expect(e.code).toBe("provider-response");
      expect(e.message).toContain(`anthropic: the stream sent a ${kind} whose`);
    });
  }
});

describe("anthropic: a second content_block_start at an index already begun is provider-response", () => {
  it("a second tool_use at the first one's index: the started call is not lost unseen", async () => {
    const second = {
      type: "content_block_start",
      index: 1,
      content_block: { type: "tool_use", id: "toolu_02", name: "get_weather", input: {} },
    };
    const stop = indexOf("content_block_stop", 1);
    server.reply({ sse: anthropicSpliced(stop, stop, second, inputDelta('{"location": "Rome"}')) });
    const e = await failure(claude().generate(ask, streamed));
    expect(e.code).toBe("provider-response");
    expect(e.message).toContain("anthropic: the stream sent a content_block_start for block 1, which an earlier one began");
  });
});

describe("anthropic: a tool_use whose name is not a string", () => {
  const start = indexOf("content_block_start", 1);
  const withName = (name: unknown): string => {
    const event = dataOf(ANTHROPIC_EVENTS[start]!);
    return anthropicSpliced(start, start + 1, { ...event, content_block: { ...(event.content_block as object), name } });
  };
  type Whole = { content: Record<string, unknown>[] };
  const whole = (name: unknown): Whole => {
    const body = clone(fixtureJson("hunt4-wire/anthropic-02-response-tool-use.json")) as Whole;
    const block = body.content.find((b) => b.type === "tool_use")!;
    if (name === undefined) delete block.name;
    else block.name = name;
    return body;
  };

  it("streamed, 42: provider-response naming it", async () => {
    server.reply({ sse: withName(42) });
    const e = await failure(claude().generate(ask, streamed));
    expect(e.code).toBe("provider-response");
    expect(e.message).toContain("anthropic: the stream sent a tool_use whose name is 42, not a string");
  });

  it("whole, an object: provider-response naming it", async () => {
    server.reply({ json: whole({ name: "get_weather" }) });
    const e = await failure(claude().generate(ask));
    expect(e.code).toBe("provider-response");
    expect(e.message).toContain(
      "anthropic: the response is not a message whose tool_use ids and names are strings (it has a tool_use whose name is {",
    );
  });

  it("null or left out, streamed and whole: named \"\" (no tool's: the model is told), as OpenAI's are", async () => {
    server.reply({ sse: withName(null) }, { json: whole(null) }, { json: whole(undefined) });
    const names = [
      (await claude().generate(ask, streamed)).toolCalls.map((c) => c.name),
      (await claude().generate(ask)).toolCalls.map((c) => c.name),
      (await claude().generate(ask)).toolCalls.map((c) => c.name),
    ];
    expect(names).toEqual([[""], [""], [""]]);
  });
});

/**
 * A call's id that is no string (a number) was kept as it was: called directly, the next request holding
 * the call was refused `input-invalid` ("a call is { id, name, input } with a string id"), the caller's
 * request blamed for the server's reply; through the engine, the reply was refused as one that "cannot be
 * used", naming no part of the wire. Anthropic's call without an id (null, left out) did the same: it is
 * refused still (hunt 4), now naming the part; OpenAI's is given one (`call_0`, …): see the decision below.
 */
describe("a tool call's id that is not a string", () => {
  const start = indexOf("content_block_start", 1);
  const claudeWithId = (id: unknown): string => {
    const event = dataOf(ANTHROPIC_EVENTS[start]!);
    return anthropicSpliced(start, start + 1, { ...event, content_block: { ...(event.content_block as object), id } });
  };
  type Whole = { content: Record<string, unknown>[] };
  const claudeWhole = (id: unknown): Whole => {
    const body = clone(fixtureJson("hunt4-wire/anthropic-02-response-tool-use.json")) as Whole;
    const block = body.content.find((b) => b.type === "tool_use")!;
    if (id === undefined) delete block.id;
    else block.id = id;
    return body;
  };

  it("openai, streamed, 42: provider-response naming it", async () => {
    server.reply({ sse: openaiChanged(0, (chunk) => (((deltaOf(chunk).tool_calls as Record<string, unknown>[])[0]!.id = 42), chunk)) });
    const e = await failure(gpt().generate(ask, streamed));
    expect(e.code).toBe("provider-response");
    expect(e.message).toContain("openai: the stream sent a tool call delta whose id is 42, not a string");
  });

  it("openai, whole, 42: provider-response naming it", async () => {
    const body = clone(fixtureJson("hunt4-wire/openai-chat-02-response-tool-calls.json")) as {
      choices: { message: { tool_calls: Record<string, unknown>[] } }[];
    };
    body.choices[0]!.message.tool_calls[0]!.id = 42;
    server.reply({ json: body });
    const e = await failure(gpt().generate(ask));
    expect(e.code).toBe("provider-response");
    expect(e.message).toContain("openai: the response is not a completion whose tool calls' ids are strings (one's id is 42)");
  });

  it("anthropic, streamed and whole, 42: provider-response naming it", async () => {
    server.reply({ sse: claudeWithId(42) }, { json: claudeWhole(42) });
    const streamedError = await failure(claude().generate(ask, streamed));
    const wholeError = await failure(claude().generate(ask));
    expect([streamedError.code, wholeError.code]).toEqual(["provider-response", "provider-response"]);
    expect(streamedError.message).toContain("anthropic: the stream sent a tool_use whose id is 42, not a string");
    expect(wholeError.message).toContain(
      "anthropic: the response is not a message whose tool_use ids and names are strings (it has a tool_use whose id is 42, not a string)",
    );
  });

  it("anthropic, null or left out, streamed and whole: provider-response naming it (hunt 4's refusal, now naming the part)", async () => {
    server.reply({ sse: claudeWithId(null) }, { json: claudeWhole(null) }, { json: claudeWhole(undefined) });
    const errors = [await failure(claude().generate(ask, streamed)), await failure(claude().generate(ask)), await failure(claude().generate(ask))];
    expect(errors.map((e) => e.code)).toEqual(["provider-response", "provider-response", "provider-response"]);
    expect(errors[0]!.message).toContain("anthropic: the stream sent a tool_use whose id is null, not a string");
    expect(errors[2]!.message).toContain("(it has a tool_use whose id is undefined, not a string)");
  });
});

describe("openai, whole: a tool call without a function is provider-response, not dropped", () => {
  it("the second of two calls, function null: the first does not run as though asked for alone", async () => {
    const body = clone(fixtureJson("hunt4-wire/openai-chat-parallel-02-response-two-tool-calls.json")) as {
      choices: { message: { tool_calls: Record<string, unknown>[] } }[];
    };
    body.choices[0]!.message.tool_calls[1]!.function = null;
    server.reply({ json: body });
    const e = await failure(gpt().generate(ask));
    expect(e.code).toBe("provider-response");
    expect(e.message).toContain("openai: the response is not a completion whose tool calls each have a function (one's is null)");
  });
});
