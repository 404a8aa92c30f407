import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, program, type LMRequest } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { deskTools, echoLast } from "../engine/fixtures.js";

/** Every tool call in a request is answered, by id, right there: no orphans. */
const orphans = (requests: readonly LMRequest[]) =>
  requests.flatMap((r) => {
    const asked = r.messages.flatMap((m) => (m.role === "assistant" ? (m.toolCalls ?? []).map((c) => c.id) : []));
    const answered = new Set(r.messages.flatMap((m) => (m.role === "tool" ? [m.toolCallId] : [])));
    return asked.filter((id) => !answered.has(id));
  });

describe("approvals deep in the call tree, on a stream", () => {
  it("an AI function used as a tool waits for support/answer/refund, then goes on by replay: nothing asked or run twice", async () => {
    const t = deskTools();
    const answer = ai("answer", { description: "Answer.", input: { question: z.string() }, tools: [t.findOrder, t.refund] });
    const support = ai("support", { description: "Support.", input: { message: z.string() }, tools: [t.findOrder, answer] });
    const lm = scripted([
      { toolCalls: [{ name: "find_order", input: { order_id: "A-1" } }, { name: "answer", input: { question: "refund A-1" } }] },
      { toolCalls: [{ name: "find_order", input: { order_id: "A-1" } }] },
      { toolCalls: [{ name: "refund", input: { order_id: "A-1", amount: 39 } }] },
      echoLast,
      echoLast,
    ]);
    // only the innermost refund asks (by its path ending); `answer` itself is let through
    const s = support.stream("help", { lm, approve: ["answer/refund"] });
    const approvals: { id: string; path: string; site: string; invocation: number }[] = [];
    for await (const e of s) {
      if (e.type === "approval") {
        approvals.push({ id: e.approval.id, path: e.approval.path, site: e.approval.site, invocation: e.approval.invocation });
        expect(e.path).toBe("support/answer");
        void s.approve({ id: e.approval.id });
      }
    }
    expect(approvals).toEqual([{ id: "support#1/answer#2:2", path: "support/answer/refund", site: "support#1/answer#2", invocation: 2 }]);
    expect(await s).toBe("saw: saw: refunded 39 for A-1");
    expect(t.REFUNDS).toEqual([["A-1", 39]]);
    expect(t.LOOKUPS).toEqual(["A-1", "A-1"]); // once at each level, not again after the wait
    expect(lm.requests).toHaveLength(5);
    expect(orphans(lm.requests)).toEqual([]);
  });

  it("a program calling AI functions directly: resumed after the answer, its first call is replayed", async () => {
    const t = deskTools();
    const answer = ai("answer", { description: "Answer.", input: { question: z.string() }, tools: [t.refund] });
    let bodyRuns = 0;
    const support = program("support", { description: "Route.", input: { message: z.string() } }, async ({ message }) => {
      bodyRuns += 1;
      const first = await answer(`look: ${message}`);
      const second = await answer(`refund: ${message}`);
      return `${first} | ${second}`;
    });
    const lm = scripted(["looked", { toolCalls: [{ name: "refund", input: { order_id: "A-1", amount: 5 } }] }, echoLast]);
    const s = support.stream("A-1", { lm, approve: "changes" });
    const sites: string[] = [];
    for await (const e of s) {
      if (e.type === "approval") {
        sites.push(e.approval.site);
        void s.deny("ask a manager", { id: e.approval.id });
      }
    }
    expect(sites).toEqual(["support#1/answer#2"]);
    expect(await s).toBe("looked | saw: The person did not allow this call. Reason: ask a manager");
    expect(bodyRuns).toBe(2); // run again after the answer…
    expect(lm.requests).toHaveLength(3); // …but no reply was paid for twice
    expect(t.REFUNDS).toEqual([]);
  });

  it("two AI functions called in one step both wait: both approvals pending at once; each tool and reader runs once", async () => {
    const t = deskTools();
    const answer = ai("answer", { description: "Answer.", input: { question: z.string() }, tools: [t.refund] });
    const support = ai("support", { description: "Support.", input: { message: z.string() }, tools: [t.findOrder, answer] });
    // each request is answered by what it asks about, whatever order the parallel calls reach the model in
    const lm = scripted(Array.from({ length: 6 }, () => (req: LMRequest) => {
      const user = req.messages.find((m) => m.role === "user")!.content;
      const last = req.messages.at(-1)!;
      if (user.includes("<message>")) return last.role === "user"
        ? { toolCalls: [{ name: "find_order", input: { order_id: "A-1" } }, { name: "answer", input: { question: "A-1" } }, { name: "answer", input: { question: "B-2" } }] }
        : "all done";
      const order = /(A-1|B-2)/.exec(user)![1]!;
      return last.role === "user" ? { toolCalls: [{ name: "refund", input: { order_id: order, amount: 1 } }] } : `refunded ${order}`;
    }));
    const s = support.stream("help", { lm, approve: ["refund"] });
    const waiting: string[][] = [];
    for await (const e of s) if (e.type === "waiting") {
      waiting.push(e.approvals.map((a) => a.site).sort());
      void s.approve();
    }
    expect(waiting).toEqual([["support#1/answer#2", "support#1/answer#3"]]);
    expect(await s).toBe("all done");
    expect(t.REFUNDS.map(([o]) => o).sort()).toEqual(["A-1", "B-2"]);
    expect(t.LOOKUPS).toEqual(["A-1"]);
    expect(lm.requests).toHaveLength(6); // support ×2, each answer ×2: none asked twice
    expect(orphans(lm.requests)).toEqual([]);
  });

  it("an async approve function is awaited", async () => {
    const t = deskTools();
    const desk = ai("desk", { description: "d", input: { q: z.string() }, tools: [t.refund] });
    const lm = scripted([{ toolCalls: [{ name: "refund", input: { order_id: "A-1", amount: 5 } }] }, echoLast]);
    const approve = async () => {
      await new Promise((r) => setTimeout(r, 5));
      return "checked later: no";
    };
    expect(await desk("q", { lm, approve })).toBe("saw: The person did not allow this call. Reason: checked later: no");
    expect(t.REFUNDS).toEqual([]);
  });
});

describe("approval and approved events come from the same call", () => {
  it("both carry the path of the call that made the tool call", async () => {
    const t = deskTools();
    const answer = ai("answer", { description: "Answer.", input: { question: z.string() }, tools: [t.refund] });
    const support = program("support", { description: "Route.", input: { message: z.string() } }, async ({ message }) => answer(message));
    const lm = scripted([{ toolCalls: [{ name: "refund", input: { order_id: "A-1", amount: 5 } }] }, echoLast]);
    const s = support.stream("A-1", { lm, approve: "changes" });
    const paths: [string, string][] = [];
    for await (const e of s) {
      if (e.type === "approval") void s.approve({ id: e.approval.id });
      if (e.type === "approval" || e.type === "approved") paths.push([e.type, e.path]);
    }
    expect(paths).toEqual([["approval", "support/answer"], ["approved", "support/answer"]]);
    expect(await s).toBe("saw: refunded 5 for A-1");
  });
});
