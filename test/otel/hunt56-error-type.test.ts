/**
 * Hunt 56: a failed span's `error.type` is functai's stable code for why, wherever one is known. Before:
 * - a tool whose body threw a coded error (an AI function it called ran out of steps, a provider's 429) said
 *   `tool_error`, the code lost (a plain thrown Error still says `tool_error`);
 * - a run stopped by its signal said `stopped`, and one that lost its lease `interrupted`: the turn's state,
 *   not the code its records keep (`turn-aborted`, `lease-lost`);
 * - a run that lost its lease, whose body threw its own error on seeing its signal abort, was told to turnEnd
 *   as `stopped` (a person's stop), though the turn is interrupted and goes on when resumed.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { otel } from "../../adapters/otel/index.js";
import { ai, memoryStore, program, tool, type Plugin, type PluginTurnEnd } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { stalledRenewals } from "../fixtures/another-host.js";
import { named, one, tracing } from "./tracing.js";
import { twoRuns } from "./two-runs.js";

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

describe("otel(): error.type is the functai code", () => {
  it("a tool whose body threw a coded error: its execute_tool span's error.type is that code", async () => {
    const t = tracing();
    const summarize = ai("summarize", { description: "Summarize.", input: { text: z.string() } });
    const notes = tool("notes", { description: "Notes.", input: {}, effects: "reads" }, async () => summarize("a long text", { lm: scripted([]) }));
    const desk = ai("desk", { description: "Desk.", input: { q: z.string() }, tools: [notes] });
    const lm = scripted([{ toolCalls: [{ name: "notes", input: {} }] }, "Could not read the notes."]);
    expect(await desk("Notes?", { lm, plugins: [otel({ tracer: t.tracer })] })).toBe("Could not read the notes.");
    const span = one(t.spans(), "execute_tool notes");
    expect(span.status.code).toBe(2);
    expect(span.attributes["error.type"]).toBe("lm-script-ended");
  });

  it("a run stopped by its signal: its turn span's error.type is turn-aborted", async () => {
    const t = tracing();
    const controller = new AbortController();
    const slow = tool("slow", { description: "Slow.", input: {}, effects: "reads" }, async () => {
      controller.abort();
      await sleep(20);
      return "done";
    });
    const desk = ai("desk", { description: "Desk.", input: { q: z.string() }, tools: [slow] });
    const lm = scripted([{ toolCalls: [{ name: "slow", input: {} }] }, "ok"]);
    await expect(desk("Go.", { lm, signal: controller.signal, plugins: [otel({ tracer: t.tracer })] })).rejects.toMatchObject({
      code: "turn-aborted",
    });
    const turn = one(t.spans(), "invoke_agent desk");
    expect(turn.attributes).toMatchObject({ "functai.turn.state": "stopped", "error.type": "turn-aborted" });
  });

  it("a run that lost its lease: its turn span's error.type is lease-lost", async () => {
    const t = await twoRuns({ latencyMs: 300 });
    const lost = named(t.spans(), "invoke_agent desk").find((s) => s.attributes["functai.attempt"] === 1)!;
    expect(lost.attributes).toMatchObject({ "functai.turn.state": "interrupted", "error.type": "lease-lost" });
  });

  it("a run that lost its lease, whose body threw its own error on seeing its signal abort: interrupted (lease-lost), not stopped", async () => {
    const t = tracing();
    const ends: PluginTurnEnd[] = [];
    const watch: Plugin = { name: "watch", version: "1", hooks: { turnEnd: (end) => void ends.push(end) } };
    // run A's lease renewals held up past the lease's time (a stalled disk, as in two-runs.ts): a second handle
    // finds the turn interrupted and claims it, and A's signal aborts with the loss
    const inner = memoryStore();
    const stalled = stalledRenewals(inner);
    let runs = 0;
    const waiter = program("waiter", { description: "Waits.", input: { q: z.string() } }, (_input, ctx) =>
      ++runs > 1
        ? "done"
        : new Promise<string>((_resolve, reject) => {
            ctx.signal.addEventListener("abort", () => reject(new Error("gave up waiting")), { once: true });
          }),
    );
    const lease = { renewMs: 50, ttlMs: 150 };
    const plugins = [watch, otel({ tracer: t.tracer })];
    const sent = waiter
      .conversation("lease", { store: stalled, lease, plugins })
      .send({ q: "go" })
      .catch((e: unknown) => e);
    const other = waiter.conversation("lease", { store: inner, lease, plugins });
    let turn = (await other.turns())[0];
    for (let i = 0; i < 100 && turn?.state !== "interrupted"; i++) {
      await sleep(20);
      turn = (await other.turns())[0];
    }
    expect(turn!.state).toBe("interrupted");
    expect(await turn!.resume()).toBe("done");
    expect(await sent).toMatchObject({ code: "lease-lost" });
    expect(ends.map((e) => [e.attempt, e.state, (e as { code?: string }).code])).toEqual([
      [2, "done", undefined],
      [1, "interrupted", "lease-lost"],
    ]);
    const first = named(t.spans(), "invoke_agent waiter").find((s) => s.attributes["functai.attempt"] === 1)!;
    expect(first.attributes).toMatchObject({ "functai.turn.state": "interrupted", "error.type": "lease-lost" });
  }, 20_000);
});
