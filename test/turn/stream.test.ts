import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, FunctaiError, StepLimit, tool, type TurnEvent } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { deskTools, echoLast, toolResults } from "../engine/fixtures.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function desk() {
  const t = deskTools();
  const fn = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [t.findOrder, t.refund, t.note] });
  return { fn, t };
}

const refundThenEcho = () => scripted([
  { toolCalls: [{ name: "find_order", input: { order_id: "A-1" } }] },
  { toolCalls: [{ name: "refund", input: { order_id: "A-1", amount: 39 } }] },
  echoLast,
]);

describe("a stream's events", () => {
  it("start with state and started, carry turn/seq/at/path, and end with done", async () => {
    const { fn } = desk();
    const s = fn.stream("Refund A-1", { lm: refundThenEcho(), approve: null });
    const events: TurnEvent[] = [];
    for await (const e of s) events.push(e);
    expect(await s).toBe("saw: refunded 39 for A-1");
    expect(events.slice(0, 3).map((e) => e.type)).toEqual(["state", "started", "request"]);
    expect(events[1]).toMatchObject({ type: "started", name: "desk", input: { message: "Refund A-1" }, path: "desk" });
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    for (const e of events) {
      expect(e.turn).toBe(s.turn);
      expect(Date.parse(e.at)).not.toBeNaN();
      expect(e.path).toBe("desk");
    }
    const types = events.map((e) => e.type);
    for (const type of ["text", "reply", "tool_call", "tool_result", "done"]) expect(types).toContain(type);
    expect(events.filter((e) => e.type === "text").map((e) => (e as { delta: string }).delta).join("")).toBe("saw: refunded 39 for A-1");
    const call = events.find((e) => e.type === "tool_call" && e.name === "refund");
    expect(call).toMatchObject({ invocation: 2, input: { order_id: "A-1", amount: 39 }, effects: "changes" });
    expect(events.find((e) => e.type === "tool_result" && e.name === "refund")).toMatchObject({ invocation: 2, output: "refunded 39 for A-1" });
    expect(types.slice(-2)).toEqual(["done", "state"]);
  });

  it("approved mid-run: approval, approved, then the tool runs once", async () => {
    const { fn, t } = desk();
    const lm = refundThenEcho();
    const s = fn.stream("Refund A-1", { lm, approve: "changes" });
    const types: string[] = [];
    for await (const e of s) {
      types.push(e.type);
      if (e.type === "approval") {
        expect(s.state).toBe("awaitingApproval");
        expect(s.pending.map((a) => a.path)).toEqual(["desk/refund"]);
        void s.approve({ by: "maria" });
      }
      if (e.type === "approved") expect(e).toMatchObject({ verdict: "yes", by: "maria", approval: { name: "refund" } });
    }
    expect(await s).toBe("saw: refunded 39 for A-1");
    expect(t.REFUNDS).toEqual([["A-1", 39]]);
    expect(t.LOOKUPS).toEqual(["A-1"]);
    expect(lm.requests).toHaveLength(3); // the earlier replies were replayed, not asked again
    expect(types.indexOf("approval")).toBeLessThan(types.indexOf("approved"));
    expect(types.filter((x) => x === "started")).toHaveLength(1);
  });

  it("denied mid-run: the reason reaches the model, the tool never runs", async () => {
    const { fn, t } = desk();
    const s = fn.stream("Refund A-1", { lm: refundThenEcho(), approve: "changes" });
    for await (const e of s) if (e.type === "approval") void s.deny("over the limit");
    expect(await s).toBe("saw: The person did not allow this call. Reason: over the limit");
    expect(t.REFUNDS).toEqual([]);
  });

  it("several approvals pending at once: answered one by one, by id; each tool runs once", async () => {
    const { fn, t } = desk();
    const lm = scripted([
      { toolCalls: [{ name: "refund", input: { order_id: "A-1", amount: 1 } }, { name: "note", input: { text: "refunded" } }] },
      (req) => `results: ${toolResults(req).map(([, c]) => c).join(" | ")}`,
    ]);
    const s = fn.stream("go", { lm, approve: "changes" });
    const ids: string[] = [];
    for await (const e of s) {
      if (e.type === "approval") ids.push(e.approval.id);
      if (e.type === "waiting") {
        expect(ids).toEqual(["desk#1:1", "desk#1:2"]);
        await s.approve({ id: ids[1]! });
        expect(s.state).toBe("awaitingApproval"); // one answer of two: the turn still waits
        expect(s.pending.map((a) => a.id)).toEqual(["desk#1:1"]);
        expect(t.NOTES).toEqual([]);
        await s.approve({ id: ids[0]! });
      }
    }
    expect(await s).toBe("results: refunded 1 for A-1 | noted");
    expect(t.REFUNDS).toEqual([["A-1", 1]]);
    expect(t.NOTES).toEqual(["refunded"]);
    expect(lm.requests).toHaveLength(2);
  });

  it("an answer to an id never asked about is refused (approval-unknown); an answer against the one given is refused (approval-answered), the first stands", async () => {
    const { fn, t } = desk();
    const s = fn.stream("Refund A-1", { lm: refundThenEcho(), approve: "changes" });
    await expect(s.approve({ id: "desk#1:2" })).rejects.toMatchObject({ code: "approval-unknown" }); // not asked yet
    for await (const e of s) {
      if (e.type === "approval") {
        await expect(s.approve({ id: "desk#1:99" })).rejects.toMatchObject({ code: "approval-unknown" });
        expect(s.state).toBe("awaitingApproval");
        await s.approve({ id: e.approval.id });
        await expect(s.deny("late", { id: e.approval.id })).rejects.toMatchObject({ code: "approval-answered" }); // the first answer stands
        await s.approve({ id: e.approval.id }); // the same answer again changes nothing
        await s.approve(); // nothing waits: nothing happens
      }
    }
    expect(await s).toBe("saw: refunded 39 for A-1");
    expect(t.REFUNDS).toEqual([["A-1", 39]]);
  });

  it("a slow consumer gets every event, in seq order, with no gaps", async () => {
    const { fn } = desk();
    const fast: TurnEvent[] = [];
    const s1 = fn.stream("Refund A-1", { lm: refundThenEcho(), approve: null });
    for await (const e of s1) fast.push(e);
    const slow: TurnEvent[] = [];
    const s2 = fn.stream("Refund A-1", { lm: refundThenEcho(), approve: null });
    for await (const e of s2) {
      slow.push(e);
      await sleep(5);
    }
    expect(slow.map((e) => e.seq)).toEqual(slow.map((_, i) => i + 1));
    expect(slow.map((e) => e.type)).toEqual(fast.map((e) => e.type));
  });
});

describe("a long stream", () => {
  it("thousands of text deltas, read slowly, arrive whole and in order", async () => {
    const fn = ai("f", { description: "d", input: { q: z.string() } });
    const words = Array.from({ length: 3000 }, (_, i) => `w${i}`).join(" ");
    const s = fn.stream("x", { lm: scripted([words]) });
    let text = "";
    let last = 0;
    let n = 0;
    for await (const e of s) {
      expect(e.seq).toBe(last + 1);
      last = e.seq;
      if (e.type === "text") text += e.delta;
      if (++n % 500 === 0) await sleep(1);
    }
    expect(text).toBe(words);
    expect(await s).toBe(words);
  });
});

describe("leaving or stopping a stream", () => {
  it("an early break stops the actor: no more model calls", async () => {
    const { fn } = desk();
    const lm = refundThenEcho();
    const s = fn.stream("Refund A-1", { lm, approve: null });
    for await (const e of s) if (e.type === "tool_call") break;
    expect(s.actor.getSnapshot().status).not.toBe("active");
    expect(s.state).toBe("stopped");
    await expect(s).rejects.toMatchObject({ code: "turn-aborted" });
    await sleep(20);
    expect(lm.requests).toHaveLength(1);
  });

  it("a break while an approval waits stops the turn too (nobody could answer it any more)", async () => {
    const { fn, t } = desk();
    const lm = refundThenEcho();
    const s = fn.stream("Refund A-1", { lm, approve: "changes" });
    for await (const e of s) if (e.type === "approval") break;
    expect(s.actor.getSnapshot().status).not.toBe("active");
    await expect(s).rejects.toBeInstanceOf(FunctaiError);
    expect(t.REFUNDS).toEqual([]);
    expect(lm.requests).toHaveLength(2);
  });

  it("abort() stops a running turn; the tool in flight sees its signal", async () => {
    let signal: AbortSignal | undefined;
    const slow = tool("slow", { description: "d", input: {}, effects: "reads" }, async (_i, ctx) => {
      signal = ctx.signal;
      await sleep(30);
      return "late";
    });
    const fn = ai("f", { description: "d", input: { q: z.string() }, tools: [slow] });
    const lm = scripted([{ toolCalls: [{ name: "slow", input: {} }] }, "never"]);
    const s = fn.stream("x", { lm });
    for await (const e of s) if (e.type === "tool_call") s.abort();
    await expect(s).rejects.toMatchObject({ code: "turn-aborted" });
    expect(signal?.aborted).toBe(true);
    await sleep(50);
    expect(lm.requests).toHaveLength(1);
    expect(s.state).toBe("stopped");
  });

  it("an AbortSignal in the call's options stops the turn with its reason as cause", async () => {
    const { fn } = desk();
    const controller = new AbortController();
    const lm = refundThenEcho();
    const s = fn.stream("Refund A-1", { lm, approve: null, signal: controller.signal });
    for await (const e of s) if (e.type === "reply") controller.abort("user left");
    const err = await s.then(() => null, (e: unknown) => e);
    expect(err).toMatchObject({ code: "turn-aborted", cause: "user left" });
    expect(lm.requests).toHaveLength(1);
    // a plain call takes a signal too; aborted before it starts, nothing is asked
    const lm2 = refundThenEcho();
    await expect(fn("x", { lm: lm2, signal: AbortSignal.abort() })).rejects.toMatchObject({ code: "turn-aborted" });
    expect(lm2.requests).toHaveLength(0);
  });
});

describe("a failing stream", () => {
  it("its promise rejects with the original error; the events end with failed", async () => {
    const { fn } = desk();
    const loop = { toolCalls: [{ name: "find_order", input: { order_id: "A-1" } }] };
    const s = fn.stream("x", { lm: scripted([loop, loop]), maxSteps: 2 });
    const events: TurnEvent[] = [];
    for await (const e of s) events.push(e);
    const err = await s.then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(StepLimit);
    expect(events.at(-2)).toMatchObject({ type: "failed", error: { code: "step-limit" } });
    expect(events.at(-1)).toMatchObject({ type: "state", state: "failed" });
  });
});

describe("a conversation's stream", () => {
  it("starts with started, naming the conversation", async () => {
    const { memoryStore } = await import("../../src/testing/index.js");
    const { fn } = desk();
    const s = fn.conversation("sam", { store: memoryStore(), lm: refundThenEcho(), approve: null }).stream("Refund A-1");
    const events: TurnEvent[] = [];
    for await (const e of s) events.push(e);
    expect(await s).toBe("saw: refunded 39 for A-1");
    expect(events.filter((e) => e.type === "started")).toEqual([
      expect.objectContaining({ name: "desk", input: { message: "Refund A-1" }, conversation: "sam", turn: s.turn }),
    ]);
  });
});
