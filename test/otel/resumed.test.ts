/**
 * A turn that waits ends its span with a wait event and keeps its trace
 * context in the conversation's records; approved in another process, the
 * run that goes on makes a new trace whose turn span links to the first.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import { otel } from "../../adapters/otel/index.js";
import { memoryStore, Waiting } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { bundled, removeBundles, runChild } from "../durable/fixtures/spawn.js";
import { deskLM, traceDesk } from "./fixtures/desk.js";
import { idOf, named, one, parentOf, tracing, type ChildSpan } from "./tracing.js";

afterAll(removeBundles);

describe("otel() across a wait", () => {
  it("a waiting turn approved in another process yields two traces, the second linked to the first", async () => {
    const dir = mkdtempSync(join(tmpdir(), "functai-otel-"));
    const t = tracing();
    const refunds: string[] = [];
    const chat = traceDesk(refunds).conversation("sam", { store: fsStore(dir), approve: "changes", lm: deskLM(), plugins: [otel({ tracer: t.tracer })] });
    await expect(chat.send("Refund A-1042.")).rejects.toBeInstanceOf(Waiting);
    const first = one(t.spans(), "invoke_agent desk");
    expect(first.attributes).toMatchObject({ "functai.turn.state": "waiting", "gen_ai.conversation.id": "sam", "functai.resumed": false });
    expect(first.events.map((e) => e.name)).toEqual(["functai.wait"]);
    expect(first.events[0]!.attributes).toMatchObject({ "functai.wait.approvals": ["desk/refund"] });
    expect(named(t.spans(), "execute_tool refund")).toEqual([]);
    // the trace context is kept in the turn's records (a kind other readers skip)
    const kept = readFileSync(join(dir, "conversations", "sam.jsonl"), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>).filter((r) => r.kind === "plugin");
    expect(kept).toMatchObject([{ plugin: "otel", data: { traceId: first.spanContext().traceId, spanId: idOf(first) } }]);

    const child = await runChild(await bundled(new URL("./fixtures/approve-child.ts", import.meta.url).pathname), [dir, "sam"]);
    expect(child.code, child.stderr).toBe(0);
    const out = JSON.parse(child.stdout.trim()) as { answer: string; refunds: string[]; spans: ChildSpan[] };
    expect(out.answer).toBe("Done: refunded 39 for A-1042");
    expect([...refunds, ...out.refunds]).toEqual(["A-1042"]);

    const second = out.spans.find((s) => s.name === "invoke_agent desk")!;
    expect(second.traceId).not.toBe(first.spanContext().traceId);
    expect(second.parent).toBeNull();
    expect(second.links).toEqual([{ traceId: first.spanContext().traceId, spanId: idOf(first) }]);
    expect(second.attributes).toMatchObject({ "functai.resumed": true, "functai.turn.state": "done" });
    const refund = out.spans.find((s) => s.name === "execute_tool refund")!;
    expect(refund.attributes).toMatchObject({ "functai.approval": "approved", "functai.approval.by": "maria", "functai.effects": "changes" });
    expect(refund.parent).toBe(second.spanId);
    // the reply recorded before the wait is not asked for again: one chat span here, for the answer
    expect(out.spans.filter((s) => s.name === "chat scripted").map((s) => s.attributes["functai.step"])).toEqual([2]);
  }, 60_000);

  it("a streamed turn answered in this process: one trace per run, the second linked to the first", async () => {
    const t = tracing();
    const refunds: string[] = [];
    const s = traceDesk(refunds).using({ approve: "changes", plugins: [otel({ tracer: t.tracer })] }).stream("Refund A-1042.", { lm: deskLM() });
    for await (const e of s) if (e.type === "approval") await s.approve({ by: "me" });
    expect(await s).toBe("Done: refunded 39 for A-1042");
    const [first, second] = named(t.spans(), "invoke_agent desk");
    expect(first!.attributes["functai.turn.state"]).toBe("waiting");
    expect(second!.links.map((l) => l.context.spanId)).toEqual([idOf(first!)]);
    expect(refunds).toEqual(["A-1042"]);
  });

  it("each run's span counts the tokens of the model calls it made, not the replies it replayed (summed, they are the turn's usage)", async () => {
    const t = tracing();
    const store = memoryStore();
    const plugins = [otel({ tracer: t.tracer })];
    const asks = { toolCalls: [{ name: "refund", input: { order_id: "A-1042", amount: 39 } }], usage: { inputTokens: 100, outputTokens: 10 } };
    const answers = { text: "Done: refunded 39 for A-1042", usage: { inputTokens: 7, outputTokens: 3 } };
    const desk = traceDesk([]);
    await expect(desk.conversation("sam", { store, approve: "changes", lm: scripted([asks]), plugins }).send("Refund A-1042.")).rejects.toBeInstanceOf(Waiting);
    const turn = (await desk.conversation("sam", { store, lm: scripted([answers]), plugins }).turns()).at(-1)!;
    expect(await turn.approve({ by: "maria" })).toBe("Done: refunded 39 for A-1042");

    const usage = (s: { attributes: Record<string, unknown> }) => [s.attributes["gen_ai.usage.input_tokens"], s.attributes["gen_ai.usage.output_tokens"]];
    const runs = named(t.spans(), "invoke_agent desk");
    expect(runs.map(usage)).toEqual([[100, 10], [7, 3]]);
    for (const run of runs) {
      const chats = named(t.spans(), "chat scripted").filter((s) => parentOf(s) === idOf(run));
      expect(chats.map(usage).reduce(([i, o], [ci, co]) => [Number(i) + Number(ci), Number(o) + Number(co)], [0, 0])).toEqual(usage(run));
    }
  });
});
