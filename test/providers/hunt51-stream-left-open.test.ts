/**
 * An OpenAI-compatible stream that sends its whole reply (the chunk with
 * `finish_reason`, then the usage chunk `stream_options.include_usage` asks
 * for) and then neither ends the body nor closes the connection (a proxy's
 * keep-alive, a server that hangs after `[DONE]`): the `openai` SDK reads on
 * until the body ends (it skips what follows `[DONE]` but does not stop), so
 * the reply was held until the client's timeout, ten minutes by default. The
 * reply is whole at the usage chunk that follows the finish: it is now given
 * back there, and the connection closed, as Anthropic's is at `message_stop`.
 *
 * The bounds below are generous (several seconds against a ten-minute hold).
 */
import { describe, expect, it } from "vitest";
import type { LMRequest } from "../../src/lm/types.js";
import { openai } from "../../src/providers/openai.js";
import { chunkEvent, textSse, usageEvent } from "./fixtures/hunt51-wire.js";
import { type MockServer, eachTestServer } from "./server.js";

let server: MockServer;
eachTestServer((s) => (server = s));
const ask: LMRequest = { messages: [{ role: "user", content: "Hi" }], tools: [] };
const lm = () => openai({ model: "gpt-4.1-mini", apiKey: "test-key", baseURL: `${server.url}/v1`, maxRetries: 0 });

describe("openai: a whole streamed reply whose connection is left open is given back at once", () => {
  for (const [label, done] of [
    ["after [DONE]", true],
    ["with no [DONE]", false],
  ] as const) {
    it(label, async () => {
      server.reply({ sse: textSse("Hello there.", 5, { done }), hang: true });
      const deltas: string[] = [];
      const res = await lm().generate(ask, { onText: (d) => deltas.push(d) });
      expect(res.text).toBe("Hello there.");
      expect(deltas.join("")).toBe("Hello there.");
      expect(res.usage).toEqual({ inputTokens: 40, outputTokens: 22 });
      expect(res.finishReason).toBe("stop");
    }, 8000);
  }

  it("a tool call's reply too, its usage in the finish chunk (as DeepSeek sends it)", async () => {
    const call = { index: 0, id: "call_1", type: "function", function: { name: "lookup_order", arguments: '{"order_id":"A-1042"}' } };
    const finish = JSON.parse(chunkEvent({}, "tool_calls").slice("data: ".length));
    finish.usage = { prompt_tokens: 50, completion_tokens: 12, total_tokens: 62 };
    server.reply({ sse: `${chunkEvent({ role: "assistant", tool_calls: [call] }, null)}data: ${JSON.stringify(finish)}\n\n`, hang: true });
    const res = await lm().generate(
      { ...ask, tools: [{ name: "lookup_order", description: "d", parameters: { type: "object", properties: {} } }] },
      { onText: () => {} },
    );
    expect(res.toolCalls).toEqual([{ id: "call_1", name: "lookup_order", input: { order_id: "A-1042" } }]);
    expect(res.usage).toEqual({ inputTokens: 50, outputTokens: 12 });
  }, 8000);

  it("the usage chunk is still read when it follows the finish (it is not cut at the finish)", async () => {
    server.reply({ sse: `${chunkEvent({ role: "assistant", content: "Hi." }, null)}${chunkEvent({}, "stop")}${usageEvent(7, 2)}data: [DONE]\n\n` });
    const res = await lm().generate(ask, { onText: () => {} });
    expect(res.usage).toEqual({ inputTokens: 7, outputTokens: 2 });
  });
});

describe("a server that sends no usage chunk (it ignores stream_options) and leaves the body open", () => {
  it("after [DONE]: the reply is given back at [DONE] (the SDK reads on past it; our own client's body ends there)", async () => {
    server.reply({ sse: `${chunkEvent({ role: "assistant", content: "Hi." }, null)}${chunkEvent({}, "stop")}data: [DONE]\n\n`, hang: true });
    const res = await lm().generate(ask, { onText: () => {} });
    expect(res.text).toBe("Hi.");
    expect(res.finishReason).toBe("stop");
  }, 8000);

  it("[DONE] written in the reply's own text ends nothing", async () => {
    server.reply({ sse: textSse("A stream ends with\ndata: [DONE]\n\nand then closes.", 6, { usage: false }) });
    const res = await lm().generate(ask, { onText: () => {} });
    expect(res.text).toBe("A stream ends with\ndata: [DONE]\n\nand then closes.");
  });

  // Decided by the lead (hunt 70): without the usage chunk (or `[DONE]`, which the SDK swallows) nothing says the
  // reply is over, so one second of silence after `finish_reason` ends it (FINISH_GRACE_MS in providers/errors.ts):
  // the reply is given back with the usage known (none: zeros) and the stream cancelled.
  it("the reply is given back soon after its finish", async () => {
    server.reply({ sse: `${chunkEvent({ role: "assistant", content: "Hi." }, null)}${chunkEvent({}, "stop")}`, hang: true });
    const res = await lm().generate(ask, { onText: () => {} });
    expect(res.text).toBe("Hi.");
  }, 5000);
});
