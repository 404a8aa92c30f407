/**
 * Hunt: a traced turn whose process is SIGKILLed (a real child) after a reading tool ran, mid model call.
 * Another process finds the turn interrupted and resumes it: the resumed run's turn span links to the killed
 * run's span (its context, kept in the turn's records when the turn started); the lookup recorded as done is
 * replayed (not run, no execute_tool span); the reply recorded before the kill is not asked for again.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import { otel } from "../../adapters/otel/index.js";
import { Child } from "../durable/fixtures/hunt2-children.js";
import { bundled, removeBundles } from "../durable/fixtures/spawn.js";
import { twoToolDesk, twoToolLM } from "./fixtures/hunt4-two-tools.js";
import { named, one, tracing } from "./tracing.js";

afterAll(removeBundles);

/** The keys of the records read here (a tool record, the otel plugin's kept context). */
interface KeptRecord {
  kind: string;
  plugin?: string;
  name?: string;
  state?: string;
  data?: { traceId: string; spanId: string };
}

describe("otel(): a turn whose process was SIGKILLed, resumed elsewhere", () => {
  it("the resumed span links to the killed run's kept context; the replayed lookup neither runs nor gets a span", async () => {
    const dir = mkdtempSync(join(tmpdir(), "functai-hunt4-kill-"));
    const script = await bundled(new URL("./fixtures/hunt4-killed-child.ts", import.meta.url).pathname);
    const child = new Child(spawn(process.execPath, [script, dir], { stdio: ["ignore", "pipe", "pipe"] }));
    try {
      await child.line("ready");
    } finally {
      child.kill();
    }
    expect(await child.exited).toBe("SIGKILL");

    const records = readFileSync(join(dir, "conversations", "sam.jsonl"), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l) as KeptRecord);
    const kept = records.filter((r) => r.kind === "plugin" && r.plugin === "otel");
    expect(kept).toHaveLength(1);
    expect(records.filter((r) => r.kind === "tool").map((r) => [r.name, r.state])).toEqual([["lookup_order", "done"]]);

    const t = tracing();
    const ran: string[] = [];
    const chat = twoToolDesk(ran).conversation("sam", { store: fsStore(dir), approve: () => true, lm: twoToolLM(), plugins: [otel({ tracer: t.tracer })] });
    const turn = (await chat.turns()).at(-1)!;
    expect(turn.state).toBe("interrupted");
    expect(turn.unfinished).toEqual([]);
    expect(await turn.resume()).toBe("Done: refunded 39 for A-1042");
    expect(ran).toEqual(["refund A-1042"]);

    const resumed = one(t.spans(), "invoke_agent desk");
    expect(resumed.links.map((l) => ({ traceId: l.context.traceId, spanId: l.context.spanId }))).toEqual([{ traceId: kept[0]!.data!.traceId, spanId: kept[0]!.data!.spanId }]);
    expect(resumed.spanContext().traceId).not.toBe(kept[0]!.data!.traceId);
    expect(resumed.attributes).toMatchObject({ "functai.resumed": true, "functai.turn.state": "done" });
    expect(named(t.spans(), "execute_tool lookup_order")).toEqual([]);
    expect(named(t.spans(), "execute_tool refund")).toHaveLength(1);
    // step 1's reply was recorded before the kill: asked again only from step 2
    expect(named(t.spans(), "chat scripted").map((s) => s.attributes["functai.step"])).toEqual([2, 3]);
  }, 60_000);
});
