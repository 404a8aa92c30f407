/**
 * Hunt: a streamed turn's events (the XState actor's emitted events as an
 * async iterable), read well and badly, answered at the wrong time, and
 * stopped while it waits or while a tool runs. Checked: every tool_call has
 * exactly one tool_result after it, the `state` events follow the actor,
 * nothing comes after the final `state`, the turn's outcome and counts do
 * not depend on how (or whether) its events are read, and no promise is left
 * rejected unhandled.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, tool, type TurnEvent } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { deskTools } from "../engine/fixtures.js";
import { summary, twoWaits } from "../durable/fixtures/hunt5-stream-desk.js";
import { waitFor } from "./fixtures.js";

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
beforeAll(() => void process.on("unhandledRejection", onUnhandled));
afterAll(async () => {
  await new Promise((r) => setTimeout(r, 50)); // a rejection left unhandled is reported after a turn of the loop
  process.off("unhandledRejection", onUnhandled);
  expect(unhandled).toEqual([]);
});


/**
 * The desk (find_order reads, refund changes, note says nothing: changes), and a model whose first reply streams
 * a sentence and calls all three at once; its second reply sums up what the tools said.
 */
function parallelDesk() {
  const t = deskTools();
  const fn = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [t.findOrder, t.refund, t.note] });
  const lm = scripted([
    {
      text: "Let me look it up, refund it and note it.",
      toolCalls: [
        { name: "find_order", input: { order_id: "A-1" } },
        { name: "refund", input: { order_id: "A-1", amount: 39 } },
        { name: "note", input: { text: "refunded" } },
      ],
    },
    { chunks: ["<res", "ult>\nAll ", "done, ", "thanks.\n</res", "ult>"] },
  ]);
  return { t, fn, lm };
}

const key = (e: { site: string; invocation: number }): string => `${e.site}:${e.invocation}`;
const states = (events: readonly TurnEvent[]): string[] => events.flatMap((e) => (e.type === "state" ? [e.state] : []));

/** What must hold of any complete run's events. */
function checkWhole(events: readonly TurnEvent[], turn: string): void {
  expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
  for (const e of events) expect(e.turn).toBe(turn);
  // every tool_call has exactly one tool_result, after it; no tool_result without its call
  const calls = events.filter((e) => e.type === "tool_call");
  const done = events.filter((e) => e.type === "tool_result");
  expect(new Set(calls.map(key)).size).toBe(calls.length);
  expect(done.map(key).sort()).toEqual(calls.map(key).sort());
  for (const r of done) expect(events.indexOf(calls.find((c) => key(c) === key(r))!)).toBeLessThan(events.indexOf(r));
  // the last two: the end, then the final state; nothing after it
  expect(events.at(-1)?.type).toBe("state");
  expect(["done", "failed", "stopped"]).toContain((events.at(-1) as { state: string }).state);
}

describe("a streamed turn's events: order and completeness", () => {
  it("two steps, three calls in one reply, two approvals (one yes, one no), streamed text: each call one result, states as the actor went", async () => {
    const { t, fn, lm } = parallelDesk();
    const s = fn.stream("Refund A-1", { lm, approve: "changes" });
    const seen: string[] = [];
    s.actor.subscribe((snapshot) => {
      if (seen.at(-1) !== snapshot.value) seen.push(snapshot.value);
    });
    const events: TurnEvent[] = [];
    for await (const e of s) {
      events.push(e);
      if (e.type === "approval") {
        // the approval is pending when its event is read
        expect(s.pending.map((a) => a.id)).toContain(e.approval.id);
        if (e.approval.name === "refund") void s.approve({ id: e.approval.id, by: "maria" });
        else void s.deny("no notes today", { id: e.approval.id });
      }
    }
    expect(await s).toBe("All done, thanks.");
    checkWhole(events, s.turn);
    expect(states(events)).toEqual(["running", "awaitingApproval", "running", "done"]);
    expect(seen).toEqual(states(events)); // the state events are the actor's own states, in order
    const types = events.map((e) => e.type);
    expect(types.filter((x) => x === "started")).toHaveLength(1);
    expect(types.filter((x) => x === "approval")).toHaveLength(2);
    expect(types.filter((x) => x === "approved")).toHaveLength(2);
    expect(types.filter((x) => x === "waiting")).toHaveLength(1);
    // one request event per paid request, one reply each
    expect(types.filter((x) => x === "request")).toHaveLength(2);
    expect(types.filter((x) => x === "reply")).toHaveLength(2);
    expect(lm.requests).toHaveLength(2);
    // approval → waiting → state awaitingApproval → approved → state running → the tools' results
    const at = (pred: (e: TurnEvent) => boolean): number => events.findIndex(pred);
    const waitingAt = at((e) => e.type === "waiting");
    expect(at((e) => e.type === "approval")).toBeLessThan(waitingAt);
    expect(at((e) => e.type === "state" && e.state === "awaitingApproval")).toBe(waitingAt + 1);
    const resumedAt = at((e) => e.type === "state" && e.state === "running" && e.seq > 1);
    expect(events.slice(waitingAt + 2, resumedAt).map((e) => e.type)).toEqual(["approved", "approved"]);
    expect(events.slice(resumedAt + 1, resumedAt + 4).map((e) => e.type)).toEqual(["tool_result", "tool_result", "tool_result"]);
    // the refusal is the note's result; the refund's result is its output
    const result = (name: string) => events.find((e) => e.type === "tool_result" && e.name === name) as { output?: unknown };
    expect(result("note").output).toBe("The person did not allow this call. Reason: no notes today");
    expect(result("refund").output).toBe("refunded 39 for A-1");
    // text: the answer's text only, whatever its chunks split, and the first step's sentence
    const text = events.flatMap((e) => (e.type === "text" ? [e.delta] : [])).join("");
    expect(text).toBe("Let me look it up, refund it and note it.All done, thanks.");
    expect(text).not.toMatch(/result>/);
    expect([t.LOOKUPS, t.REFUNDS, t.NOTES]).toEqual([["A-1"], [["A-1", 39]], []]);
    expect(summary(lm.requests[1]!)).toBe(
      'results: {"order_id":"A-1","item":"kettle","paid":39} | refunded 39 for A-1 | The person did not allow this call. Reason: no notes today',
    );
  });

  it("two waits in one turn: a stale approve() sent between them answers nothing; the second call waits for its own answer", async () => {
    const { t, fn, lm } = twoWaits();
    const s = fn.stream("Refund A-1", { lm, approve: "changes" });
    const approvals: string[] = [];
    let stale: Promise<void> | undefined;
    for await (const e of s) {
      if (e.type === "approval") {
        approvals.push(e.approval.id);
        if (approvals.length === 1) await s.approve();
        else {
          // the stale answer (sent while the turn ran, between its waits) did not say yes to this one
          expect(s.state).toBe("awaitingApproval");
          expect(t.REFUNDS).toEqual([["A-1", 1]]);
          await s.deny("too much", { id: e.approval.id });
        }
      }
      if (e.type === "state" && e.state === "running" && approvals.length === 1) stale = s.approve({ by: "stale" });
    }
    await stale;
    expect(approvals).toEqual(["desk#1:1", "desk#1:2"]);
    expect(await s).toBe("results: refunded 1 for A-1 | The person did not allow this call. Reason: too much");
    expect(t.REFUNDS).toEqual([["A-1", 1]]);
    expect(lm.requests).toHaveLength(3);
  });
});

describe("consumers that misbehave: the outcome does not depend on how the events are read", () => {
  it("never read while the turn runs: it still finishes; read after it ended, every event is there, in order, once", async () => {
    const fn = ai("f", { description: "d", input: { q: z.string() } });
    const words = Array.from({ length: 2000 }, (_, i) => `w${i}`).join(" ");
    const lm = scripted([words]);
    const s = fn.stream("x", { lm });
    expect(await s).toBe(words); // nobody reads: the turn is not held back by its unread events
    expect(s.actor.getSnapshot().status).toBe("done");
    const events: TurnEvent[] = [];
    for await (const e of s) events.push(e);
    checkWhole(events, s.turn);
    expect(events.flatMap((e) => (e.type === "text" ? [e.delta] : [])).join("")).toBe(words);
    expect(states(events)).toEqual(["running", "done"]);
    expect(lm.requests).toHaveLength(1);
  });

  it("two consumers of one stream: the second is refused (turn-state) and the first reads the whole turn", async () => {
    const { t, fn, lm } = parallelDesk();
    const s = fn.stream("Refund A-1", { lm, approve: () => true });
    const events: TurnEvent[] = [];
    let second: unknown;
    for await (const e of s) {
      events.push(e);
      if (events.length === 3) {
        try {
          for await (const _ of s) break;
        } catch (err) {
          second = err;
        }
      }
    }
    expect(second).toMatchObject({ code: "turn-state" });
    expect(await s).toBe("All done, thanks.");
    checkWhole(events, s.turn);
    expect([t.LOOKUPS.length, t.REFUNDS.length, t.NOTES.length, lm.requests.length]).toEqual([1, 1, 1, 2]);
  });

  it("a throw inside the loop body on `started`: the turn stops before its first model request, nothing runs, the throw is the caller's", async () => {
    const { t, fn, lm } = parallelDesk();
    const s = fn.stream("Refund A-1", { lm, approve: () => true });
    const thrown = new Error("the UI crashed");
    const caught = await (async () => {
      for await (const e of s) if (e.type === "started") throw thrown;
    })().catch((e: unknown) => e);
    expect(caught).toBe(thrown);
    await expect(s).rejects.toMatchObject({ code: "turn-aborted" });
    expect(s.state).toBe("stopped");
    await new Promise((r) => setTimeout(r, 30));
    expect([t.LOOKUPS.length, t.REFUNDS.length, t.NOTES.length, lm.requests.length]).toEqual([0, 0, 0, 0]);
  });

  it("a throw inside the loop body on the refund's tool_call: no model request follows; a tool the step began runs once at most", async () => {
    // (events reach the reader a turn of the loop after they happen: a step's tools, approved by a function, may
    // already run when the reader sees their calls; only the next paid request is held back for the reader)
    const { t, fn, lm } = parallelDesk();
    const s = fn.stream("Refund A-1", { lm, approve: () => true });
    const caught = await (async () => {
      for await (const e of s) if (e.type === "tool_call" && e.name === "refund") throw new Error("the UI crashed");
    })().catch((e: unknown) => e);
    expect(caught).toMatchObject({ message: "the UI crashed" });
    await expect(s).rejects.toMatchObject({ code: "turn-aborted" });
    await new Promise((r) => setTimeout(r, 30));
    expect(s.state).toBe("stopped");
    expect(lm.requests).toHaveLength(1);
    for (const runs of [t.LOOKUPS, t.REFUNDS, t.NOTES]) expect(runs.length).toBeLessThanOrEqual(1);
  });

  it("the same turn read fast, read slowly, and left unread: the same result, records and tool runs", async () => {
    const outcomes: unknown[] = [];
    for (const read of ["fast", "slow", "none"] as const) {
      const { t, fn, lm } = parallelDesk();
      const s = fn.stream("Refund A-1", { lm, approve: (a) => a.name === "refund" || "no notes" });
      if (read === "fast") for await (const _ of s);
      if (read === "slow") for await (const _ of s) await new Promise((r) => setTimeout(r, 3));
      outcomes.push([await s, t.LOOKUPS.length, t.REFUNDS.length, t.NOTES.length, lm.requests.length]);
    }
    expect(outcomes).toEqual(Array(3).fill(["All done, thanks.", 1, 1, 0, 2]));
  });
});

describe("stopped while the stream waits or while a tool runs", () => {
  it("an AbortSignal while the stream waits for an approval: the stream ends on state stopped, turn-aborted, nothing runs afterwards", async () => {
    const { t, fn, lm } = parallelDesk();
    const controller = new AbortController();
    const s = fn.stream("Refund A-1", { lm, approve: "changes", signal: controller.signal });
    const events: TurnEvent[] = [];
    for await (const e of s) {
      events.push(e);
      if (e.type === "waiting") controller.abort("closed the tab");
    }
    await expect(s).rejects.toMatchObject({ code: "turn-aborted", cause: "closed the tab" });
    expect(states(events)).toEqual(["running", "awaitingApproval", "stopped"]);
    expect(events.at(-1)).toMatchObject({ type: "state", state: "stopped" });
    await expect(s.approve()).rejects.toMatchObject({ code: "turn-state" }); // too late: nothing waits
    await new Promise((r) => setTimeout(r, 30));
    expect([t.LOOKUPS.length, t.REFUNDS.length, t.NOTES.length, lm.requests.length]).toEqual([0, 0, 0, 1]);
  });

  it("an AbortSignal while a changing tool runs: the tool sees its signal, runs once, and no request follows", async () => {
    let runs = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let aborted: boolean | undefined;
    const pay = tool("pay", { description: "Pay.", input: { amount: z.number() }, effects: "changes" }, async ({ amount }, ctx) => {
      runs++;
      await gate; // deaf to its signal, as a slow API is
      aborted = ctx.signal.aborted;
      return `paid ${amount}`;
    });
    const fn = ai("desk", { description: "Pay.", input: { q: z.string() }, tools: [pay] });
    const lm = scripted([{ toolCalls: [{ name: "pay", input: { amount: 5 } }] }, "never asked"]);
    const controller = new AbortController();
    const s = fn.stream("pay", { lm, signal: controller.signal });
    const events: TurnEvent[] = [];
    const read = (async () => {
      for await (const e of s) events.push(e);
    })();
    await waitFor(() => runs === 1);
    controller.abort();
    release();
    await read;
    await expect(s).rejects.toMatchObject({ code: "turn-aborted" });
    expect(aborted).toBe(true);
    expect(events.at(-1)).toMatchObject({ type: "state", state: "stopped" });
    expect(events.some((e) => e.type === "request" && e.step === 2)).toBe(false);
    await new Promise((r) => setTimeout(r, 30));
    expect([runs, lm.requests.length]).toEqual([1, 1]);
  });
});
