/**
 * Hunt: bootstrapped examples of a multi-step tool loop on the wire (real `openai` and `@anthropic-ai/sdk`
 * clients, the local mock server): every step's tool calls and results are kept; running the optimized
 * function never runs an example's tools again; each tool_call id in a wire request is answered exactly
 * once, example ids never equal a live call's id (even a live id that looks like an example's); nothing
 * of an example reaches a file-store conversation; a state reloaded through JSON sends byte-identical bodies.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import { anthropic, bootstrapFewShot, openai, type AIState, type LMRequest } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { eachTestServer, fixtureJson, type MockServer, type Reply } from "../providers/server.js";
import { lookups, rows, status } from "./desk.js";

let server: MockServer;
eachTestServer((s) => (server = s));
beforeEach(() => {
  lookups.length = 0;
});

// biome-ignore lint/suspicious/noExplicitAny: provider wire JSON, read freely as the real APIs send it
type Json = Record<string, any>;
const orderIn = (text: string): string => /[A-Z]-\d{4}/.exec(text)?.[0] ?? "?";

/** A teacher that looks the order up in two steps (twice), then answers with the status it read. */
const twoStepTeacher = () =>
  scripted(Array.from({ length: 100 }, () => (r: LMRequest) => {
    const live = [...r.messages].reverse().find((m) => m.role === "user" && m.content.startsWith("<question>"))!;
    const at = r.messages.indexOf(live);
    const results = r.messages.slice(at).filter((m) => m.role === "tool");
    if (results.length < 2) return { text: `step ${results.length + 1}`, toolCalls: [{ name: "lookup_order", input: { order_id: orderIn(live.content) } }] };
    return `<result>\n${(JSON.parse(results.at(-1)!.content) as { status: string }).status}\n</result>`;
  }));

async function optimized() {
  const better = await bootstrapFewShot(status, rows.slice(0, 3), { teacher: twoStepTeacher(), maxBootstrapped: 2, maxLabeled: 2, concurrency: 1 });
  lookups.length = 0;
  return better;
}

/** OpenAI: each assistant tool_call id answered by exactly one tool message, no tool message answering nothing; the ids. */
function openAIIds(messages: Json[]): string[] {
  const asked = messages.flatMap((m) => (m.role === "assistant" ? ((m.tool_calls ?? []) as Json[]).map((c) => c.id as string) : []));
  const answered = messages.filter((m) => m.role === "tool").map((m) => m.tool_call_id as string);
  expect([...answered].sort()).toEqual([...asked].sort());
  return asked;
}

/** Anthropic: each tool_use id answered by exactly one tool_result block, in the next message; the ids. */
function anthropicIds(messages: Json[]): string[] {
  const blocks = (m: Json): Json[] => (typeof m.content === "string" ? [] : (m.content as Json[]));
  const asked: string[] = [];
  messages.forEach((m, i) => {
    const uses = blocks(m).filter((b) => b.type === "tool_use").map((b) => b.id as string);
    if (uses.length === 0) return;
    expect(blocks(messages[i + 1]!).filter((b) => b.type === "tool_result").map((b) => b.tool_use_id).sort()).toEqual([...uses].sort());
    asked.push(...uses);
  });
  const answered = messages.flatMap((m) => blocks(m).filter((b) => b.type === "tool_result").map((b) => b.tool_use_id as string));
  expect([...answered].sort()).toEqual([...asked].sort());
  return asked;
}

/** A tool-call reply in the provider's format, calling lookup_order for `order` with call id `id`. */
function toolReply(provider: "openai" | "anthropic", id: string, order: string): Reply {
  const json = fixtureJson(provider === "openai" ? "openai/tool-call.json" : "anthropic/tool-use.json") as Json;
  if (provider === "openai") json.choices[0].message.tool_calls = [{ id, type: "function", function: { name: "lookup_order", arguments: JSON.stringify({ order_id: order }) } }];
  else json.content = [{ type: "tool_use", id, name: "lookup_order", input: { order_id: order } }];
  return { json };
}
const textReply = (provider: "openai" | "anthropic"): Reply => ({ json: fixtureJson(provider === "openai" ? "openai/text.json" : "anthropic/text.json") });
const lmFor = (provider: "openai" | "anthropic") =>
  provider === "openai" ? openai({ model: "gpt-4.1-mini", apiKey: "test-key", baseURL: `${server.url}/v1` }) : anthropic({ model: "claude-haiku-4-5", apiKey: "test-key", baseURL: server.url });
const idsOf = (provider: "openai" | "anthropic", body: Json): string[] => (provider === "openai" ? openAIIds(body.messages) : anthropicIds(body.messages));

describe("bootstrapped examples of a two-step tool loop", () => {
  it("keep every step: two assistant steps each with its tool call and its result, then the answer", async () => {
    const better = await optimized();
    expect(better.demos).toHaveLength(2);
    for (const [i, demo] of better.demos.entries()) {
      const order = orderIn(rows[i]!.question);
      expect(demo.steps).toHaveLength(2);
      expect(demo.steps!.map((s) => s.text)).toEqual(["step 1", "step 2"]);
      for (const step of demo.steps!) {
        expect(step.toolCalls).toEqual([{ id: expect.any(String), name: "lookup_order", input: { order_id: order } }]);
        expect(step.results).toEqual([{ id: step.toolCalls[0]!.id, name: "lookup_order", content: expect.stringContaining(rows[i]!.result) }]);
      }
      expect(demo.outputs).toEqual({ result: rows[i]!.result });
    }
  });

  async function liveRun(provider: "openai" | "anthropic", liveId: string): Promise<void> {
    const better = await optimized();
    server.reply(toolReply(provider, liveId, "D-4410"), textReply(provider));
    expect(await better("What is the status of D-4410?", { lm: lmFor(provider) })).toBe("Order A-1042 shipped on Monday.");
    expect(lookups).toEqual(["D-4410"]); // the live call ran once; no example's call ran
    expect(server.requests).toHaveLength(2);
    const first = idsOf(provider, server.requests[0]!.body);
    expect(first).toHaveLength(4); // two examples, two steps each
    expect(new Set(first).size).toBe(4);
    const second = idsOf(provider, server.requests[1]!.body);
    expect(second).toHaveLength(5);
    // the live call is the last one sent; its id is none of the examples'
    const live = second.at(-1)!;
    expect(second.slice(0, 4)).not.toContain(live);
    expect(new Set(second).size).toBe(5);
  }

  it("openai, the provider's own call id: example tools never run again; every id answered once; no example id equals the live one", () => liveRun("openai", "call_Lk2p9QwOrder1042"));
  it("anthropic, the provider's own call id: likewise", () => liveRun("anthropic", "toolu_01FxLookupA1042aaaaaaa"));
  it("anthropic, a live call id shaped like an example's (example_1_call_1): no example id equals it either", () => liveRun("anthropic", "example_1_call_1"));

  /**
   * A live call id of the examples' bare shape (`example_1_call_1`, as a provider or a model that writes its own
   * ids could give) is none of the examples' ids, on OpenAI too, whose wire rule sends a duplicate id as it is
   * (OPENAI_IDS `unique: false`, src/providers/tool-ids.ts): example ids end with a mark made from the example's
   * steps (`example_<n>_call_<k>_<mark>`, src/optimize/demo-messages.ts), a pure function of the state, so a
   * reloaded state still sends the same bytes (below) and the examples, the first messages of every request,
   * keep the request fingerprints of a turn's steps. DESIGN: "Example call ids are made unique per example";
   * "every tool call gets a result message, in the provider's own pairing rules". (The ids were the bare
   * `example_<n>_call_<k>`: the OpenAI request carried that id twice.)
   */
  it("openai, a live call id shaped like an example's (example_1_call_1): no example id equals it", () => liveRun("openai", "example_1_call_1"));

  it("example ids: example_<n>_call_<k> and a mark from the example's steps, the same for the same state, another for other steps", async () => {
    const better = await optimized();
    server.reply(toolReply("openai", "call_one", "D-4410"), textReply("openai"));
    await better("What is the status of D-4410?", { lm: lmFor("openai") });
    const ids = idsOf("openai", server.requests[0]!.body);
    expect(ids).toEqual([
      expect.stringMatching(/^example_1_call_1_[0-9a-z]{8}$/),
      expect.stringMatching(/^example_1_call_2_[0-9a-z]{8}$/),
      expect.stringMatching(/^example_2_call_1_[0-9a-z]{8}$/),
      expect.stringMatching(/^example_2_call_2_[0-9a-z]{8}$/),
    ]);
    const marks = ids.map((id) => id.slice(-8));
    expect(marks[1]).toBe(marks[0]); // one mark per example
    expect(marks[2]).not.toBe(marks[0]); // another example (other steps): another mark
    for (const id of ids) expect(id.length).toBeLessThanOrEqual(40); // sent as they are on OpenAI's wire
  });
});

describe("nothing of an example reaches a conversation", () => {
  it("an optimized function in a file-store conversation: its records hold the live turn only", async () => {
    const better = await optimized();
    const dir = mkdtempSync(join(tmpdir(), "functai-hunt4-"));
    server.reply(toolReply("openai", "call_live_1", "F-6630"), textReply("openai"));
    const chat = better.using({ lm: lmFor("openai") }).conversation("sam", { store: fsStore(dir) });
    expect(await chat.send("What is the status of F-6630?")).toBe("Order A-1042 shipped on Monday.");
    expect(lookups).toEqual(["F-6630"]);
    const text = readFileSync(join(dir, "conversations", "sam.jsonl"), "utf8");
    const records = text.split("\n").filter(Boolean).map((l) => JSON.parse(l) as Json);
    for (const shown of ["example_", "A-1042\\\"", "B-2210", "stuck at the carrier", "step 1", "step 2"]) expect(text).not.toContain(shown);
    expect(records.filter((r) => r.kind === "tool").map((r) => [r.name, r.state, r.id])).toEqual([["lookup_order", "done", "call_live_1"]]);
    expect(records.filter((r) => r.kind === "reply")).toHaveLength(2);
    // the examples were sent on the wire all the same
    expect(JSON.stringify(server.requests[0]!.body)).toContain("example_1_call_1");
  });
});

describe("withState(state()) on the wire", () => {
  for (const provider of ["openai", "anthropic"] as const) {
    it(`${provider}: a reloaded state (through JSON text) sends byte-identical request bodies`, async () => {
      const better = await optimized();
      const saved = JSON.parse(JSON.stringify(better.state())) as AIState;
      const again = status.withState(saved);
      for (const fn of [better, again]) {
        server.reply(toolReply(provider, provider === "openai" ? "call_same" : "toolu_same", "E-5520"), textReply(provider));
        await fn("What is the status of E-5520?", { lm: lmFor(provider) });
      }
      expect(server.requests).toHaveLength(4);
      const bodies = server.requests.map((r) => JSON.stringify(r.body));
      expect(bodies[2]).toBe(bodies[0]);
      expect(bodies[3]).toBe(bodies[1]);
      expect(JSON.stringify(again.state())).toBe(JSON.stringify(better.state()));
    });
  }
});
