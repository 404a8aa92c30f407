/**
 * Wrong inputs at every entry point, with a real provider SDK (`openai`)
 * on the mock server: each is refused with a FunctaiError carrying a stable
 * `code` before any model call (the server sees no request), and a turn
 * that waits for a person still waits after a wrong answer. (What the
 * scripted-model tests already cover is not repeated: test/functions/call-*,
 * test/conversation/answer-options, send-key-inputs, test/durable/resume-answers,
 * test/records/settings-values.)
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isFunctaiError, memoryStore, resetConfiguration, type Store, Waiting } from "../../src/index.js";
import { CONVERSATION, hunt4Desk, wireLM } from "./fixtures/hunt4-desk.js";
import { fixtureJson, type MockServer, eachTestServer } from "./server.js";

let server: MockServer;
eachTestServer((s) => (server = s));
afterEach(() => resetConfiguration());

const dir = () => mkdtempSync(join(tmpdir(), "functai-hunt4-in-"));
const lm = () => wireLM({ provider: "openai", baseURL: server.url });

/** The code a call fails with (its synchronous throw or its rejection), or what went wrong instead. */
async function codeOf(act: () => unknown): Promise<string> {
  try {
    const got = act();
    if (got instanceof Promise || (typeof got === "object" && got !== null && "then" in got)) await got;
  } catch (e) {
    return isFunctaiError(e) ? e.code : `not a FunctaiError: ${String(e)}`;
  }
  return "no error";
}

describe("wrong inputs refused before any model call (real SDK, zero requests)", () => {
  const desk = () => hunt4Desk(dir());
  const cases: [string, (d: ReturnType<typeof desk>, store: Store) => unknown, string][] = [
    ["fn({ question: 42 })", (d) => d({ question: 42 } as never, { lm: lm() }), "input-invalid"],
    ["fn(42)", (d) => d(42 as never, { lm: lm() }), "input-invalid"],
    ["fn({})", (d) => d({} as never, { lm: lm() }), "input-invalid"],
    ["fn.predict({ question: null })", (d) => d.predict({ question: null } as never, { lm: lm() }), "input-invalid"],
    ["fn.stream({ question: [] })", (d) => d.stream({ question: [] } as never, { lm: lm() }), "input-invalid"],
    ["fn(input, { approve: 'sometimes' })", (d) => d("What now?", { lm: lm(), approve: "sometimes" as never }), "settings-invalid"],
    ["fn(input, { maxSteps: 0 })", (d) => d("What now?", { lm: lm(), maxSteps: 0 }), "settings-invalid"],
    ["fn(input, { toolErrors: 'maybe' })", (d) => d("What now?", { lm: lm(), toolErrors: "maybe" as never }), "settings-invalid"],
    ["fn(input, { lm: 42 })", (d) => d("What now?", { lm: 42 as never }), "lm-unknown"],
    ["fn(input) with no lm anywhere", (d) => d("What now?"), "lm-missing"],
    ["fn.using({ approve: 'sometimes' })", (d) => d.using({ approve: "sometimes" as never })("What now?", { lm: lm() }), "settings-invalid"],
    ["conversation(id, { store: 42 })", (d) => d.conversation(CONVERSATION, { store: 42 as never, lm: lm() }), "settings-invalid"],
    [
      "conversation(id, { approve: 'sometimes' })",
      (d, store) => d.conversation(CONVERSATION, { store, lm: lm(), approve: "sometimes" as never }),
      "settings-invalid",
    ],
    [
      "conversation(id, { lease: { ttlMs: -1 } })",
      (d, store) => d.conversation(CONVERSATION, { store, lm: lm(), lease: { ttlMs: -1 } }),
      "settings-invalid",
    ],
    ["conversation('../etc', …)", (d, store) => d.conversation("../etc", { store, lm: lm() }), "conversation-id"],
    ["send({ question: 42 })", (d, store) => d.conversation(CONVERSATION, { store, lm: lm() }).send({ question: 42 } as never), "input-invalid"],
    [
      "send(input, { key: 42 })",
      (d, store) => d.conversation(CONVERSATION, { store, lm: lm() }).send("What now?", { key: 42 as never }),
      "input-invalid",
    ],
    ["send(input, { key: '' })", (d, store) => d.conversation(CONVERSATION, { store, lm: lm() }).send("What now?", { key: "" }), "input-invalid"],
    [
      "keyed send({ question: 42 }, { key })",
      (d, store) => d.conversation(CONVERSATION, { store, lm: lm() }).send({ question: 42 } as never, { key: "req-1" }),
      "input-invalid",
    ],
    ["stream({ question: 42 })", (d, store) => d.conversation(CONVERSATION, { store, lm: lm() }).stream({ question: 42 } as never), "input-invalid"],
    [
      "send(input, { approve: 'sometimes' })",
      (d, store) => d.conversation(CONVERSATION, { store, lm: lm() }).send("What now?", { approve: "sometimes" as never }),
      "settings-invalid",
    ],
  ];

  it.each(cases)("%s → %s", async (_name, act, code) => {
    const store = memoryStore();
    expect(await codeOf(() => act(desk(), store))).toBe(code);
    expect(server.requests).toHaveLength(0);
    // nothing of a turn is left that a later send would queue behind or count as a parent
    const kinds = (await store.read(CONVERSATION)).map((r) => r.kind);
    expect(kinds.filter((k) => k === "reply" || k === "tool")).toEqual([]);
  });

  it("a conversation given lm: 42 refuses its first send (lm-unknown) without a request; a send with a model then goes on", async () => {
    const store = memoryStore();
    const d = desk();
    expect(await codeOf(() => d.conversation(CONVERSATION, { store, lm: 42 as never }).send("What now?"))).toBe("lm-unknown");
    expect(server.requests).toHaveLength(0);
    server.reply({ json: fixtureJson("hunt4-wire/openai-chat-04-response-final.json") });
    expect(typeof (await d.conversation(CONVERSATION, { store, lm: lm() }).send("What now?"))).toBe("string");
    expect(server.requests).toHaveLength(1);
  });
});

describe("wrong answers to a turn that waits (real SDK): refused, nothing paid or written, it still waits", () => {
  async function waiting() {
    const store = memoryStore();
    const where = dir();
    server.reply({ json: fixtureJson("hunt4-wire/openai-chat-02-response-tool-calls.json") });
    const sent = await hunt4Desk(where)
      .conversation(CONVERSATION, { store, lm: lm(), approve: "changes" })
      .send("What now?")
      .catch((e: unknown) => e);
    expect(sent).toBeInstanceOf(Waiting);
    const [turn] = await hunt4Desk(where).conversation(CONVERSATION, { store, lm: lm() }).turns();
    return { store, turn: turn! };
  }

  it.each([
    ["approve({ id: 'nope' })", (t: Awaited<ReturnType<typeof waiting>>["turn"]) => t.approve({ id: "nope" }), "approval-unknown"],
    ["deny({ id: 'nope' })", (t: Awaited<ReturnType<typeof waiting>>["turn"]) => t.deny({ id: "nope", reason: "no" }), "approval-unknown"],
    [
      "resume({ results: { 1: 'x' } }) of a call that waits for approval, not unfinished",
      (t: Awaited<ReturnType<typeof waiting>>["turn"]) => t.resume({ results: { 1: "x" } }),
      "turn-waiting",
    ],
    [
      "resume({ rerun: [1] }) of a call that waits for approval",
      (t: Awaited<ReturnType<typeof waiting>>["turn"]) => t.resume({ rerun: [1] }),
      "turn-waiting",
    ],
    ["resume({ results: 'x' })", (t: Awaited<ReturnType<typeof waiting>>["turn"]) => t.resume({ results: "x" as never }), "turn-waiting"],
  ] as const)("%s → %s", async (_name, act, code) => {
    const { store, turn } = await waiting();
    const length = (await store.read(CONVERSATION)).length;
    expect(await codeOf(() => act(turn))).toBe(code);
    expect(server.requests).toHaveLength(1);
    expect(await store.read(CONVERSATION)).toHaveLength(length);
    expect((await turn.refresh()).state).toBe("waiting");
  });

  it("approving a done turn, or one of its approvals again: refused, nothing paid", async () => {
    const { turn } = await waiting();
    server.reply({ json: fixtureJson("hunt4-wire/openai-chat-04-response-final.json") });
    await turn.approve({ by: "maria" });
    expect(server.requests).toHaveLength(2);
    const again = await codeOf(() => turn.approve({ by: "ana" }));
    expect(["approval-answered", "turn-state"]).toContain(again);
    expect(await codeOf(() => turn.resume({ results: { 1: "x" } }))).toBe("turn-state");
    expect(server.requests).toHaveLength(2);
  });

  // A person approving from a handle that has no model configured is refused before anything is written or
  // claimed (checkModel, src/conversation/driver.ts): the turn still waits for an answer given where it can run.
  // (Before, the answer was recorded and the turn claimed, then the tool loop threw lm-missing and ended the
  // turn failed: the approval spent, the tool never run, nothing left to resume.)
  it("approved from a handle with no model: refused (lm-missing) with nothing written; the turn still waits", async () => {
    const { store, turn: seen } = await waiting();
    const [turn] = await hunt4Desk(dir()).conversation(CONVERSATION, { store }).turns();
    const length = (await store.read(CONVERSATION)).length;
    expect(await codeOf(() => turn!.approve({ by: "maria" }))).toBe("lm-missing");
    expect(server.requests).toHaveLength(1);
    expect((await seen.refresh()).state).toBe("waiting");
    expect(await store.read(CONVERSATION)).toHaveLength(length);
  });
});
