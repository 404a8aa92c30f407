/**
 * Hunt 151: tool calls that never reached their tool had no `execute_tool` span, while a call a person refused had
 * one: a call a plugin's `toolCall` blocked, a call of a tool that does not exist, and a call whose input the tool's
 * schema refused. The engine told no `toolResult` of them, so a trace showed a model reply that called something and
 * nothing of what became of the call. Now the run that first settles their step (sends the model its results: the run
 * that paid for the reply, or the one going on after a person answered another call of the step) tells `toolResult`
 * once, with `unrun: { code }`: a blocked call's span says `functai.approval:
 * "blocked"` and which plugin (no error: the model reads the block, as it reads a person's refusal); the others' spans
 * fail with the code as `error.type`. None has a child span (nothing ran), and what the model is sent is the same as
 * without the plugin. A run that replays the step tells nothing again.
 */
import { SpanStatusCode } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { fsStore } from "../../adapters/node-fs/index.js";
import { otel } from "../../adapters/otel/index.js";
import { ai, tool, type LMRequest, type Plugin, type PluginToolResult } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { tempDirs } from "../fixtures/temp-dirs.js";
import { idOf, named, one, parentOf, tracing } from "./tracing.js";

const recordsDir = tempDirs("functai-hunt151-otel-");

/** A desk with one changing refund, whose model makes the calls given, then answers once it read a tool message. */
function desk() {
  const refund = tool("refund", { description: "Refund.", input: { amount: z.number() }, effects: "changes" }, ({ amount }) => `sent ${amount}`);
  return ai("desk", { description: "Refunds.", input: { m: z.string() }, tools: [refund] });
}

const replies = (calls: { name: string; input: unknown }[]) => {
  const reply = (r: LMRequest) => (r.messages.some((m) => m.role === "tool") ? "Done." : { toolCalls: calls });
  return () => scripted([reply, reply]);
};

/** Blocks every refund over 100. */
const limits: Plugin = {
  name: "limits",
  version: "1",
  hooks: { toolCall: (call) => ((call.input as { amount: number }).amount > 100 ? { block: "over 100 goes to finance" } : undefined) },
};

/** Records what each toolResult hook is told (name, output, error, unrun). */
function watcher() {
  const told: { name: string; output: unknown; error: string | undefined; unrun: PluginToolResult["unrun"] }[] = [];
  const plugin: Plugin = {
    name: "watch",
    version: "1",
    hooks: { toolResult: ({ name, output, error, unrun }) => void told.push({ name, output, error, unrun }) },
  };
  return { told, plugin };
}

/** The requests the model is sent in a run of `calls` with these plugins (JSON, to compare two runs). */
async function sent(calls: { name: string; input: unknown }[], plugins: Plugin[]): Promise<string> {
  const lm = replies(calls)();
  expect(await desk()("Refund me.", { lm, plugins })).toBe("Done.");
  return JSON.stringify(lm.requests.map((r) => r.messages));
}

describe("otel(): a call a plugin's toolCall blocked", () => {
  it("has a span saying it was blocked and by which plugin, with no error and nothing under it", async () => {
    const t = tracing();
    const lm = replies([{ name: "refund", input: { amount: 500 } }])();
    expect(await desk()("Refund me.", { lm, plugins: [otel({ tracer: t.tracer, content: true }), limits] })).toBe("Done.");
    const spans = t.spans();
    const refund = one(spans, "execute_tool refund");
    expect([
      refund.attributes["functai.approval"],
      refund.attributes["functai.approval.by"],
      refund.attributes["functai.approval.reason"],
      refund.status.code,
      refund.attributes["error.type"],
    ]).toEqual(["blocked", "limits", "over 100 goes to finance", SpanStatusCode.UNSET, undefined]);
    expect(parentOf(refund)).toBe(idOf(one(spans, "invoke_agent desk")));
    expect(spans.filter((s) => parentOf(s) === idOf(refund))).toEqual([]);
  });

  it("toolResult is told once, with the block the model reads; the model is sent what it was sent without it", async () => {
    const calls = [{ name: "refund", input: { amount: 500 } }];
    const { told, plugin } = watcher();
    const withWatch = await sent(calls, [limits, plugin]);
    expect(told).toEqual([
      {
        name: "refund",
        output: expect.stringContaining("over 100 goes to finance"),
        error: undefined,
        unrun: { code: "tool-blocked", by: "limits", reason: "over 100 goes to finance" },
      },
    ]);
    expect(withWatch).toBe(await sent(calls, [limits]));
  });

  it("a toolResult hook that replaces the block fails the call: the model reads the block as it is", async () => {
    const replacing: Plugin = { name: "replacing", version: "1", hooks: { toolResult: () => ({ output: "refunded" }) } };
    const lm = replies([{ name: "refund", input: { amount: 500 } }])();
    await expect(desk()("Refund me.", { lm, plugins: [limits, replacing] })).rejects.toMatchObject({ code: "plugin-failed" });
  });
});

describe("otel(): a call that cannot run", () => {
  it("of a tool that does not exist: a failed span, error.type tool-unknown, nothing under it", async () => {
    const t = tracing();
    const lm = replies([{ name: "refnud", input: { amount: 5 } }])();
    expect(await desk()("Refund me.", { lm, plugins: [otel({ tracer: t.tracer })] })).toBe("Done.");
    const spans = t.spans();
    const call = one(spans, "execute_tool refnud");
    expect([call.attributes["error.type"], call.status.code, call.attributes["functai.effects"]]).toEqual([
      "tool-unknown",
      SpanStatusCode.ERROR,
      "undeclared",
    ]);
    expect(spans.filter((s) => parentOf(s) === idOf(call))).toEqual([]);
  });

  it("whose input the tool's schema refuses: a failed span, error.type input-invalid", async () => {
    const t = tracing();
    const lm = replies([{ name: "refund", input: { amount: "lots" } }])();
    expect(await desk()("Refund me.", { lm, plugins: [otel({ tracer: t.tracer, content: true })] })).toBe("Done.");
    const call = one(t.spans(), "execute_tool refund");
    expect([call.attributes["error.type"], call.status.code]).toEqual(["input-invalid", SpanStatusCode.ERROR]);
    expect(call.status.message).toMatch(/invalid input for refund/);
  });

  it("toolResult is told the error the model reads, once; the model is sent what it was sent without it", async () => {
    const calls = [
      { name: "refnud", input: { amount: 5 } },
      { name: "refund", input: { amount: "lots" } },
    ];
    const { told, plugin } = watcher();
    const withWatch = await sent(calls, [plugin]);
    expect(told.map((r) => [r.name, r.unrun?.code, typeof r.error])).toEqual([
      ["refnud", "tool-unknown", "string"],
      ["refund", "input-invalid", "string"],
    ]);
    expect(withWatch).toContain(JSON.stringify(told[0]!.error).slice(1, -1));
    expect(withWatch).toBe(await sent(calls, []));
  });
});

describe("otel(): a resumed run replays such calls without telling them again", () => {
  it("a blocked and an unknown call in the first step, a refund waiting in the second: the run after the answer has no span of them", async () => {
    const dir = recordsDir();
    const first = [
      { name: "refund", input: { amount: 500 } },
      { name: "refnud", input: { amount: 5 } },
    ];
    const reply = (r: LMRequest) => {
      const read = r.messages.filter((m) => m.role === "tool").length;
      return read === 0 ? { toolCalls: first } : read === 2 ? { toolCalls: [{ name: "refund", input: { amount: 5 } }] } : "Done.";
    };
    const lm = () => scripted([reply, reply, reply]);
    const t1 = tracing();
    const w1 = watcher();
    const plugins1 = [otel({ tracer: t1.tracer }), limits, w1.plugin];
    const chat = desk().conversation("sam", { store: fsStore(dir), lm: lm(), approve: "changes", plugins: plugins1 });
    await expect(chat.send("Refund me.")).rejects.toMatchObject({ code: "turn-waiting" });
    expect(named(t1.spans(), "execute_tool refund").map((s) => s.attributes["functai.approval"])).toEqual(["blocked"]);
    expect(one(t1.spans(), "execute_tool refnud").attributes["error.type"]).toBe("tool-unknown");
    expect(w1.told.map((r) => r.unrun?.code)).toEqual(["tool-blocked", "tool-unknown"]);

    const t2 = tracing();
    const w2 = watcher();
    const plugins2 = [otel({ tracer: t2.tracer }), limits, w2.plugin];
    const [turn] = await desk()
      .conversation("sam", { store: fsStore(dir), lm: lm(), plugins: plugins2 })
      .turns();
    expect(await turn!.approve({ by: "maria" })).toBe("Done.");
    const tools = t2.spans().filter((s) => s.name.startsWith("execute_tool"));
    expect(tools.map((s) => [s.name, s.attributes["functai.approval"]])).toEqual([["execute_tool refund", "approved"]]);
    expect(w2.told.map((r) => [r.name, r.unrun, r.output])).toEqual([["refund", undefined, "sent 5"]]);
  });

  it("a blocked and an unknown call beside a refund that waits, in one step: told by the run that settles it, once", async () => {
    const dir = recordsDir();
    const calls = [
      { name: "refund", input: { amount: 500 } },
      { name: "refnud", input: { amount: 5 } },
      { name: "refund", input: { amount: 5 } },
    ];
    const lm = replies(calls);
    const t1 = tracing();
    const w1 = watcher();
    const chat = desk().conversation("sam", {
      store: fsStore(dir),
      lm: lm(),
      approve: "changes",
      plugins: [otel({ tracer: t1.tracer }), limits, w1.plugin],
    });
    await expect(chat.send("Refund me.")).rejects.toMatchObject({ code: "turn-waiting" });
    // (nothing of the step was settled: the model was sent none of its results yet)
    expect(w1.told).toEqual([]);

    const t2 = tracing();
    const w2 = watcher();
    const [turn] = await desk()
      .conversation("sam", { store: fsStore(dir), lm: lm(), plugins: [otel({ tracer: t2.tracer }), limits, w2.plugin] })
      .turns();
    expect(await turn!.approve({ by: "maria" })).toBe("Done.");
    expect(w2.told.map((r) => [r.name, r.unrun?.code ?? null])).toEqual([
      ["refund", "tool-blocked"],
      ["refnud", "tool-unknown"],
      ["refund", null],
    ]);
    const tools = t2.spans().filter((s) => s.name.startsWith("execute_tool"));
    expect(tools.map((s) => [s.name, s.attributes["functai.approval"], s.attributes["error.type"]]).sort()).toEqual([
      ["execute_tool refnud", "not-asked", "tool-unknown"],
      ["execute_tool refund", "approved", undefined],
      ["execute_tool refund", "blocked", undefined],
    ]);
  });
});
