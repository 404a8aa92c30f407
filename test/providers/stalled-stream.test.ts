/**
 * A stream that stalls: the server sent its headers (so the SDK's own
 * `timeout`, which only covers the wait for them, is over) and then some
 * events, then nothing. The SDK client's `timeout` bounds each wait between
 * events too: a stall fails provider-network (retried while no text was
 * shown), never a promise that waits for ever.
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import type { LMRequest } from "../../src/lm/types.js";
import { anthropic } from "../../src/providers/anthropic.js";
import { openai } from "../../src/providers/openai.js";
import { failure, fixture, fixtureJson, type MockServer, eachTestServer } from "./server.js";

const ask: LMRequest = { messages: [{ role: "user", content: "<question>\nWhere is A-1042?\n</question>" }], tools: [] };
const events = (name: string): string[] => fixture(name).split(/(?<=\n\n)/);
const TIMEOUT_MS = 300;

let server: MockServer;
eachTestServer((s) => (server = s));
const gpt = (maxRetries: number) =>
  openai({ model: "gpt-4.1-mini", maxRetries, client: new OpenAI({ apiKey: "test-key", baseURL: `${server.url}/v1`, timeout: TIMEOUT_MS }) });
const claude = (maxRetries: number) =>
  anthropic({ model: "claude-haiku-4-5", maxRetries, client: new Anthropic({ apiKey: "test-key", baseURL: server.url, timeout: TIMEOUT_MS }) });

describe("a stream that stalls after its headers", () => {
  it("openai: before any text → provider-network, retried; the retry's reply is taken", async () => {
    server.reply({ sse: events("openai/stream-text.sse").slice(0, 1).join(""), hang: true }, { sse: fixture("openai/stream-text.sse") });
    const started = Date.now();
    const res = await gpt(1).generate(ask, { onText: () => {} });
    expect(res.text).toBe("Order A-1042 shipped on Monday.");
    expect(server.requests).toHaveLength(2);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("openai: after text was shown → provider-network saying it stalled, not retried", async () => {
    server.reply({ sse: events("openai/stream-text.sse").slice(0, 3).join(""), hang: true });
    const e = await failure(gpt(2).generate(ask, { onText: () => {} }));
    expect(e.code).toBe("provider-network");
    expect(e.message).toMatch(/nothing came for 300 ms/);
    expect(server.requests).toHaveLength(1);
  });

  it("anthropic: after text was shown → provider-network saying it stalled, not retried", async () => {
    server.reply({ sse: events("anthropic/stream-text.sse").slice(0, 4).join(""), hang: true });
    const shown: string[] = [];
    const e = await failure(claude(2).generate(ask, { onText: (d) => shown.push(d) }));
    expect(shown.length).toBeGreaterThan(0);
    expect(e.code).toBe("provider-network");
    expect(e.message).toMatch(/nothing came for 300 ms/);
    expect(server.requests).toHaveLength(1);
  });

  it("a stream that keeps coming, longer in all than the timeout but no wait as long, is not cut", async () => {
    server.reply({ sse: fixture("anthropic/stream-text.sse"), gapMs: 100 });
    const started = Date.now();
    const res = await claude(0).generate(ask, { onText: () => {} });
    expect(res.text).toBe("Order A-1042 shipped on Monday.");
    expect(Date.now() - started).toBeGreaterThan(3 * TIMEOUT_MS);
  });
});

describe("a whole (non-streamed) reply whose body stalls after its headers", () => {
  it("openai: provider-network after the client's timeout, retried; the retry's reply is taken", async () => {
    server.reply({ partial: '{"id":"chatcmpl-1","choices":[', stall: true }, { json: fixtureJson("openai/text.json") });
    const started = Date.now();
    const res = await gpt(1).generate(ask);
    expect(res.text.length).toBeGreaterThan(0);
    expect(server.requests).toHaveLength(2);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("anthropic: provider-network saying it stalled once retries are spent, not a hang", async () => {
    server.reply({ partial: '{"id":"msg_1","content":[', stall: true });
    const e = await failure(claude(0).generate(ask));
    expect(e.code).toBe("provider-network");
    expect(e.message).toMatch(/no whole reply came within 300 ms/);
    expect(server.requests).toHaveLength(1);
  });

  it("the caller's abort still wins: the caller gets its own reason", async () => {
    server.reply({ partial: '{"id":"msg_1","content":[', stall: true });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("left")), 50);
    await expect(claude(0).generate(ask, { signal: controller.signal })).rejects.toThrow("left");
  });
});
