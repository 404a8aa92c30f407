/**
 * An Anthropic-compatible gateway or proxy whose event stream has `data:`
 * lines only, no `event:` lines (the SSE format makes `event:` optional; the
 * event's type is in its JSON too). `@anthropic-ai/sdk` dispatches by the
 * `event:` field alone and drops every event without one, so each streamed
 * reply (any `onText`, or a `maxTokens` over 8192) "ended before the reply
 * was complete": `provider-network`, retried and paid for again, never read.
 * Our own client now reads such a stream by each event's JSON `type`.
 */
import { describe, expect, it } from "vitest";
import type { LMRequest } from "../../src/lm/types.js";
import { anthropic } from "../../src/providers/anthropic.js";
import { messageStart } from "./fixtures/hunt51-wire.js";
import { type MockServer, eachTestServer, failure } from "./server.js";

let server: MockServer;
eachTestServer((s) => (server = s));
const ask: LMRequest = { messages: [{ role: "user", content: "Hi" }], tools: [] };
const gateway = (maxRetries = 0) => anthropic({ model: "claude-haiku-4-5", apiKey: "k", baseURL: server.url, maxRetries });

const dataOnly = (events: unknown[], newline = "\n"): string => events.map((e) => `data: ${JSON.stringify(e)}${newline}${newline}`).join("");
const REPLY = [
  messageStart(),
  { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
  { type: "ping" },
  { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hello" } },
  { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: " there." } },
  { type: "content_block_stop", index: 0 },
  { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 4 } },
  { type: "message_stop" },
];

describe("anthropic: a stream of data-only events is read by each event's type", () => {
  for (const [label, newline] of [
    ["LF", "\n"],
    ["CRLF", "\r\n"],
  ] as const) {
    it(`${label}`, async () => {
      server.reply({ sse: dataOnly(REPLY, newline) });
      const deltas: string[] = [];
      const res = await gateway().generate(ask, { onText: (d) => deltas.push(d) });
      expect(res.text).toBe("Hello there.");
      expect(deltas.join("")).toBe("Hello there.");
      expect(res.usage).toEqual({ inputTokens: 9, outputTokens: 4 });
      expect(server.requests).toHaveLength(1);
    });
  }

  it("a data-only error event is that error (overloaded, retried)", async () => {
    const failing = dataOnly([messageStart(), { type: "error", error: { type: "overloaded_error", message: "Overloaded" } }]);
    server.reply({ sse: failing }, { sse: failing });
    const e = await failure(gateway(1).generate(ask, { onText: () => {} }));
    expect(e.code).toBe("provider-overloaded");
    expect(e.message).toContain("Overloaded");
    expect(server.requests).toHaveLength(2);
  });

  it("events that have their event: lines are read as before, the two kinds mixed", async () => {
    const mixed = REPLY.map((e, i) => (i % 2 === 0 ? `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n` : `data: ${JSON.stringify(e)}\n\n`)).join("");
    server.reply({ sse: mixed });
    expect((await gateway().generate(ask, { onText: () => {} })).text).toBe("Hello there.");
  });
});
