/**
 * A process SIGKILLed with a real provider SDK (`openai`, `@anthropic-ai/sdk`)
 * on the wire, against the repo's mock server answering with recorded real
 * replies (fixtures/hunt4-wire): while the final reply streams in, or while a
 * JSON reply's body is half-sent; and inside a changing tool, after the
 * reply that asked for it arrived and its `started` record was written.
 * Resumed in this process on the same file store: exactly one more paid
 * request (the one that was in flight, the same messages), never the reply
 * that had arrived; no tool run twice; the turn's records read back whole.
 */
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import type { ConversationRecord } from "../../src/records/types.js";
import { bundled, removeBundles, runChild } from "../durable/fixtures/spawn.js";
import { CONVERSATION, LEASE, hunt4Desk, wireLM } from "./fixtures/hunt4-desk.js";
import { fixture, fixtureJson, type MockServer, type Reply, eachTestServer } from "./server.js";

afterAll(removeBundles);
let server: MockServer;
eachTestServer((s) => (server = s));

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const wire = (name: string) => fixture(`hunt4-wire/${name}`);
const wireJson = (name: string) => fixtureJson(`hunt4-wire/${name}`);
const child = bundled(new URL("./fixtures/hunt4-crash-child.ts", import.meta.url).pathname);

async function until(what: string, ok: () => boolean, boundMs = 15_000): Promise<void> {
  for (const end = Date.now() + boundMs; !ok(); await sleep(20)) if (Date.now() > end) throw new Error(`waited ${boundMs} ms for ${what}`);
}

/** The SSE's events up to (not with) the first that holds `marker`: the reply cut mid-way. */
const sseBefore = (text: string, marker: string): string => {
  const events = text.split(/(?<=\n\n)/);
  return events
    .slice(
      0,
      events.findIndex((e) => e.includes(marker)),
    )
    .join("");
};

interface Case {
  name: string;
  provider: "openai" | "anthropic";
  stream: boolean;
  /** The reply that asks for a changing tool (what the child gets first). */
  toolReply: Reply;
  /** The tool and input that reply asks for. */
  called: string;
  /** The final reply, cut on the wire while the child reads it. */
  cutFinal: Reply;
  /** The final reply as the resumed turn (not streamed) gets it, and its answer. */
  final: Reply;
  answer: string;
}

const openaiFinal = wireJson("openai-chat-04-response-final.json") as { choices: { message: { content: string } }[] };
const anthropicFinal = wireJson("anthropic-04-response-final.json") as { content: { text: string }[] };
const openaiFinalText = JSON.stringify(openaiFinal);
const anthropicFinalText = JSON.stringify(anthropicFinal);

const cases: Case[] = [
  {
    name: "openai, streamed: killed while the final reply streams in",
    provider: "openai",
    stream: true,
    toolReply: { sse: wire("openai-chat-stream-02-response-tool-calls.sse") },
    called: 'get_capital {"country":"UK"}',
    // the text deltas came, the finish reason did not
    cutFinal: { sse: sseBefore(wire("openai-chat-stream-04-response-final.sse"), '"finish_reason":"stop"'), hang: true },
    final: { json: openaiFinal },
    answer: openaiFinal.choices[0]!.message.content,
  },
  {
    name: "anthropic, streamed: killed while the final reply streams in",
    provider: "anthropic",
    stream: true,
    toolReply: { sse: wire("anthropic-stream-tool-use.sse") },
    called: 'get_weather {"location":"Paris"}',
    cutFinal: { sse: sseBefore(fixture("anthropic/stream-text.sse"), "message_delta"), hang: true },
    final: { json: anthropicFinal },
    answer: anthropicFinal.content[0]!.text,
  },
  {
    name: "openai, JSON: killed while the reply's body is half-sent",
    provider: "openai",
    stream: false,
    toolReply: { json: wireJson("openai-chat-02-response-tool-calls.json") },
    called: 'get_temperature {"city":"Tokyo"}',
    cutFinal: { partial: openaiFinalText.slice(0, openaiFinalText.length / 2), stall: true },
    final: { json: openaiFinal },
    answer: openaiFinal.choices[0]!.message.content,
  },
  {
    name: "anthropic, JSON: killed while the reply's body is half-sent",
    provider: "anthropic",
    stream: false,
    toolReply: { json: wireJson("anthropic-02-response-tool-use.json") },
    called: 'test_tool {"value":"test"}',
    cutFinal: { partial: anthropicFinalText.slice(0, anthropicFinalText.length / 2), stall: true },
    final: { json: anthropicFinal },
    answer: anthropicFinal.content[0]!.text,
  },
];

const ofTurn = (records: ConversationRecord[], kind: string) => records.filter((r) => r.kind === kind) as unknown as Record<string, unknown>[];
const ranLines = (dir: string): string[] => (existsSync(join(dir, "ran")) ? readFileSync(join(dir, "ran"), "utf8").split("\n").filter(Boolean) : []);
const messagesOf = (i: number) => server.requests[i]!.body.messages;

/** The turn of the child's conversation, once its dead holder lets it read interrupted. */
async function interruptedTurn(dir: string, provider: "openai" | "anthropic") {
  const chat = hunt4Desk(dir).conversation(CONVERSATION, {
    store: fsStore(dir, { lockStaleMs: 200 }),
    lm: wireLM({ provider, baseURL: server.url }),
    lease: LEASE,
  });
  let turn = (await chat.turns()).at(-1)!;
  // (its holder is dead: interrupted at once, or once the lease runs out)
  for (let i = 0; i < 200 && turn.state !== "interrupted"; i++) await sleep(50), (turn = (await chat.turns()).at(-1)!);
  expect(turn.state).toBe("interrupted");
  return turn;
}

describe("SIGKILL with a reply on the wire, resumed in another process (real SDKs, file store)", () => {
  it.each(cases)("$name: one more paid request (the one in flight), the tool ran once, the records whole", async (c) => {
    const dir = mkdtempSync(join(tmpdir(), "functai-hunt4-crash-"));
    server.reply(c.toolReply, c.cutFinal, c.final);
    const end = runChild(await child, [dir, JSON.stringify({ provider: c.provider, baseURL: server.url, stream: c.stream, killInTool: false })]);
    // the cut reply is on the wire: its request came, and its events (or half its body) were written
    await until("the child's second request", () => server.requests.length === 2);
    await sleep(300);
    process.kill(Number(readFileSync(join(dir, "pid"), "utf8")), "SIGKILL");
    expect((await end).signal).toBe("SIGKILL");
    expect(ranLines(dir)).toEqual([c.called]);

    const turn = await interruptedTurn(dir, c.provider);
    expect(turn.unfinished).toEqual([]); // the tool's done record was kept before the second request went out
    expect(await turn.resume()).toBe(c.answer);

    expect(server.requests).toHaveLength(3); // the reply that arrived is not asked for again
    expect(messagesOf(2)).toEqual(messagesOf(1)); // the one paid again is the one in flight
    expect(ranLines(dir)).toEqual([c.called]);

    const records = await fsStore(dir).read(CONVERSATION);
    const replies = ofTurn(records, "reply");
    expect(replies.map((r) => r.step)).toEqual([1, 2]);
    const [name, input] = [c.called.split(" ")[0], JSON.parse(c.called.slice(c.called.indexOf(" ") + 1))];
    expect((replies[0]!.response as { toolCalls: { name: string; input: unknown }[] }).toolCalls.map((t) => [t.name, t.input])).toEqual([
      [name, input],
    ]);
    expect(ofTurn(records, "tool").map((r) => r.state)).toEqual(["started", "done"]);
    expect(ofTurn(records, "ended").map((r) => [r.state, r.value])).toEqual([["done", c.answer]]);
    expect((await turn.refresh()).state).toBe("done");
  });

  it.each(cases.filter((c) => !c.stream))(
    "$provider: killed inside the changing tool after its started record: no second paid request for the reply that asked for it",
    async (c) => {
      const dir = mkdtempSync(join(tmpdir(), "functai-hunt4-crash-"));
      server.reply(c.toolReply, c.final);
      const end = await runChild(await child, [dir, JSON.stringify({ provider: c.provider, baseURL: server.url, stream: false, killInTool: true })]);
      expect(end.signal, end.stderr).toBe("SIGKILL");
      expect(server.requests).toHaveLength(1);
      expect(ranLines(dir)).toEqual([c.called]);

      const turn = await interruptedTurn(dir, c.provider);
      const name = c.called.split(" ")[0]!;
      expect(turn.unfinished.map((u) => [u.name, u.invocation])).toEqual([[name, 1]]);
      await expect(turn.resume()).rejects.toMatchObject({ code: "turn-unfinished" });
      await expect(turn.resume({ results: { 7: "it ran" } })).rejects.toMatchObject({ code: "input-invalid" }); // no such call
      await expect(turn.resume({ results: ["it ran"] as never })).rejects.toMatchObject({ code: "input-invalid" });
      await expect(turn.resume({ results: { 1: 10n } })).rejects.toMatchObject({ code: "input-invalid" }); // not JSON
      await expect(turn.approve({ id: "nope" })).rejects.toMatchObject({ code: "turn-state" }); // it waits for no person
      expect(server.requests).toHaveLength(1); // refusing pays nothing
      expect(turn.state).toBe("interrupted");
      expect(await turn.resume({ results: { 1: "it ran" } })).toBe(c.answer);

      expect(server.requests).toHaveLength(2); // only the step after the tool: the reply that asked for it came from the journal
      expect(ranLines(dir)).toEqual([c.called]); // not run again
      const sent = messagesOf(1) as { role: string; content: unknown }[];
      expect(JSON.stringify(sent.at(-1))).toContain("it ran"); // the person's result is what the model is told
      const records = await fsStore(dir).read(CONVERSATION);
      expect(ofTurn(records, "reply").map((r) => r.step)).toEqual([1, 2]);
      expect(ofTurn(records, "tool").map((r) => r.state)).toEqual(["started", "given"]);
      expect(ofTurn(records, "ended").map((r) => r.state)).toEqual(["done"]);
    },
  );

  // A send aborted by its caller's signal settles once its run let go of the turn (`resultOf` waits for the
  // session's run, whose catch writes `ended: stopped` through host.onEnd): a process that exits once its send
  // rejected (a CLI on Ctrl-C) leaves the turn `stopped`, never `interrupted` for any process to run again.
  // (Before, the send rejected as the actor entered `stopped`, before the record was written.)
  it("aborted by its caller's signal while a retry waits, the process exiting once the send rejected: the turn reads stopped", async () => {
    const dir = mkdtempSync(join(tmpdir(), "functai-hunt4-crash-"));
    server.reply(
      { json: wireJson("openai-chat-02-response-tool-calls.json") },
      { status: 429, headers: { "retry-after": "30" }, json: wireJson("openai-error-429-rate-limit.ASSEMBLED.json") },
    );
    const end = runChild(await child, [
      dir,
      JSON.stringify({ provider: "openai", baseURL: server.url, stream: false, killInTool: false, abortOnSignal: true, maxRetries: 2 }),
    ]);
    await until("the child's second request (a 429 whose retry waits 30 s)", () => server.requests.length === 2);
    process.kill(Number(readFileSync(join(dir, "pid"), "utf8")), "SIGUSR2");
    const ended = await end;
    expect([ended.code, ended.stdout.trim()], ended.stderr).toEqual([0, "turn-aborted"]);
    expect(ranLines(dir)).toEqual(['get_temperature {"city":"Tokyo"}']);
    const chat = hunt4Desk(dir).conversation(CONVERSATION, { store: fsStore(dir), lm: wireLM({ provider: "openai", baseURL: server.url }) });
    const [turn] = await chat.turns();
    expect(turn!.state).toBe("stopped");
  });
});
