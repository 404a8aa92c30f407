/**
 * Retries through the whole tool loop, with the real SDKs on the mock
 * server and the recorded error bodies (OpenAI's 429, Anthropic's 429 and
 * 529 overloaded, a 500): a failed attempt then a success is one reply in
 * the journal, its usage counted once, nothing run twice. A caller's
 * signal aborting while a retry waits stops the turn (`turn-aborted`, the
 * turn reads `stopped`, as DESIGN names it) without another request, and
 * the conversation goes on with its next send.
 */
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { memoryStore } from "../../src/index.js";
import type { ConversationRecord } from "../../src/records/types.js";
import { CONVERSATION, hunt4Desk, wireLM } from "./fixtures/hunt4-desk.js";
import { fixture, fixtureJson, type MockServer, type Reply, eachTestServer } from "./server.js";

let server: MockServer;
eachTestServer((s) => (server = s));

const wireJson = (name: string) => fixtureJson(`hunt4-wire/${name}`) as Record<string, unknown>;
const dir = () => mkdtempSync(join(tmpdir(), "functai-hunt4-retry-"));
const ranLines = (d: string): string[] => (existsSync(join(d, "ran")) ? readFileSync(join(d, "ran"), "utf8").split("\n").filter(Boolean) : []);
const ofKind = (records: ConversationRecord[], kind: string) => records.filter((r) => r.kind === kind) as unknown as Record<string, unknown>[];

const quick = { "retry-after-ms": "5" };
const openai429: Reply = { status: 429, headers: quick, json: wireJson("openai-error-429-rate-limit.ASSEMBLED.json") };
const openai500: Reply = {
  status: 500,
  headers: quick,
  json: {
    error: { message: "The server had an error while processing your request. Sorry about that!", type: "server_error", param: null, code: null },
  },
};
const anthropic429: Reply = { status: 429, headers: quick, json: wireJson("anthropic-error-429-rate-limit.json") };
const anthropic529: Reply = { status: 529, headers: { ...quick, "x-should-retry": "true" }, json: wireJson("anthropic-error-529-overloaded.json") };

const steps = {
  openai: {
    tool: wireJson("openai-chat-02-response-tool-calls.json"),
    final: wireJson("openai-chat-04-response-final.json"),
    ran: 'get_temperature {"city":"Tokyo"}',
  },
  anthropic: {
    tool: wireJson("anthropic-02-response-tool-use.json"),
    final: wireJson("anthropic-04-response-final.json"),
    ran: 'test_tool {"value":"test"}',
  },
};
const usageOf = (provider: "openai" | "anthropic", body: Record<string, unknown>) => {
  const u = body.usage as Record<string, number>;
  return provider === "openai"
    ? { in: u.prompt_tokens!, out: u.completion_tokens! }
    : { in: u.input_tokens! + u.cache_creation_input_tokens! + u.cache_read_input_tokens!, out: u.output_tokens! };
};

describe("a failed attempt, then the reply: one reply kept, counted once", () => {
  it.each([
    { name: "openai 429 before the tool call, 500 before the answer", provider: "openai" as const, before: [openai429], between: [openai500] },
    {
      name: "anthropic 529 overloaded twice before the tool call, 429 before the answer",
      provider: "anthropic" as const,
      before: [anthropic529, anthropic529],
      between: [anthropic429],
    },
  ])("$name", async ({ provider, before, between }) => {
    const d = dir();
    const store = memoryStore();
    const { tool, final, ran } = steps[provider];
    server.reply(...before, { json: tool }, ...between, { json: final });
    const chat = hunt4Desk(d).conversation(CONVERSATION, { store, lm: wireLM({ provider, baseURL: server.url, maxRetries: 2 }) });
    const p = await chat.send("What now?");
    expect(typeof p).toBe("string");
    expect(server.requests).toHaveLength(before.length + between.length + 2);
    expect(ranLines(d)).toEqual([ran]);
    const records = await store.read(CONVERSATION);
    const replies = ofKind(records, "reply");
    expect(replies.map((r) => r.step)).toEqual([1, 2]); // one per step, however many attempts it took
    const [u1, u2] = [usageOf(provider, tool), usageOf(provider, final)];
    expect(replies.map((r) => (r.response as { usage: unknown }).usage)).toEqual([
      { inputTokens: u1.in, outputTokens: u1.out },
      { inputTokens: u2.in, outputTokens: u2.out },
    ]);
    const [ended] = ofKind(records, "ended");
    expect(ended!.usage).toEqual({ input_tokens: u1.in + u2.in, output_tokens: u1.out + u2.out });
  });

  it("predict: usage and steps count the reply once, not the attempt that failed", async () => {
    const { tool, final } = steps.openai;
    server.reply(openai429, openai429, { json: tool }, { json: final });
    const p = await hunt4Desk(dir()).predict("What now?", { lm: wireLM({ provider: "openai", baseURL: server.url, maxRetries: 2 }) });
    const [u1, u2] = [usageOf("openai", tool), usageOf("openai", final)];
    expect(p.usage).toMatchObject({ inputTokens: u1.in + u2.in, outputTokens: u1.out + u2.out });
    expect(p.steps.map((s) => [s.replayed, s.response.usage])).toEqual([
      [false, { inputTokens: u1.in, outputTokens: u1.out }],
      [false, { inputTokens: u2.in, outputTokens: u2.out }],
    ]);
    expect(server.requests).toHaveLength(4);
  });
});

describe("retries spent", () => {
  it("openai: 429 three times in the second step: provider-rate-limit, the turn failed, the tool ran once, the first reply kept", async () => {
    const d = dir();
    const store = memoryStore();
    server.reply({ json: steps.openai.tool }, openai429, openai429, openai429, { json: steps.openai.final });
    const chat = hunt4Desk(d).conversation(CONVERSATION, { store, lm: wireLM({ provider: "openai", baseURL: server.url, maxRetries: 2 }) });
    await expect(chat.send("What now?")).rejects.toMatchObject({ code: "provider-rate-limit", status: 429 });
    expect(server.requests).toHaveLength(4);
    expect(ranLines(d)).toEqual([steps.openai.ran]);
    const records = await store.read(CONVERSATION);
    expect(ofKind(records, "reply").map((r) => r.step)).toEqual([1]);
    expect(ofKind(records, "ended").map((r) => [r.state, (r.error as { code?: string }).code])).toEqual([["failed", "provider-rate-limit"]]);
  });
});

describe("the caller's signal aborts while a retry waits", () => {
  const slow = (r: Reply): Reply => ({ ...(r as { status: number; json: unknown }), headers: { "retry-after": "30" } });

  it.each([
    { provider: "openai" as const, error: slow(openai429) },
    { provider: "anthropic" as const, error: { ...slow(anthropic529), headers: { "retry-after": "30", "x-should-retry": "true" } } },
  ])(
    "$provider: in the second step, after the changing tool ran: turn-aborted, the turn stopped, no more requests, the tool not run again",
    async ({ provider, error }) => {
      const d = dir();
      const store = memoryStore();
      const { tool, final, ran } = steps[provider];
      server.reply({ json: tool }, error, { json: final });
      const lm = wireLM({ provider, baseURL: server.url, maxRetries: 2 });
      const controller = new AbortController();
      const sent = hunt4Desk(d).conversation(CONVERSATION, { store, lm }).send("What now?", { signal: controller.signal });
      void sent.catch(() => undefined);
      for (let i = 0; i < 500 && server.requests.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
      expect(server.requests).toHaveLength(2); // the 429/529 came; the retry waits its 30 s
      const reason = new Error("the user left");
      controller.abort(reason);
      await expect(sent).rejects.toMatchObject({ code: "turn-aborted", cause: reason });
      expect(server.requests).toHaveLength(2);
      expect(ranLines(d)).toEqual([ran]);

      // the send rejected once its `ended: stopped` record was kept: read at once, the turn is stopped
      const [turn] = await hunt4Desk(d).conversation(CONVERSATION, { store, lm }).turns();
      expect(turn!.state).toBe("stopped");
      const records = await store.read(CONVERSATION);
      expect(ofKind(records, "reply").map((r) => r.step)).toEqual([1]); // the step in retry kept nothing
      expect(ofKind(records, "tool").map((r) => r.state)).toEqual(["started", "done"]);
      // and the next send goes on (a stopped turn is not a head to wait behind)
      server.reply({ json: final });
      expect(typeof (await hunt4Desk(d).conversation(CONVERSATION, { store, lm }).send("And now?"))).toBe("string");
      expect(ranLines(d)).toEqual([ran]);
    },
  );

  it("a plain call aborted while its first request's retry waits rejects turn-aborted at once", async () => {
    server.reply(slow(openai429), { json: steps.openai.final });
    const controller = new AbortController();
    const call = hunt4Desk(dir())("What now?", { lm: wireLM({ provider: "openai", baseURL: server.url, maxRetries: 2 }), signal: controller.signal });
    void call.catch(() => undefined);
    for (let i = 0; i < 500 && server.requests.length < 1; i++) await new Promise((r) => setTimeout(r, 10));
    controller.abort();
    await expect(call).rejects.toMatchObject({ code: "turn-aborted" });
    expect(server.requests).toHaveLength(1);
  });
});

describe("streamed: an overloaded error event mid-stream", () => {
  const events = (): string =>
    fixture("hunt4-wire/anthropic-stream-tool-use.sse")
      .split(/(?<=\n\n)/)
      .slice(0, 4)
      .join("");
  const overloaded = 'event: error\ndata: {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}\n\n';
  const midstream = (): string => `${events()}${overloaded}`;
  const finalText = (steps.anthropic.final.content as { text: string }[])[0]!.text;
  // the tool-calling reply's own words are shown (see lm/reply-text.ts)
  const toolWords = (steps.anthropic.tool.content as { type: string; text?: string }[]).find((b) => b.type === "text")!.text!;

  /** The turn's stream read as a UI would: the text events of each request (by its step), and how it ended. */
  async function read(s: AsyncIterable<{ type: string; delta?: string }> & PromiseLike<unknown>) {
    const texts: string[][] = [];
    const ended = (async () => {
      for await (const e of s) {
        if (e.type === "request") texts.push([]);
        if (e.type === "text") texts.at(-1)!.push(e.delta!);
      }
      return s;
    })();
    return { texts, ended };
  }

  // A mid-stream `overloaded_error` (HTTP 200, then an `error` event: Anthropic's documented form of a 529
  // while streaming) is retried as the 529 is, as long as no text was shown: the recorded shape's "I"
  // arrived, but the engine held it back (the preamble of a reply that may call tools; no `text` event),
  // so nothing forbids the retry. The retried reply's text starts over: its `text` event is its own
  // answer, with nothing of the dropped attempt's "I" in it.
  it("anthropic: the same overload mid-stream, before any text event was shown, is retried like the 529 and the turn answers", async () => {
    const d = dir();
    const store = memoryStore();
    server.reply({ json: steps.anthropic.tool }, { sse: midstream() }, { json: steps.anthropic.final });
    const s = hunt4Desk(d)
      .conversation(CONVERSATION, { store, lm: wireLM({ provider: "anthropic", baseURL: server.url, maxRetries: 2 }) })
      .stream("What now?");
    const { texts, ended } = await read(s);
    expect(await ended).toBe(finalText);
    expect(server.requests).toHaveLength(3);
    expect(texts).toEqual([[toolWords], [finalText]]); // one request event per step, however many attempts; the answer shown once
    expect(ranLines(d)).toEqual([steps.anthropic.ran]); // the changing tool ran once
    expect(ofKind(await store.read(CONVERSATION), "reply").map((r) => r.step)).toEqual([1, 2]); // nothing kept of the failed attempt
  });

  it("anthropic: retries spent on the overload mid-stream (nothing shown): provider-overloaded, no reply kept for it", async () => {
    const d = dir();
    const store = memoryStore();
    server.reply({ json: steps.anthropic.tool }, { sse: midstream() }, { sse: midstream() }, { json: steps.anthropic.final });
    const s = hunt4Desk(d)
      .conversation(CONVERSATION, { store, lm: wireLM({ provider: "anthropic", baseURL: server.url, maxRetries: 1 }) })
      .stream("What now?");
    const { texts, ended } = await read(s);
    await expect(ended).rejects.toMatchObject({ code: "provider-overloaded" });
    expect(server.requests).toHaveLength(3);
    expect(texts).toEqual([[toolWords], []]); // each attempt's "I" was held: nothing was shown
    expect(ranLines(d)).toEqual([steps.anthropic.ran]);
    expect(ofKind(await store.read(CONVERSATION), "reply").map((r) => r.step)).toEqual([1]);
  });

  it("anthropic: the overload mid-stream after the answer's text was shown is final: provider-overloaded, not retried", async () => {
    const d = dir();
    const store = memoryStore();
    const shownThenOverloaded = midstream().replace('"text":"I"}', '"text":"<result>\\nIt is sun"}');
    expect(shownThenOverloaded).not.toBe(midstream());
    server.reply({ json: steps.anthropic.tool }, { sse: shownThenOverloaded }, { json: steps.anthropic.final });
    const s = hunt4Desk(d)
      .conversation(CONVERSATION, { store, lm: wireLM({ provider: "anthropic", baseURL: server.url, maxRetries: 2 }) })
      .stream("What now?");
    const { texts, ended } = await read(s);
    await expect(ended).rejects.toMatchObject({ code: "provider-overloaded" });
    expect(server.requests).toHaveLength(2); // text shown cannot be taken back: no silent retry
    expect(texts).toEqual([[toolWords], ["It is sun"]]);
    expect(ranLines(d)).toEqual([steps.anthropic.ran]);
    expect(ofKind(await store.read(CONVERSATION), "reply").map((r) => r.step)).toEqual([1]);
  });

  // The same rule in the OpenAI provider (one rule, src/providers/errors.ts `streamedText`): a plain answer's
  // first words arrive and are held (shown when the reply ends), then the connection drops: retried, and
  // the retried reply's text starts over (shown once, nothing of the dropped attempt's words before it).
  it("openai: a connection dropped mid-stream while the text was held is retried; the answer is shown once", async () => {
    const final = fixture("hunt4-wire/openai-chat-stream-04-response-final.sse");
    const cut = final.split(/(?<=\n\n)/).slice(0, 3).join("");
    server.reply({ sse: cut, reset: true }, { sse: final });
    const s = hunt4Desk(dir()).stream("What now?", { lm: wireLM({ provider: "openai", baseURL: server.url, maxRetries: 2 }) });
    const { texts, ended } = await read(s);
    const answer = await ended;
    expect(answer).toMatch(/^The capital/);
    expect(server.requests).toHaveLength(2);
    expect(texts).toEqual([[answer]]);
  });
});
