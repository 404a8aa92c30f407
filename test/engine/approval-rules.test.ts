import { beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, ApprovalError, program, refusalText, resetConfiguration, type Approval, type ApproveSetting, type ToolLike } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { deskTools, echoLast, toolResults } from "./fixtures.js";

beforeEach(() => resetConfiguration());

/** One reply calling all three desk tools, then an echo: which calls does `rule` send to a person? */
async function askedUnder(rule: ApproveSetting) {
  const t = deskTools();
  const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [t.findOrder, t.refund, t.note] });
  const lm = scripted([
    { toolCalls: [{ name: "find_order", input: { order_id: "A-1" } }, { name: "refund", input: { order_id: "A-1", amount: 5 } }, { name: "note", input: { text: "hi" } }] },
    "done",
  ]);
  const s = desk.stream("go", { lm, approve: rule });
  const asked: string[] = [];
  for await (const e of s) {
    if (e.type === "approval") {
      asked.push(e.approval.name);
      void s.deny("no", { id: e.approval.id });
    }
  }
  expect(await s).toBe("done");
  return { asked, t, lm };
}

describe("approval rules through real calls", () => {
  it('"changes" asks about changing and undeclared tools, never readers', async () => {
    const { asked, t } = await askedUnder("changes");
    expect(asked).toEqual(["refund", "note"]);
    expect(t.LOOKUPS).toEqual(["A-1"]);
    expect(t.REFUNDS).toEqual([]);
  });

  it('"all" asks about every tool', async () => {
    expect((await askedUnder("all")).asked).toEqual(["find_order", "refund", "note"]);
  });

  it("a list of names asks about those tools only, whatever their effects", async () => {
    const { asked, t } = await askedUnder(["find_order"]);
    expect(asked).toEqual(["find_order"]);
    expect(t.REFUNDS).toEqual([["A-1", 5]]);
    expect(t.NOTES).toEqual(["hi"]);
  });

  it("a full path and a path ending match; a partial segment does not", async () => {
    expect((await askedUnder(["desk/refund"])).asked).toEqual(["refund"]);
    expect((await askedUnder(["desk/note", "other/refund"])).asked).toEqual(["note"]);
    expect((await askedUnder(["esk/refund"])).asked).toEqual([]);
  });

  it("null asks nothing: every tool runs", async () => {
    const { asked, t } = await askedUnder(null);
    expect(asked).toEqual([]);
    expect(t.REFUNDS).toEqual([["A-1", 5]]);
  });

  it("a function is asked about changing and undeclared calls, with the whole Approval", async () => {
    const t = deskTools();
    const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [t.findOrder, t.refund, t.note] });
    const asked: Approval[] = [];
    const lm = scripted([
      { toolCalls: [{ name: "find_order", input: { order_id: "A-1" } }, { name: "refund", input: { order_id: "A-1", amount: 5 } }, { name: "note", input: { text: "hi" } }] },
      "done",
    ]);
    await desk("go", { lm, approve: (a) => (asked.push(a), a.name === "note") });
    expect(asked).toEqual([
      { id: "desk#1:2", name: "refund", input: { order_id: "A-1", amount: 5 }, effects: "changes", path: "desk/refund", invocation: 2, site: "desk#1" },
      { id: "desk#1:3", name: "note", input: { text: "hi" }, effects: null, path: "desk/note", invocation: 3, site: "desk#1" },
    ]);
    expect(t.NOTES).toEqual(["hi"]);
    expect(t.REFUNDS).toEqual([]);
    expect(toolResults(lm.requests[1])).toEqual([
      ["find_order", JSON.stringify({ order_id: "A-1", item: "kettle", paid: 39 })],
      ["refund", "The person did not allow this call."],
      ["note", "noted"],
    ]);
  });
});

describe("the refusal text", () => {
  it("is exact, with the reason after it", async () => {
    expect(refusalText()).toBe("The person did not allow this call.");
    expect(refusalText("not today")).toBe("The person did not allow this call. Reason: not today");
    const t = deskTools();
    const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [t.refund] });
    const lm = scripted([{ toolCalls: [{ name: "refund", input: { order_id: "A-1", amount: 5 } }] }, echoLast]);
    expect(await desk("go", { lm, approve: () => "over the limit" })).toBe("saw: The person did not allow this call. Reason: over the limit");
  });
});

describe("ApprovalError in a plain call", () => {
  it("is thrown before any tool of the step runs and before any later model call", async () => {
    const t = deskTools();
    const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [t.findOrder, t.refund] });
    const lm = scripted([
      { toolCalls: [{ name: "find_order", input: { order_id: "A-1" } }, { name: "refund", input: { order_id: "A-1", amount: 5 } }] },
      "never asked",
    ]);
    const err = await desk("go", { lm, approve: "changes" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApprovalError);
    expect((err as ApprovalError).code).toBe("approval-required");
    expect((err as ApprovalError).path).toBe("desk/refund");
    expect(t.REFUNDS).toEqual([]);
    expect(t.LOOKUPS).toEqual([]); // the reader of the same step did not run either
    expect(lm.requests).toHaveLength(1);
  });
});

describe("approval paths, invocations and sites", () => {
  it("an AI function used as a tool: support/answer/refund, numbered within its calling call", async () => {
    const t = deskTools();
    const answer = ai("answer", { description: "Answer.", input: { question: z.string() }, tools: [t.findOrder, t.refund] });
    const support = ai("support", { description: "Support.", input: { message: z.string() }, tools: [t.findOrder, answer] });
    const lm = scripted([
      { toolCalls: [{ name: "find_order", input: { order_id: "A-1" } }] }, // support #1
      { toolCalls: [{ name: "answer", input: { question: "refund?" } }] }, // support #2
      { toolCalls: [{ name: "find_order", input: { order_id: "A-1" } }] }, // answer #1
      { toolCalls: [{ name: "refund", input: { order_id: "A-1", amount: 39 } }, { name: "refund", input: { order_id: "A-1", amount: 1 } }] }, // answer #2, #3
      "answered",
      echoLast,
    ]);
    const asked: Approval[] = [];
    const reply = await support("help", { lm, approve: (a) => (asked.push(a), a.name !== "refund" || (a.input as { amount: number }).amount === 39) });
    // `answer` itself changes things (it has refund), so it is asked about first, at support's level
    expect(asked.map((a) => [a.path, a.site, a.invocation, a.id])).toEqual([
      ["support/answer", "support#1", 2, "support#1:2"],
      ["support/answer/refund", "support#1/answer#2", 2, "support#1/answer#2:2"],
      ["support/answer/refund", "support#1/answer#2", 3, "support#1/answer#2:3"],
    ]);
    expect(t.REFUNDS).toEqual([["A-1", 39]]);
    expect(reply).toBe("saw: answered");
  });

  it("tools see their own invocation, path and site", async () => {
    const seen: unknown[] = [];
    const { tool } = await import("../../src/index.js");
    const probe = tool("probe", { description: "p", input: {}, effects: "reads" }, (_i, ctx) => (seen.push([ctx.invocation, ctx.path, ctx.site]), "ok"));
    const inner = ai("inner", { description: "i", input: { q: z.string() }, tools: [probe] });
    const outer = ai("outer", { description: "o", input: { q: z.string() }, tools: [probe, inner] });
    const lm = scripted([
      { toolCalls: [{ name: "probe", input: {} }, { name: "inner", input: { q: "x" } }] },
      { toolCalls: [{ name: "probe", input: {} }] },
      "inner done",
      { toolCalls: [{ name: "probe", input: {}, id: "call_1_1" }] }, // the provider's id repeats: not used
      "outer done",
    ]);
    expect(await outer("go", { lm, approve: null })).toBe("outer done");
    expect(seen).toContainEqual([1, "outer/probe", "outer#1"]);
    expect(seen).toContainEqual([1, "outer/inner/probe", "outer#1/inner#2"]);
    expect(seen).toContainEqual([3, "outer/probe", "outer#1"]);
    expect(seen).toHaveLength(3);
  });

  it("a program used as a tool changes things unless it says reads; its calls carry its place", async () => {
    const t = deskTools();
    const answer = ai("answer", { description: "Answer.", input: { question: z.string() }, tools: [t.refund] });
    const escalate = program("escalate", { description: "Escalate.", input: { question: z.string() } }, async ({ question }) => answer(question));
    const peek = program("peek", { description: "Peek.", input: { question: z.string() }, effects: "reads" }, async ({ question }) => answer(question));
    expect(escalate.toolEffects).toBeNull();
    expect(peek.toolEffects).toBe("reads");
    for (const [prog, expected] of [
      [escalate, [["desk/escalate", "desk#1", 1], ["desk/escalate/answer/refund", "desk#1/escalate#1/answer#1", 1]]],
      [peek, [["desk/peek/answer/refund", "desk#1/peek#1/answer#1", 1]]],
    ] as const) {
      const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [prog] });
      const lm = scripted([
        { toolCalls: [{ name: prog.name, input: { question: "q" } }] },
        { toolCalls: [{ name: "refund", input: { order_id: "A-1", amount: 2 } }] },
        "inner",
        "outer",
      ]);
      const asked: Approval[] = [];
      expect(await desk("go", { lm, approve: (a) => (asked.push(a), true) })).toBe("outer");
      expect(asked.map((a) => [a.path, a.site, a.invocation])).toEqual(expected);
    }
    expect(t.REFUNDS).toEqual([["A-1", 2], ["A-1", 2]]);
  });

  it("a program calling AI functions directly: each call is numbered by occurrence", async () => {
    const t = deskTools();
    const answer = ai("answer", { description: "Answer.", input: { question: z.string() }, tools: [t.refund] });
    const support = program("support", { description: "Route.", input: { message: z.string() } }, async ({ message }) => {
      const first = await answer(message);
      return `${first} / ${await answer(message)}`;
    });
    const lm = scripted(["one", { toolCalls: [{ name: "refund", input: { order_id: "B", amount: 3 } }] }, "two"]);
    const asked: Approval[] = [];
    expect(await support("m", { lm, approve: (a) => (asked.push(a), true) })).toBe("one / two");
    expect(asked.map((a) => [a.path, a.site, a.invocation, a.id])).toEqual([["support/answer/refund", "support#1/answer#2", 1, "support#1/answer#2:1"]]);
  });

  it("nested rules: a name, a full path and an ending all reach the innermost tool", async () => {
    for (const rule of [["refund"], ["support/answer/refund"], ["answer/refund"]]) {
      const t = deskTools();
      const answer = ai("answer", { description: "Answer.", input: { question: z.string() }, tools: [t.refund] });
      const support = program("support", { description: "Route.", input: { message: z.string() } }, async ({ message }) => answer(message));
      const lm = scripted([{ toolCalls: [{ name: "refund", input: { order_id: "B", amount: 3 } }] }, "never"]);
      const err = await support("m", { lm, approve: rule }).catch((e: unknown) => e);
      expect((err as ApprovalError).path, String(rule)).toBe("support/answer/refund");
      expect(t.REFUNDS).toEqual([]);
    }
  });
});

describe("effects derivation", () => {
  it("an AI function as a tool reads unless one of its tools changes things or says nothing", () => {
    const t = deskTools();
    const mk = (tools: readonly ToolLike[]) => ai("f", { description: "d", input: { q: z.string() }, tools }).toolEffects;
    expect(mk([])).toBe("reads");
    expect(mk([t.findOrder])).toBe("reads");
    expect(mk([t.findOrder, t.refund])).toBe("changes");
    expect(mk([t.findOrder, t.note])).toBe("changes");
    // nesting: reads all the way down stays reads
    const reader = ai("reader", { description: "d", input: { q: z.string() }, tools: [t.findOrder] });
    expect(mk([reader])).toBe("reads");
    const writer = ai("writer", { description: "d", input: { q: z.string() }, tools: [t.refund] });
    expect(mk([reader, writer])).toBe("changes");
  });

  it('under "changes", a reading AI function as a tool is not asked about; a changing one is', async () => {
    const t = deskTools();
    const reader = ai("reader", { description: "d", input: { q: z.string() }, tools: [t.findOrder] });
    const desk = ai("desk", { description: "d", input: { q: z.string() }, tools: [reader] });
    const lm = scripted([{ toolCalls: [{ name: "reader", input: { q: "x" } }] }, { toolCalls: [{ name: "find_order", input: { order_id: "Z" } }] }, "r", "d"]);
    expect(await desk("go", { lm, approve: "changes" })).toBe("d");
    expect(t.LOOKUPS).toEqual(["Z"]);
  });
});

describe("a plain tool whose body calls an AI function", () => {
  it("the inner call joins the turn under the tool's invocation, after an await too", async () => {
    const t = deskTools();
    const { tool } = await import("../../src/index.js");
    const answer = ai("answer", { description: "Answer.", input: { question: z.string() }, tools: [t.refund] });
    const helper = tool("helper", { description: "h", input: { q: z.string() }, effects: "reads" }, async ({ q }) => {
      await new Promise((r) => setTimeout(r, 1));
      return answer(q);
    });
    const desk = ai("desk", { description: "d", input: { q: z.string() }, tools: [t.findOrder, helper] });
    const lm = scripted([
      { toolCalls: [{ name: "find_order", input: { order_id: "A" } }, { name: "helper", input: { q: "refund" } }] },
      { toolCalls: [{ name: "refund", input: { order_id: "A", amount: 1 } }] },
      "inner",
      echoLast,
    ]);
    const asked: Approval[] = [];
    expect(await desk("go", { lm, approve: (a) => (asked.push(a), true) })).toBe("saw: inner");
    expect(asked.map((a) => [a.path, a.site, a.invocation])).toEqual([["desk/helper/answer/refund", "desk#1/helper#2/answer#1", 1]]);
    // and a rule reaches it in a plain call, before the refund runs
    const err = await desk("go", { lm: scripted([
      { toolCalls: [{ name: "helper", input: { q: "refund" } }] },
      { toolCalls: [{ name: "refund", input: { order_id: "A", amount: 1 } }] },
    ]), approve: ["helper/answer/refund"] }).catch((e: unknown) => e);
    expect((err as ApprovalError).path).toBe("desk/helper/answer/refund");
    expect(t.REFUNDS).toEqual([["A", 1]]);
  });
});
