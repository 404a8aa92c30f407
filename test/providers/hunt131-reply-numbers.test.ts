/**
 * hunt 131: a reply's token counts, a call's input and a reply's text that
 * are not of their kind, through the real SDKs from a local server (the
 * recorded real bodies and streams of fixtures/hunt4-wire, one part changed).
 *
 * Token counts: a count given as a string (`"prompt_tokens": "53"`), or a
 * number that counts no tokens (-5, 1.5, 1e400 which JSON reads as
 * Infinity), passed into `usage`; the engine then refused the reply with
 * "its usage has no inputTokens and outputTokens", far from the cause, or
 * (Anthropic, whole) the counts were joined as text ("377" + 0 + 0 =
 * "37700"), or (Anthropic, streamed) the count was dropped for 0 unseen, or
 * (a negative or fractional one) it was added to the run's totals. No
 * OpenAI-compatible server is known to send counts as strings: each is now
 * `provider-response` naming the field. A count left out or null is still 0.
 *
 * A streamed `tool_use` whose `content_block_start` gives an input that is
 * no object (a JSON string, as a server that encodes it twice sends it; a
 * number), with no `input_json_delta` after it: the call ran with `{}`,
 * arguments the model never gave. Now its input is the one given, as the
 * SDK's MessageStream keeps it and as a whole message's is read (a string
 * input is told to the model as the tool's invalid input: hunt4-malformed-
 * replies). (Given as an object it is the input, and `input_json_delta`s
 * after a start input are the input, as the SDK reads them too:
 * hunt43-unfinished-replies.)
 */
import { describe, expect, it } from "vitest";
import { dataOf, eventsOf } from "./fixtures/recorded-events.js";
import { ask } from "./fixtures/two-orders.js";
import { modelsOver, streamed } from "./fixtures/models.js";
import { type MockServer, eachTestServer, failure, fixtureJson } from "./server.js";

let server: MockServer;
eachTestServer((s) => (server = s));
const { gpt, claude } = modelsOver(() => server, { maxRetries: 0 });

type Body = Record<string, unknown>;
/** A recorded whole body, its `usage` changed by `change`. */
const withUsage = (name: string, change: (usage: Body) => void): Body => {
  const body = structuredClone(fixtureJson(`hunt4-wire/${name}`)) as Body;
  change(body.usage as Body);
  return body;
};
/** A recorded stream with the event at `at` changed by `change` (its data as JSON). */
const streamWith = (name: string, at: number, change: (data: Body) => void): string => {
  const events = eventsOf(name);
  const data = structuredClone(dataOf(events[at]!));
  change(data);
  const event = /^event: .*\n/.exec(events[at]!)?.[0] ?? "";
  events[at] = `${event}data: ${JSON.stringify(data)}\n\n`;
  return events.join("");
};

/** Counts no token count is (Infinity: JSON's 1e400, written as the server sends it). */
const BAD_COUNTS: { name: string; value: unknown; says: string }[] = [
  { name: "a string", value: "53", says: '"53"' },
  { name: "negative", value: -5, says: "-5" },
  { name: "fractional", value: 1.5, says: "1.5" },
  { name: "a list", value: [53], says: "[53]" },
];

describe("openai: a token count that is no whole number ≥ 0 is provider-response naming its field", () => {
  for (const { name, value, says } of BAD_COUNTS) {
    it(`whole, prompt_tokens ${name}`, async () => {
      server.reply({ json: withUsage("openai-chat-02-response-tool-calls.json", (u) => void (u.prompt_tokens = value)) });
      const e = await failure(gpt().generate(ask));
      expect(e.code).toBe("provider-response");
      expect(e.message).toContain(`openai: the reply's usage.prompt_tokens is ${says}, not a whole number ≥ 0`);
    });
  }

  it("streamed, completion_tokens a string (the usage chunk, sent last)", async () => {
    const events = eventsOf("openai-chat-stream-02-response-tool-calls.sse");
    server.reply({
      sse: streamWith("openai-chat-stream-02-response-tool-calls.sse", events.length - 2, (d) => void ((d.usage as Body).completion_tokens = "15")),
    });
    const e = await failure(gpt().generate(ask, streamed));
    expect(e.code).toBe("provider-response");
    expect(e.message).toContain(`openai: the reply's usage.completion_tokens is "15", not a whole number ≥ 0`);
  });

  it("whole, completion_tokens 1e400 (JSON reads it as Infinity)", async () => {
    const body = JSON.stringify(fixtureJson("hunt4-wire/openai-chat-02-response-tool-calls.json")).replace(
      '"completion_tokens":15',
      '"completion_tokens":1e400',
    );
    expect(body).toContain("1e400");
    server.reply({ raw: body, headers: { "content-type": "application/json" } });
    const e = await failure(gpt().generate(ask));
    expect(e.message).toContain("usage.completion_tokens is Infinity");
  });
});

describe("anthropic: a token count that is no whole number ≥ 0 is provider-response naming its field", () => {
  for (const { name, value, says } of BAD_COUNTS) {
    it(`whole, input_tokens ${name}`, async () => {
      server.reply({ json: withUsage("anthropic-02-response-tool-use.json", (u) => void (u.input_tokens = value)) });
      const e = await failure(claude().generate(ask));
      expect(e.code).toBe("provider-response");
      expect(e.message).toContain(`anthropic: the reply's usage.input_tokens is ${says}, not a whole number ≥ 0`);
    });
  }

  it("streamed, message_start's input_tokens a string", async () => {
    server.reply({ sse: streamWith("anthropic-stream-tool-use.sse", 0, (d) => void ((d.message as { usage: Body }).usage.input_tokens = "377")) });
    const e = await failure(claude().generate(ask, streamed));
    expect(e.code).toBe("provider-response");
    expect(e.message).toContain(`anthropic: the reply's usage.input_tokens is "377", not a whole number ≥ 0`);
  });

  it("streamed, message_delta's output_tokens negative", async () => {
    const events = eventsOf("anthropic-stream-tool-use.sse");
    const at = events.findIndex((e) => e.startsWith("event: message_delta"));
    server.reply({ sse: streamWith("anthropic-stream-tool-use.sse", at, (d) => void ((d.usage as Body).output_tokens = -65)) });
    const e = await failure(claude().generate(ask, streamed));
    expect(e.message).toContain("anthropic: the reply's usage.output_tokens is -65, not a whole number ≥ 0");
  });
});

describe("anthropic, streamed: a tool_use whose start gives an input that is no object, no input_json_delta after it", () => {
  const INPUTS: { name: string; input: unknown }[] = [
    { name: "a JSON string", input: '{"location":"Paris"}' },
    { name: "a number", input: 42 },
  ];
  /** claude-sonnet-4's recorded streamed get_weather call: where its tool_use block starts (its input_json_deltas after it). */
  const EVENTS = eventsOf("anthropic-stream-tool-use.sse");
  const toolStart = EVENTS.findIndex((e) => e.includes('"type":"tool_use"'));

  for (const { name, input } of INPUTS) {
    it(`${name}: the call's input is that one, as a whole message's is (the model is told), not {}`, async () => {
      const started = streamWith("anthropic-stream-tool-use.sse", toolStart, (d) => void ((d.content_block as Body).input = input));
      // its input_json_deltas left out: the input is the one the start gave
      const sse = started
        .split(/(?<=\n\n)/)
        .filter((e) => !e.includes("input_json_delta"))
        .join("");
      server.reply({ sse });
      const reply = await claude().generate(ask, streamed);
      expect(reply.toolCalls).toEqual([{ id: "toolu_01NRLabsLyVHZPKxbKvkfSMn", name: "get_weather", input }]);
    });
  }
});

/**
 * A reply's text that is no text (a number, an object): read as none, the
 * words were lost unseen and the reply read as an empty one (asked again,
 * or its answer missing). Null or left out is still none, as compatible
 * servers send it; OpenAI's list of parts (Mistral's) is still read.
 */
describe("a reply's text that is no text is provider-response naming it", () => {
  it("openai, whole: content 42", async () => {
    const body = structuredClone(fixtureJson("hunt4-wire/openai-chat-04-response-final.json")) as { choices: { message: Body }[] };
    body.choices[0]!.message.content = 42;
    server.reply({ json: body });
    const e = await failure(gpt().generate(ask));
    expect(e.code).toBe("provider-response");
    expect(e.message).toContain("content is a string or a list of parts (it is 42)");
  });

  it("openai, streamed: a delta's content an object", async () => {
    const sse = streamWith(
      "openai-chat-stream-04-response-final.sse",
      2,
      (d) => void ((d.choices as { delta: Body }[])[0]!.delta.content = { text: "The" }),
    );
    server.reply({ sse });
    const e = await failure(gpt().generate(ask, streamed));
    expect(e.code).toBe("provider-response");
    expect(e.message).toContain('openai: the stream sent a delta whose content is {"text":"The"}, not a string or a list of parts');
  });

  it("anthropic, whole: a text block's text 42", async () => {
    const body = structuredClone(fixtureJson("hunt4-wire/anthropic-04-response-final.json")) as { content: Body[] };
    body.content[0]!.text = 42;
    server.reply({ json: body });
    const e = await failure(claude().generate(ask));
    expect(e.code).toBe("provider-response");
    expect(e.message).toContain("a text block whose text is 42, not a string");
  });

  it("anthropic, streamed: a text_delta's text 42", async () => {
    const at = eventsOf("anthropic-stream-tool-use.sse").findIndex((e) => e.includes('"text_delta"'));
    server.reply({ sse: streamWith("anthropic-stream-tool-use.sse", at, (d) => void ((d.delta as Body).text = 42)) });
    const e = await failure(claude().generate(ask, streamed));
    expect(e.code).toBe("provider-response");
    expect(e.message).toContain("anthropic: the stream sent a text_delta whose text is 42, not a string");
  });
});
