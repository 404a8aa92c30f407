/**
 * An answer given from `actor.on("*")`, the moment the `approval` event is
 * emitted (a WebSocket server forwarding events, a UI store), finds the turn
 * awaiting it: the event is emitted by the transition into awaitingApproval.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, type TurnEvent } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { deskTools, echoLast } from "../engine/fixtures.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function waiting(calls: { name: string; input: unknown }[] = [{ name: "refund", input: { order_id: "A-1", amount: 39 } }]) {
  const t = deskTools();
  const fn = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [t.findOrder, t.refund, t.note] });
  const lm = scripted([{ toolCalls: calls }, echoLast]);
  return { s: fn.stream("Refund A-1", { lm, approve: "changes" }), t };
}

/** The stream's result, or what it was doing when it had not settled in time. */
const settled = (s: PromiseLike<unknown> & { state: string }) =>
  Promise.race([Promise.resolve(s).then((v) => `result: ${String(v)}`), sleep(500).then(() => `not settled: ${s.state}`)]);

describe("answering from actor.on('*') as the approval event is emitted", () => {
  it("by id: the approval is pending when its event is seen, and the turn goes on", async () => {
    const { s, t } = waiting();
    const seen: { state: string; pending: string[] }[] = [];
    const answers: Promise<void>[] = [];
    s.actor.on("*", (e) => {
      if (e.type !== "approval") return;
      seen.push({ state: s.state, pending: s.pending.map((a) => a.id) });
      answers.push(s.approve({ id: e.approval.id, by: "maria" }));
    });
    expect(await settled(s)).toBe("result: saw: refunded 39 for A-1");
    await Promise.all(answers);
    expect(seen).toEqual([{ state: "awaitingApproval", pending: ["desk#1:1"] }]);
    expect(t.REFUNDS).toEqual([["A-1", 39]]);
  });

  it("all at once: an approve() from the handler is not dropped", async () => {
    const { s, t } = waiting();
    s.actor.on("*", (e) => void (e.type === "approval" && s.approve()));
    expect(await settled(s)).toBe("result: saw: refunded 39 for A-1");
    expect(t.REFUNDS).toEqual([["A-1", 39]]);
  });

  it("two approvals: each answered from the handler by id, in reverse order of their events", async () => {
    const { s, t } = waiting([
      { name: "refund", input: { order_id: "A-1", amount: 1 } },
      { name: "note", input: { text: "refunded" } },
    ]);
    const ids: string[] = [];
    s.actor.on("*", (e) => {
      if (e.type === "approval") ids.push(e.approval.id);
      if (e.type === "waiting") for (const id of [...ids].reverse()) void s.deny("no", { id });
    });
    expect(await settled(s)).toMatch(/^result: saw: /);
    expect(t.REFUNDS).toEqual([]);
    expect(t.NOTES).toEqual([]);
  });

  it("the stream's events keep their order and numbering: approval(s), waiting, state", async () => {
    const { s } = waiting([
      { name: "refund", input: { order_id: "A-1", amount: 1 } },
      { name: "note", input: { text: "refunded" } },
    ]);
    const events: TurnEvent[] = [];
    for await (const e of s) {
      events.push(e);
      if (e.type === "waiting") void s.approve();
    }
    await s;
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    const types = events.map((e) => e.type);
    const at = types.indexOf("approval");
    expect(types.slice(at, at + 6)).toEqual(["approval", "approval", "waiting", "state", "approved", "approved"]);
    expect(events.filter((e) => e.type === "approval").map((e) => e.path)).toEqual(["desk", "desk"]);
  });
});
