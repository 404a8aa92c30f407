/**
 * A streamed reply whose finish came but whose stream then neither ends nor
 * sends its last event (OpenAI's usage chunk, Anthropic's `message_stop`):
 * the lead's decision (hunt 70) is a short grace after the finish (one
 * second of silence), then the reply is given back with what is known and
 * the stream cancelled, so the connection is freed. Before, the reply was
 * held until the client's timeout (ten minutes by default).
 *
 * Bounds are generous (a loaded machine): several seconds against a
 * ten-minute hold.
 */
import { type IncomingMessage, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { LMRequest } from "../../src/lm/types.js";
import { anthropic } from "../../src/providers/anthropic.js";
import { openai } from "../../src/providers/openai.js";
import { anthropicSse, chunkEvent, messageStart, usageEvent } from "./fixtures/hunt51-wire.js";
import { type MockServer, eachTestServer } from "./server.js";

let server: MockServer;
eachTestServer((s) => (server = s));
const ask: LMRequest = { messages: [{ role: "user", content: "Hi" }], tools: [] };

const claudeUntilDelta = anthropicSse([
  messageStart({ input_tokens: 9, output_tokens: 1 }),
  { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
  { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hello." } },
  { type: "content_block_stop", index: 0 },
  { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 4 } },
]);

describe("anthropic: a stream whose message_delta came but not message_stop, left open", () => {
  it("gives the reply back soon after its stop reason, with its usage", async () => {
    server.reply({ sse: claudeUntilDelta, hang: true });
    const lm = anthropic({ model: "claude-haiku-4-5", apiKey: "test-key", baseURL: server.url, maxRetries: 0 });
    const deltas: string[] = [];
    const res = await lm.generate(ask, { onText: (d) => deltas.push(d) });
    expect(res.text).toBe("Hello.");
    expect(deltas.join("")).toBe("Hello.");
    expect(res.finishReason).toBe("stop");
    expect(res.usage).toEqual({ inputTokens: 9, outputTokens: 4 });
    expect(server.requests).toHaveLength(1); // given back, not asked again
  }, 8000);
});

describe("openai: the grace after the finish", () => {
  it("a usage chunk that comes within the grace is still read", async () => {
    // events 300 ms apart: the usage chunk comes well inside the one-second grace
    server.reply({
      sse: `${chunkEvent({ role: "assistant", content: "Hi." }, null)}${chunkEvent({}, "stop")}${usageEvent(7, 2)}`,
      hang: true,
      gapMs: 300,
    });
    const lm = openai({ model: "gpt-4.1-mini", apiKey: "test-key", baseURL: `${server.url}/v1`, maxRetries: 0 });
    const res = await lm.generate(ask, { onText: () => {} });
    expect(res.text).toBe("Hi.");
    expect(res.usage).toEqual({ inputTokens: 7, outputTokens: 2 });
  }, 8000);
});

describe("the left-open stream is cancelled once the reply is given back (the connection freed)", () => {
  let own: ReturnType<typeof createServer> | undefined;
  afterEach(async () => {
    own?.closeAllConnections();
    await new Promise<void>((r) => (own ? own.close(() => r()) : r()));
    own = undefined;
  });

  /** A server that writes `sse` and leaves the response open; `closed` resolves when the client lets go of it. */
  async function leftOpen(sse: string): Promise<{ url: string; closed: Promise<void> }> {
    let release!: () => void;
    const closed = new Promise<void>((r) => (release = r));
    own = createServer((req: IncomingMessage, res: ServerResponse) => {
      req.resume();
      req.on("end", () => {
        res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
        res.write(sse);
        res.on("close", () => release());
      });
    });
    await new Promise<void>((r) => own!.listen(0, "127.0.0.1", r));
    return { url: `http://127.0.0.1:${(own.address() as AddressInfo).port}`, closed };
  }

  it("openai: finish, no usage chunk, no end", async () => {
    const { url, closed } = await leftOpen(`${chunkEvent({ role: "assistant", content: "Hi." }, null)}${chunkEvent({}, "stop")}`);
    const lm = openai({ model: "gpt-4.1-mini", apiKey: "test-key", baseURL: `${url}/v1`, maxRetries: 0 });
    const res = await lm.generate(ask, { onText: () => {} });
    expect(res.text).toBe("Hi.");
    // (no usage came: zeros, as for any stream without usage)
    expect(res.usage).toEqual({ inputTokens: 0, outputTokens: 0 });
    await closed; // the test times out if the connection is kept
  }, 8000);

  it("anthropic: message_delta, no message_stop, no end", async () => {
    const { url, closed } = await leftOpen(claudeUntilDelta);
    const lm = anthropic({ model: "claude-haiku-4-5", apiKey: "test-key", baseURL: url, maxRetries: 0 });
    const res = await lm.generate(ask, { onText: () => {} });
    expect(res.text).toBe("Hello.");
    await closed;
  }, 8000);
});
