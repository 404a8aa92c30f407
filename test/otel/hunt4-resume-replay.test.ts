/**
 * Hunt: a turn that ran a reading tool, then waited for a person, answered in ANOTHER real process (a child
 * with its own tracer provider). The first run's span ends with the wait as an event; the second run's turn
 * span links to the first (its trace and span ids, read from the turn's records); the reading tool replayed
 * from the journal is not run again, and no execute_tool span claims it ran; a denial's reason, a person's
 * words, is in no span unless contents are asked for.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import { otel } from "../../adapters/otel/index.js";
import { Waiting } from "../../src/index.js";
import { bundled, removeBundles, runChild } from "../durable/fixtures/spawn.js";
import { twoToolDesk, twoToolLM } from "./fixtures/hunt4-two-tools.js";
import { everything, idOf, named, one, tracing, type ChildSpan } from "./tracing.js";

afterAll(removeBundles);

/** The first run, here: the lookup runs, the refund waits for a person. */
async function firstRun(content = false) {
  const dir = mkdtempSync(join(tmpdir(), "functai-hunt4-otel-"));
  const t = tracing();
  const ran: string[] = [];
  const chat = twoToolDesk(ran).conversation("sam", { store: fsStore(dir), approve: "changes", lm: twoToolLM(), plugins: [otel({ tracer: t.tracer, content })] });
  await expect(chat.send("Refund A-1042, it never came.")).rejects.toBeInstanceOf(Waiting);
  expect(ran).toEqual(["lookup A-1042"]);
  return { dir, t, first: one(t.spans(), "invoke_agent desk") };
}

async function child(dir: string, verdict: "approve" | "deny", content = false) {
  const end = await runChild(await bundled(new URL("./fixtures/hunt4-resume-child.ts", import.meta.url).pathname), [dir, "sam", verdict, ...(content ? ["content"] : [])]);
  expect(end.code, end.stderr).toBe(0);
  return JSON.parse(end.stdout.trim()) as { answer: string; ran: string[]; spans: ChildSpan[] };
}

describe("otel(): a turn that waited, answered in another process", () => {
  it("the wait ends the first span as an event; the resumed span links to it; the replayed lookup neither runs nor gets a span", async () => {
    const { dir, t, first } = await firstRun();
    expect(first.ended).toBe(true);
    expect(first.attributes["functai.turn.state"]).toBe("waiting");
    expect(first.events.map((e) => e.name)).toEqual(["functai.wait"]);
    expect(first.events[0]!.attributes).toMatchObject({ "functai.wait.approvals": ["desk/refund"] });
    expect(named(t.spans(), "execute_tool lookup_order")).toHaveLength(1);
    expect(named(t.spans(), "execute_tool refund")).toHaveLength(0);

    const out = await child(dir, "approve");
    expect(out.answer).toBe("Done: refunded 39 for A-1042");
    expect(out.ran).toEqual(["refund A-1042"]); // the lookup was replayed from the journal, not run
    expect(out.spans.every((s) => s.ended)).toBe(true);
    const second = out.spans.find((s) => s.name === "invoke_agent desk")!;
    expect(second.links).toEqual([{ traceId: first.spanContext().traceId, spanId: idOf(first) }]);
    expect(second.attributes).toMatchObject({ "functai.resumed": true, "functai.turn.state": "done", "functai.attempt": 2 });
    // no span in the second process says the lookup ran there
    expect(out.spans.filter((s) => s.name === "execute_tool lookup_order")).toEqual([]);
    expect(out.spans.filter((s) => s.name.startsWith("execute_tool")).map((s) => [s.name, s.attributes["functai.approval"], s.parent])).toEqual([["execute_tool refund", "approved", second.spanId]]);
    // only the reply not recorded before the wait is asked for: step 3; the turn span counts that call's tokens only
    expect(out.spans.filter((s) => s.name === "chat scripted").map((s) => s.attributes["functai.step"])).toEqual([3]);
    expect(second.attributes["gen_ai.usage.input_tokens"]).toBe(33);
  }, 60_000);

  it("a denial in another process: its reason is in no span without content: true; with it, the model's input shows it", async () => {
    const quiet = await firstRun();
    const out = await child(quiet.dir, "deny");
    expect(out.ran).toEqual([]);
    expect(out.answer).toMatch(/^Done: The person did not allow this call\. Reason: the customer said PARCEL-SECRET-77 arrived/);
    const text = JSON.stringify(out.spans);
    for (const secret of ["PARCEL-SECRET-77", "never came", "did not allow", "Done:"]) expect(text).not.toContain(secret);
    expect(everything(quiet.t.spans())).not.toContain("never came");
    const second = out.spans.find((s) => s.name === "invoke_agent desk")!;
    expect(second.attributes["functai.turn.state"]).toBe("done");
    expect(out.spans.every((s) => s.ended)).toBe(true);

    const loud = await firstRun(true);
    const shown = await child(loud.dir, "deny", true);
    expect(JSON.stringify(shown.spans)).toContain("PARCEL-SECRET-77");
    expect(everything(loud.t.spans())).toContain("never came");
  }, 60_000);
});
