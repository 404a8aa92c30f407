/**
 * Hunt 59: what a turn's events carry is the reader's own. Before, the
 * `reply` event's tool calls held the very inputs the turn keeps (its
 * journal, the history the model is sent next), the `started` event's input
 * was the one every run of the turn starts from, and the `waiting` event's
 * `approvals` was the actor's own list of pending approvals: a reader that
 * redacted what it was shown, or worked through a wait's approvals with
 * `shift()`, changed what the turn did. A refund a person approved at 39 ran
 * at 0; the model was told a call it never made; after an answer the turn
 * asked the model anew with the redacted input and never ran what was
 * approved; a wait's approvals could no longer be answered.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, memoryStore, tool, type TurnEvent } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { echoLast } from "../engine/fixtures.js";
import { refundDesk, twoAsks } from "./fixtures.js";

type Amounted = { amount: number };
const redact = (e: TurnEvent): void => {
  if (e.type === "reply") for (const call of e.toolCalls) (call.input as Amounted).amount = 0;
};
/** The tool calls the model was sent back in its last request (its own earlier reply, as the turn keeps it). */
const sentBack = (lm: ReturnType<typeof scripted>) =>
  (lm.requests.at(-1)?.messages ?? []).flatMap((m) => (m.role === "assistant" ? (m.toolCalls ?? []).map((c) => c.input) : []));

describe("a reply event's tool calls are the reader's copy", () => {
  it("a reader that redacts them while the turn waits: the refund runs as the person approved it (39), not as redacted", async () => {
    const { fn, lm, t } = refundDesk();
    const s = fn.stream("Refund A-1", { lm, approve: "changes" });
    const approved: unknown[] = [];
    for await (const e of s) {
      redact(e);
      if (e.type === "approval") {
        approved.push(e.approval.input);
        void s.approve();
      }
    }
    expect(approved).toEqual([{ order_id: "A-1", amount: 39 }]);
    expect(t.REFUNDS).toEqual([["A-1", 39]]);
    expect(await s).toBe("saw: refunded 39 for A-1");
    expect(sentBack(lm)).toEqual([{ order_id: "A-1", amount: 39 }]);
  });

  it("an actor.on handler that redacts them as they are emitted: the tool runs with what the model asked", async () => {
    const { fn, t } = refundDesk();
    const lm = scripted([{ toolCalls: [{ name: "refund", input: { order_id: "A-1", amount: 39 } }] }, echoLast]);
    const s = fn.stream("Refund A-1", { lm, approve: null });
    const calls: unknown[] = [];
    s.actor.on("*", (e) => {
      redact(e);
      if (e.type === "tool_call") calls.push(e.input);
    });
    expect(await s).toBe("saw: refunded 39 for A-1");
    expect(t.REFUNDS).toEqual([["A-1", 39]]);
    expect(calls).toEqual([{ order_id: "A-1", amount: 39 }]);
    expect(sentBack(lm)).toEqual([{ order_id: "A-1", amount: 39 }]);
  });

  it("a conversation's stream: the model is sent back the call it made, as its records keep it", async () => {
    let open!: () => void;
    const shown = new Promise<void>((r) => (open = r));
    const REFUNDS: [string, number][] = [];
    // (ends once the reader has redacted the reply: the next request is built after that)
    const refund = tool(
      "refund",
      { description: "Refund.", input: { order_id: z.string(), amount: z.number() }, effects: "changes" },
      async ({ order_id, amount }) => {
        await shown;
        REFUNDS.push([order_id, amount]);
        return `refunded ${amount} for ${order_id}`;
      },
    );
    const fn = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [refund] });
    const lm = scripted([{ toolCalls: [{ name: "refund", input: { order_id: "A-1", amount: 39 } }] }, echoLast]);
    const store = memoryStore();
    const s = fn.conversation("c", { store, lm }).stream("Refund A-1");
    for await (const e of s) {
      redact(e);
      if (e.type === "reply") open();
    }
    expect(await s).toBe("saw: refunded 39 for A-1");
    expect(REFUNDS).toEqual([["A-1", 39]]);
    expect(sentBack(lm)).toEqual([{ order_id: "A-1", amount: 39 }]);
    const replies = (await store.read("c")).filter((r) => r.kind === "reply");
    expect(JSON.stringify(replies)).toContain('"amount":39');
  });
});

describe("a started event's input is the reader's copy", () => {
  /** Reads a stream, redacting the input it is shown (as a log would), and approving what it is asked. */
  async function redactedThenApproved(s: AsyncIterable<TurnEvent> & { approve(): Promise<void> }): Promise<void> {
    for await (const e of s) {
      if (e.type === "started") (e.input as { message: string }).message = "[redacted]";
      if (e.type === "approval") void s.approve();
    }
  }

  it("a plain stream: after the answer the turn goes on with its own input; the approved refund runs once; nothing is asked twice", async () => {
    const { fn, lm, t } = refundDesk();
    const s = fn.stream("Refund A-1", { lm, approve: "changes" });
    await redactedThenApproved(s);
    expect(await s).toBe("saw: refunded 39 for A-1");
    expect(t.REFUNDS).toEqual([["A-1", 39]]);
    expect(lm.requests).toHaveLength(2); // the first reply replayed after the answer, not asked again
    expect(lm.requests.map((r) => r.messages[1]?.content)).toEqual(["<message>\nRefund A-1\n</message>", "<message>\nRefund A-1\n</message>"]);
  });

  it("a conversation's stream: the same", async () => {
    const { fn, lm, t } = refundDesk();
    const s = fn.conversation("c", { store: memoryStore(), lm, approve: "changes" }).stream("Refund A-1");
    await redactedThenApproved(s);
    expect(await s).toBe("saw: refunded 39 for A-1");
    expect(t.REFUNDS).toEqual([["A-1", 39]]);
    expect(lm.requests).toHaveLength(2);
    expect(lm.requests.map((r) => r.messages[1]?.content)).toEqual(["<message>\nRefund A-1\n</message>", "<message>\nRefund A-1\n</message>"]);
  });
});

describe("a waiting event's approvals are the reader's copy", () => {
  /** A desk whose model asks for a refund and a note at once (both wait for a person), then says it is done. */
  const twoAtOnce = () => twoAsks("both done");

  /** Answers a wait as a work list: each approval taken off the event's list, then approved by its id. */
  async function workThrough(s: AsyncIterable<TurnEvent> & { approve(o: { id: string }): Promise<void>; abort(): void }): Promise<string[]> {
    const outcomes: string[] = [];
    for await (const e of s) {
      if (e.type !== "waiting") continue;
      for (let a = e.approvals.shift(); a; a = e.approvals.shift()) {
        outcomes.push(
          await s.approve({ id: a.id }).then(
            () => `approved ${a!.name}`,
            (err: { code?: string }) => (s.abort(), `refused ${a!.name}: ${err.code}`),
          ),
        );
      }
    }
    return outcomes;
  }

  it("a plain stream: approvals shifted off it are still answered by id; each tool runs once", async () => {
    const { fn, lm, t } = twoAtOnce();
    const s = fn.stream("Refund A-1 and note it", { lm, approve: "changes" });
    expect(await workThrough(s)).toEqual(["approved refund", "approved note"]);
    expect(await s).toBe("both done");
    expect(t.REFUNDS).toEqual([["A-1", 39]]);
    expect(t.NOTES).toEqual(["refunded"]);
  });

  it("a conversation's stream: the same", async () => {
    const { fn, lm, t } = twoAtOnce();
    const s = fn.conversation("c", { store: memoryStore(), lm, approve: "changes" }).stream("Refund A-1 and note it");
    expect(await workThrough(s)).toEqual(["approved refund", "approved note"]);
    expect(await s).toBe("both done");
    expect(t.REFUNDS).toEqual([["A-1", 39]]);
    expect(t.NOTES).toEqual(["refunded"]);
  });
});
