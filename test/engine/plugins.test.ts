import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  ai,
  ApprovalError,
  configure,
  FunctaiError,
  resetConfiguration,
  withSettings,
  type Approval,
  type Plugin,
  type PluginToolCall,
} from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { deskTools, echoLast, toolResults } from "./fixtures.js";

afterEach(() => resetConfiguration());

const plugin = (name: string, hooks: Plugin["hooks"]): Plugin => ({ name, version: "1.0.0", hooks });

function setup() {
  const t = deskTools();
  const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [t.refund] });
  const lm = scripted([{ toolCalls: [{ name: "refund", input: { order_id: "A-1", amount: 50 } }] }, echoLast]);
  return { desk, t, lm };
}

describe("plugins: toolCall", () => {
  it("changes the input; the built-in approval, after it, sees the changed input", async () => {
    const { desk, t, lm } = setup();
    const seen: PluginToolCall[] = [];
    const cap = plugin("cap", { toolCall: (c) => (seen.push(c), { input: { ...(c.input as object), amount: 20 } }) });
    const asked: unknown[] = [];
    const reply = await desk("go", { lm, plugins: [cap], approve: (a) => (asked.push(a.input), true) });
    expect(seen).toEqual([
      {
        name: "refund",
        input: { order_id: "A-1", amount: 50 },
        effects: "changes",
        path: "desk/refund",
        site: "desk#1",
        invocation: 1,
        turn: expect.any(String),
        id: "call_1_1",
        attempt: 1,
        kind: "tool",
      },
    ]);
    expect(asked).toEqual([{ order_id: "A-1", amount: 20 }]);
    expect(t.REFUNDS).toEqual([["A-1", 20]]);
    expect(reply).toBe("saw: refunded 20 for A-1");
  });

  it("blocks with a reason the model sees; the tool does not run and nobody is asked", async () => {
    const { desk, t, lm } = setup();
    const asked: Approval[] = [];
    const guard = plugin("guard", { toolCall: () => ({ block: "refunds are closed on Sundays" }) });
    const reply = await desk("go", { lm, plugins: [guard], approve: (a) => (asked.push(a), true) });
    expect(reply).toBe("saw: The call was blocked (guard). Reason: refunds are closed on Sundays");
    expect(t.REFUNDS).toEqual([]);
    expect(asked).toEqual([]);
  });

  it("asks a person a question of its own, answered by an approve function", async () => {
    const { desk, t, lm } = setup();
    const vip = plugin("vip", {
      toolCall: (c) => ((c.input as { amount: number }).amount > 30 ? { ask: "Over 30: is this customer a VIP?" } : undefined),
    });
    const asked: Approval[] = [];
    const reply = await desk("go", { lm, plugins: [vip], approve: (a) => (asked.push(a), a.plugin === "vip" ? "not a VIP" : true) });
    expect(asked).toEqual([
      {
        id: "desk#1:1:vip",
        name: "refund",
        input: { order_id: "A-1", amount: 50 },
        effects: "changes",
        path: "desk/refund",
        invocation: 1,
        site: "desk#1",
        plugin: "vip",
        question: "Over 30: is this customer a VIP?",
      },
    ]);
    expect(reply).toBe("saw: The person did not allow this call. Reason: not a VIP");
    expect(t.REFUNDS).toEqual([]);
  });

  it("a plugin's yes is followed by the built-in approval's own question", async () => {
    const { desk, t, lm } = setup();
    const vip = plugin("vip", { toolCall: () => ({ ask: "VIP?" }) });
    const asked: (string | undefined)[] = [];
    await desk("go", { lm, plugins: [vip], approve: (a) => (asked.push(a.plugin), true) });
    expect(asked).toEqual(["vip", undefined]);
    expect(t.REFUNDS).toEqual([["A-1", 50]]);
  });

  it("asks on a stream: answered with s.approve({ id })", async () => {
    const { desk, t, lm } = setup();
    const vip = plugin("vip", { toolCall: () => ({ ask: "VIP?" }) });
    const s = desk.stream("go", { lm, plugins: [vip], approve: null });
    const approvals: Approval[] = [];
    for await (const e of s) {
      if (e.type === "approval") {
        approvals.push(e.approval);
        void s.approve({ id: e.approval.id, by: "maria" });
      }
    }
    expect(approvals.map((a) => [a.id, a.plugin, a.question])).toEqual([["desk#1:1:vip", "vip", "VIP?"]]);
    expect(await s).toBe("saw: refunded 50 for A-1");
    expect(t.REFUNDS).toEqual([["A-1", 50]]);
  });

  it("a plugin's question in a plain call with nobody to ask: ApprovalError before the tool runs", async () => {
    const { desk, t, lm } = setup();
    const vip = plugin("vip", { toolCall: () => ({ ask: "VIP?" }) });
    await expect(desk("go", { lm, plugins: [vip] })).rejects.toBeInstanceOf(ApprovalError);
    expect(t.REFUNDS).toEqual([]);
    expect(lm.requests).toHaveLength(1);
  });
});

describe("plugins: toolResult", () => {
  it("replaces the output the model sees", async () => {
    const { desk, t, lm } = setup();
    const redact = plugin("redact", { toolResult: (r) => ({ output: String(r.output).replace("A-1", "[order]") }) });
    expect(await desk("go", { lm, plugins: [redact] })).toBe("saw: refunded 50 for [order]");
    expect(t.REFUNDS).toEqual([["A-1", 50]]);
  });
});

describe("plugin order", () => {
  it("configure first … call last, the built-in approval after them all", async () => {
    const log: string[] = [];
    const p = (name: string) => plugin(name, { toolCall: () => void log.push(name) });
    const t = deskTools();
    const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [t.refund], plugins: [p("spec")] });
    const lm = scripted([{ toolCalls: [{ name: "refund", input: { order_id: "A-1", amount: 1 } }] }, "ok"]);
    configure({ plugins: [p("configure")] });
    await withSettings({ plugins: [p("withSettings")] }, () =>
      desk.using({ plugins: [p("using")] })("go", { lm, plugins: [p("call")], approve: () => (log.push("approve"), true) }),
    );
    expect(log).toEqual(["configure", "withSettings", "spec", "using", "call", "approve"]);
  });

  // Before its fix: configure({ plugins }) twice with one plugin (a module loaded twice, a setup run again) ran its
  // hooks twice a call, as did the same plugin given again in a later layer.
  it("a plugin given in more than one layer, or configured twice, runs once, where it was first given", async () => {
    const log: string[] = [];
    const p = (name: string) => plugin(name, { toolCall: () => void log.push(name) });
    const shared = p("shared");
    const own = p("own");
    const t = deskTools();
    const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [t.refund], plugins: [own, shared] });
    const lm = scripted([{ toolCalls: [{ name: "refund", input: { order_id: "A-1", amount: 1 } }] }, "ok"]);
    configure({ plugins: [shared] });
    configure({ plugins: [shared] });
    await withSettings({ plugins: [shared, own] }, () => desk("go", { lm, plugins: [shared], approve: () => (log.push("approve"), true) }));
    expect(log).toEqual(["shared", "own", "approve"]);
  });
});

describe("a throwing hook", () => {
  it("toolCall: the call fails with plugin-failed and the tool does not run", async () => {
    const { desk, t, lm } = setup();
    const bad = plugin("bad", {
      toolCall: () => {
        throw new Error("boom");
      },
    });
    const err = await desk("go", { lm, plugins: [bad] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FunctaiError);
    expect((err as FunctaiError).code).toBe("plugin-failed");
    expect((err as Error).message).toContain("bad");
    expect(t.REFUNDS).toEqual([]);
    expect(lm.requests).toHaveLength(1);
  });

  it("toolResult: the call fails with plugin-failed (not reported to the model as the tool's error)", async () => {
    const { desk, lm } = setup();
    const bad = plugin("bad", {
      toolResult: () => {
        throw new Error("boom");
      },
    });
    const err = await desk("go", { lm, plugins: [bad] }).catch((e: unknown) => e);
    expect((err as FunctaiError).code).toBe("plugin-failed");
    expect(lm.requests).toHaveLength(1);
    expect(toolResults(lm.requests[1])).toEqual([]);
  });
});

describe("failures of plugins and approve functions at depth", () => {
  it("a throwing hook inside an AI function used as a tool fails the whole call (not reported as the tool's error)", async () => {
    const t = deskTools();
    const bad = plugin("bad", {
      toolCall: () => {
        throw new Error("boom");
      },
    });
    const answer = ai("answer", { description: "a", input: { q: z.string() }, tools: [t.refund], plugins: [bad] });
    const support = ai("support", { description: "s", input: { q: z.string() }, tools: [answer] });
    const lm = scripted([
      { toolCalls: [{ name: "answer", input: { q: "x" } }] },
      { toolCalls: [{ name: "refund", input: { order_id: "A-1", amount: 1 } }] },
      "never",
      "never",
    ]);
    const err = await support("go", { lm, approve: null }).catch((e: unknown) => e);
    expect((err as FunctaiError).code).toBe("plugin-failed");
    expect(lm.requests).toHaveLength(2);
    expect(t.REFUNDS).toEqual([]);
  });

  it("a throwing approve function fails the call with plugin-failed before the tool runs", async () => {
    const { desk, t, lm } = setup();
    const err = await desk("go", {
      lm,
      approve: () => {
        throw new Error("directory down");
      },
    }).catch((e: unknown) => e);
    expect((err as FunctaiError).code).toBe("plugin-failed");
    expect((err as Error).message).toContain("directory down");
    expect(t.REFUNDS).toEqual([]);
  });

  it("an approve function answering neither true, false nor a string fails the call (plugin-failed): closed, and said", async () => {
    const { desk, t, lm } = setup();
    await expect(desk("go", { lm, approve: () => undefined as never })).rejects.toMatchObject({ code: "plugin-failed", message: /gave undefined/ });
    expect(t.REFUNDS).toEqual([]);
  });
});

describe("toolResult sees errors too", () => {
  it("a failed tool's error is shown to the hook; it stays an error for the model", async () => {
    const { tool } = await import("../../src/index.js");
    const broken = tool("broken", { description: "d", input: {}, effects: "reads" }, () => {
      throw new Error("disk full");
    });
    const fn = ai("f", { description: "d", input: { q: z.string() }, tools: [broken] });
    const seen: unknown[] = [];
    const audit = plugin("audit", { toolResult: (r) => (seen.push([r.name, r.output, r.error]), { output: "hidden" }) });
    const lm = scripted([{ toolCalls: [{ name: "broken", input: {} }] }, echoLast]);
    expect(await fn("x", { lm, plugins: [audit] })).toBe("saw: Error: disk full");
    expect(seen).toEqual([["broken", undefined, "disk full"]]);
  });
});

describe("a changed input is checked again", () => {
  it("a plugin's input the tool does not take fails the call (plugin-failed) before the tool runs", async () => {
    const { desk, t, lm } = setup();
    const bad = plugin("bad", { toolCall: () => ({ input: { order_id: "A-1", amount: "all of it" } }) });
    const err = await desk("go", { lm, plugins: [bad], approve: null }).catch((e: unknown) => e);
    expect((err as FunctaiError).code).toBe("plugin-failed");
    expect((err as Error).message).toContain("desk/refund");
    expect(t.REFUNDS).toEqual([]);
  });
});

describe("plugins: a turn hook that throws", () => {
  it("in turnStart: the plugins already started are ended (their spans closed), then the call fails with plugin-failed", async () => {
    const { desk, t, lm } = setup();
    const ends: string[] = [];
    const first = plugin("first", { turnStart: () => undefined, turnEnd: (end) => void ends.push(`first ${end.state}`) });
    const broken = plugin("broken", {
      turnStart: () => {
        throw new Error("no tracer");
      },
      turnEnd: (end) => void ends.push(`broken ${end.state}`),
    });
    await expect(desk("go", { lm, plugins: [first, broken] })).rejects.toMatchObject({ code: "plugin-failed" });
    expect(ends).toEqual(["first failed"]); // never the one that did not start
    expect(t.REFUNDS).toEqual([]);
    expect(lm.requests).toHaveLength(0);
  });

  it("in turnEnd: every other plugin's turnEnd still runs, then the call fails with plugin-failed", async () => {
    const { desk, lm } = setup();
    const ends: string[] = [];
    const broken = plugin("broken", {
      turnEnd: () => {
        throw new Error("exporter down");
      },
    });
    const last = plugin("last", { turnEnd: (end) => void ends.push(`last ${end.state}`) });
    await expect(desk("go", { lm, plugins: [broken, last], approve: () => true })).rejects.toMatchObject({ code: "plugin-failed" });
    expect(ends).toEqual(["last done"]);
  });
});
