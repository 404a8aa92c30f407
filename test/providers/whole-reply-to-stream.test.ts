/**
 * A streamed request answered with a whole JSON reply: an OpenAI-compatible
 * server that ignores `stream: true` (some local servers do), a proxy that
 * buffers. Where the body is a whole reply of the provider's format, it is
 * the reply: read as the same body unstreamed is read, its text given to
 * `onText` once. Bodies that are not a reply stay errors.
 */
import { describe, expect, it } from "vitest";
import type { LMRequest } from "../../src/lm/types.js";
import { anthropic } from "../../src/providers/anthropic.js";
import { openai } from "../../src/providers/openai.js";
import { failure, fixtureJson, type MockServer, eachTestServer } from "./server.js";

const ask: LMRequest = { messages: [{ role: "user", content: "Hi" }], tools: [] };

let server: MockServer;
eachTestServer((s) => (server = s));
const claude = (maxTokens?: number) =>
  anthropic({ model: "claude-haiku-4-5", apiKey: "test-key", baseURL: server.url, maxRetries: 2, ...(maxTokens !== undefined ? { maxTokens } : {}) });
const gpt = () => openai({ model: "gpt-4.1-mini", apiKey: "test-key", baseURL: `${server.url}/v1`, maxRetries: 2 });

/** Asks once unstreamed and once streamed, both answered with `body`; returns both replies and the deltas. */
async function bothWays(lm: ReturnType<typeof gpt>, body: unknown) {
  server.reply({ json: body }, { json: body });
  const plain = await lm.generate(ask);
  const deltas: string[] = [];
  const streamed = await lm.generate(ask, { onText: (d) => deltas.push(d) });
  return { plain, streamed, deltas };
}

describe("a streamed request answered with a whole JSON reply", () => {
  it("openai: a chat completion is the reply, its text given once", async () => {
    const { plain, streamed, deltas } = await bothWays(gpt(), fixtureJson("openai/text.json"));
    expect(streamed).toEqual(plain);
    expect(streamed.text).toBe("Order A-1042 shipped on Monday.");
    expect(deltas).toEqual(["Order A-1042 shipped on Monday."]);
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]?.body.stream).toBe(true);
  });

  it("openai: a completion with a tool call gives the call and the usage, and no text", async () => {
    const { plain, streamed, deltas } = await bothWays(gpt(), fixtureJson("openai/tool-call.json"));
    expect(streamed).toEqual(plain);
    expect(streamed.toolCalls).toEqual([{ id: "call_Lk2p9QwOrder1042", name: "lookup_order", input: { order_id: "A-1042" } }]);
    expect(streamed.usage).toEqual({ inputTokens: 80, outputTokens: 17 });
    expect(deltas).toEqual([]);
  });

  it("anthropic: a message is the reply, its text given once, its tool call and usage read", async () => {
    const { plain, streamed, deltas } = await bothWays(claude(), fixtureJson("anthropic/tool-use.json"));
    expect(streamed).toEqual(plain);
    expect(deltas).toEqual(["I'll look that order up."]);
    expect(streamed.toolCalls).toHaveLength(1);
    expect(streamed.usage.outputTokens).toBe(58);
    expect(server.requests).toHaveLength(2);
  });

  it("anthropic: streamed for a long reply without onText, a whole message is read too", async () => {
    server.reply({ json: fixtureJson("anthropic/text.json") });
    const res = await claude(20_000).generate(ask);
    expect(server.requests[0]?.body.stream).toBe(true);
    expect(res.text.length).toBeGreaterThan(0);
    expect(res.finishReason).toBe("stop");
  });

  it("an onText that throws fails the call with its own error, not retried", async () => {
    server.reply({ json: fixtureJson("openai/text.json") }, { json: fixtureJson("openai/text.json") });
    const oops = new Error("the caller's bug");
    const e = await gpt()
      .generate(ask, {
        onText: () => {
          throw oops;
        },
      })
      .catch((x: unknown) => x);
    expect(e).toBe(oops);
    expect(server.requests).toHaveLength(1);
  });

  it("a JSON body that is no reply stays an error: no choices, no content, an error body", async () => {
    server.reply({ json: { id: "x", object: "chat.completion", choices: [] } });
    const e = await failure(openai({ model: "m", apiKey: "k", baseURL: `${server.url}/v1`, maxRetries: 0 }).generate(ask, { onText: () => {} }));
    expect(e.code).toBe("provider-response");
    expect(e.message).toContain("not an event stream");

    server.reply({ json: { id: "msg_1", type: "message", role: "assistant" } });
    const e2 = await failure(anthropic({ model: "m", apiKey: "k", baseURL: server.url, maxRetries: 0 }).generate(ask, { onText: () => {} }));
    expect(e2.code).toBe("provider-response");

    server.reply({ json: { error: { message: "Upstream provider returned 502", code: 502 }, choices: [{ message: { content: "" } }] } });
    const e3 = await failure(openai({ model: "m", apiKey: "k", baseURL: `${server.url}/v1`, maxRetries: 0 }).generate(ask, { onText: () => {} }));
    expect(e3.code).toBe("provider-server");
    expect(e3.message).toContain("Upstream provider returned 502");
  });
});
