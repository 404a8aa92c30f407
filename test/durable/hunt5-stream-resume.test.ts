/**
 * Hunt: a turn's event stream resumed in another process (`turn.stream()`
 * on a conversation, file store, real children). DESIGN "Events": "A resumed
 * turn's stream does not repeat what was already shown"; `turn.stream()`'s
 * doc: "what was shown before is not shown again". Checked both ways round:
 * a turn that waits here and is approved in a child's stream, and a child
 * streaming a turn SIGKILLed inside its refund, resumed here as a stream.
 */
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import type { TurnEvent } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { refunds } from "./fixtures/hunt-block.js";
import { start, until, type Line } from "./fixtures/hunt2-children.js";
import { BOTH, brief, streamDesk, summary } from "./fixtures/hunt5-stream-desk.js";
import { removeBundles } from "./fixtures/spawn.js";

afterAll(removeBundles);

type Brief = ReturnType<typeof brief>;
const childEvents = (lines: readonly Line[]): Brief[] => lines.flatMap((l) => ("event" in l ? [l["event"] as Brief] : []));
const callKeys = (events: readonly Brief[], type: string): string[] => events.filter((e) => e.type === type).map((e) => `${String(e["site"])}:${String(e["invocation"])}`);
const ANSWER = 'results: {"order":"A-1","paid":39} | refunded A-1';

describe("a turn that waits here, approved in another process's stream", () => {
  const LEASE = { renewMs: 100, ttlMs: 2_000 };
  const here: Brief[] = [];
  let there: Brief[] = [];
  let end: Line = {};
  let effects = "";
  let hereRequests = 0;

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), "functai-hunt5-"));
    effects = join(dir, "effects.log");
    const lm = scripted([BOTH]);
    const s = streamDesk({ effects }).conversation("c", { store: fsStore(dir), lm, approve: ["refund"], lease: LEASE }).stream({ request: "Refund A-1." });
    for await (const e of s) here.push(brief(e as TurnEvent));
    hereRequests = lm.requests.length;
    const child = await start("hunt5-stream-child.ts", { dir, conversation: "c", act: "resume", effects, lease: LEASE });
    try {
      end = await child.line((l) => "ok" in l || "error" in l);
      there = childEvents(child.lines);
    } finally {
      child.kill();
    }
  }, 30_000);

  it("the child's stream shows everything after the wait, the replayed step not again; the refund ran once, one request paid there", () => {
    expect(here.map((e) => e.type)).toEqual(["state", "started", "request", "text", "reply", "tool_call", "tool_call", "approval", "waiting", "state"]);
    expect(end).toMatchObject({ ok: ANSWER, requests: 1 });
    expect([hereRequests, refunds(effects).length]).toEqual([1, 1]);
    const types = there.map((e) => e.type);
    for (const type of ["started", "approval", "waiting"]) expect(types).not.toContain(type);
    // the first step's request, text and reply were shown here: only the second step's there
    expect(there.filter((e) => e.type === "request" || e.type === "reply").map((e) => e["step"])).toEqual([2, 2]);
    expect(there.filter((e) => e.type === "text").map((e) => e["delta"]).join("")).toBe(ANSWER);
    expect(there.find((e) => e.type === "approved")).toMatchObject({ verdict: "yes" });
    expect(callKeys(there, "tool_result").sort()).toEqual(["desk#1:1", "desk#1:2"]);
    // each result is of a call shown here or there, once
    expect(callKeys(there, "tool_result").every((k) => callKeys([...here, ...there], "tool_call").includes(k))).toBe(true);
    expect(there.slice(-2).map((e) => e.type)).toEqual(["done", "state"]);
    expect(there.at(-1)).toMatchObject({ state: "done" });
  });

  // BUG: src/engine/tool-calls.ts:89-94 (prepare) shows a call's tool_call under the key `tool_call:<site>:<invocation>`
  // in `session.shown` (src/turn/session.ts: a new Set per session), so a run in another process shows again the
  // tool_calls of a replayed reply that this process already showed (the step's calls are prepared again; only
  // `started` (frame.ts: journal.replaying), request/text/reply (replayed replies are not asked) and `approval` are
  // held back there). The resumed stream repeats find_order's and refund's tool_call. A fix: do not show the
  // tool_call events of a reply taken from the records (runToolCalls' `anew` false), as the reply itself is not shown.
  it.fails("the child's stream does not show again the tool_call events shown here", () => {
    const shownHere = callKeys(here, "tool_call");
    expect(shownHere).toEqual(["desk#1:1", "desk#1:2"]);
    expect(callKeys(there, "tool_call").filter((k) => shownHere.includes(k))).toEqual([]);
  });

  // BUG: src/conversation/turn.ts:193 (Turn.stream) builds its ConversationStream after continueTurn
  // (src/conversation/driver.ts:152) has started the actor: the state event of the actor's first state
  // (awaitingApproval, seq 1) is emitted before the stream listens (TurnStream's constructor, src/turn/stream.ts:59),
  // and is lost. The stream's events start at seq 2, against EventBase.seq ("1, 2, … in the order this stream showed
  // them"), and its state events do not follow the actor. A fix: subscribe the stream before `actor.start()` (as
  // streamSent does for a new turn, src/conversation/conversation.ts:416-417).
  it.fails("the child's stream is numbered from 1 and starts with the actor's state (awaitingApproval)", () => {
    expect(there.map((e) => e.seq)).toEqual(there.map((_, i) => i + 1));
    expect(there[0]).toMatchObject({ type: "state", state: "awaitingApproval" });
  });
});

describe("a child streaming a turn, SIGKILLed inside its refund; the turn resumed here as a stream", () => {
  const LEASE = { renewMs: 50, ttlMs: 300 };
  let shown: Brief[] = [];
  const resumed: TurnEvent[] = [];
  let result: unknown;
  let requests = 0;
  let effects = "";
  let unfinished: unknown[] = [];

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), "functai-hunt5-"));
    effects = join(dir, "effects.log");
    const marker = join(dir, "marker");
    const child = await start("hunt5-stream-child.ts", { dir, conversation: "k", act: "stream", effects, marker, hold: join(dir, "hold"), lease: LEASE });
    try {
      await until("the refund runs in the child", () => existsSync(marker));
    } finally {
      child.kill();
    }
    await child.exited;
    shown = childEvents(child.lines);
    const lm = scripted([summary]);
    const turn = (await streamDesk({ effects }).conversation("k", { store: fsStore(dir), lm, lease: LEASE }).turns()).at(-1)!;
    unfinished = turn.unfinished.map((u) => u.name);
    const s = turn.stream({ results: { 2: "refunded A-1" } });
    for await (const e of s) resumed.push(e);
    result = await s;
    requests = lm.requests.length;
  }, 30_000);

  it("here the stream shows what came after: the next request, its text and reply, done; not the child's start, first step or refund call", () => {
    expect(unfinished).toEqual(["refund"]);
    expect(shown.map((e) => e.type)).toContain("tool_call");
    expect(result).toBe(ANSWER);
    expect(requests).toBe(1);
    expect(refunds(effects)).toHaveLength(0); // it died holding, before its effect; the person said what it returned: never run here
    const types = resumed.map((e) => e.type);
    expect(types).not.toContain("started");
    expect(resumed.filter((e) => e.type === "request" || e.type === "reply").map((e) => (e as { step: number }).step)).toEqual([2, 2]);
    expect(resumed.some((e) => e.type === "tool_call" && e.name === "refund")).toBe(false);
    expect(resumed.filter((e) => e.type === "text").map((e) => (e as { delta: string }).delta).join("")).toBe(ANSWER);
    expect(types.slice(-2)).toEqual(["done", "state"]);
    // every result shown here is of a call shown here (find_order's done record was not yet kept: it ran again here)
    const calls = resumed.filter((e) => e.type === "tool_call").map((e) => `${(e as { site: string }).site}:${(e as { invocation: number }).invocation}`);
    for (const r of resumed) if (r.type === "tool_result") expect(calls).toContain(`${r.site}:${r.invocation}`);
  });

  // BUG: the same cause as above (src/conversation/turn.ts:196 builds the stream after continueTurn started the actor,
  // src/conversation/driver.ts:152-154): the interrupted actor's `state: interrupted` (seq 1) and, after RESUME, its
  // `state: running` (seq 2) are emitted before the stream listens. The resumed stream starts at seq 3 and never shows
  // the turn running: its only state event is `done`.
  it.fails("here the stream is numbered from 1 and its state events follow the actor (running before done)", () => {
    expect(resumed.map((e) => e.seq)).toEqual(resumed.map((_, i) => i + 1));
    expect(resumed.flatMap((e) => (e.type === "state" ? [e.state] : [])).slice(-2)).toEqual(["running", "done"]);
  });
});
