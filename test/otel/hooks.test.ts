/**
 * The plugin contract's watching hooks, which otel() is built on: each run
 * of a turn starts and ends once, with how it ended; model calls made (not
 * replayed) are shown before and after; what a plugin keeps reaches the
 * turn's later runs; a hook that throws fails the call.
 */
import { describe, expect, it } from "vitest";
import { memoryStore, Waiting, type Plugin, type PluginHooks } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { deskLM, traceDesk } from "./fixtures/desk.js";

function recorder() {
  const seen: string[] = [];
  const hooks: PluginHooks = {
    turnStart: (t) => {
      seen.push(`start ${t.name} attempt=${t.attempt} resumed=${t.resumed} kept=${JSON.stringify(t.kept)}`);
      t.keep({ run: t.kept.length + 1 });
    },
    turnEnd: (e) => void seen.push(`end ${e.state}${e.state === "waiting" ? ` ${e.approvals.map((a) => a.name).join()}` : ""}${e.state === "failed" ? ` ${e.code}` : ""}`),
    modelRequest: (r) => void seen.push(`request ${r.site} step ${r.step} ${r.provider}/${r.model}`),
    modelResponse: (r) => void seen.push(`response ${r.site} step ${r.step} ${r.response ? r.response.finishReason : `error`}`),
    toolResult: (r) => void seen.push(`tool ${r.name} approved=${JSON.stringify(r.approved)}`),
  };
  return { seen, plugin: { name: "rec", version: "1", hooks } satisfies Plugin };
}

describe("plugin hooks: turnStart, turnEnd, modelRequest, modelResponse", () => {
  it("a conversation turn that waits and goes on: two runs, the second sees what the first kept and asks the model only anew", async () => {
    const { seen, plugin } = recorder();
    const store = memoryStore();
    const refunds: string[] = [];
    const desk = traceDesk(refunds);
    await expect(desk.conversation("sam", { store, approve: "changes", lm: deskLM(), plugins: [plugin] }).send("Refund A-1042.")).rejects.toBeInstanceOf(Waiting);
    const turn = (await desk.conversation("sam", { store, lm: deskLM(), plugins: [plugin] }).turns()).at(-1)!;
    await turn.approve({ by: "maria" });
    expect(seen).toEqual([
      "start desk attempt=1 resumed=false kept=[]",
      "request desk#1 step 1 scripted/scripted",
      "response desk#1 step 1 tool_calls",
      "end waiting refund",
      'start desk attempt=2 resumed=true kept=[{"run":1}]',
      'tool refund approved={"by":"maria"}',
      "request desk#1 step 2 scripted/scripted",
      "response desk#1 step 2 stop",
      "end done",
    ]);
    expect(refunds).toEqual(["A-1042"]);
  });

  it("a failing model call and a failing turn are shown as such", async () => {
    const { seen, plugin } = recorder();
    const desk = traceDesk([]);
    await expect(desk("Refund A-1042.", { lm: scripted([]), plugins: [plugin] })).rejects.toMatchObject({ code: "lm-script-ended" });
    expect(seen).toEqual(["start desk attempt=1 resumed=false kept=[]", "request desk#1 step 1 scripted/scripted", "response desk#1 step 1 error", "end failed lm-script-ended"]);
  });

  it("a hook that throws fails the call with plugin-failed; a plugin with a hook of no known name is refused", async () => {
    const broken: Plugin = { name: "broken", version: "1", hooks: { modelRequest: () => { throw new Error("boom"); } } };
    const refunds: string[] = [];
    await expect(traceDesk(refunds)("Refund A-1042.", { lm: deskLM(), plugins: [broken] }))
      .rejects.toMatchObject({ code: "plugin-failed", message: expect.stringContaining("plugin broken failed in modelRequest: boom") });
    expect(refunds).toEqual([]);
    expect(() => traceDesk([]).using({ plugins: [{ name: "x", version: "1", hooks: { turnBegin: () => {} } as PluginHooks }] }))
      .toThrow(expect.objectContaining({ code: "plugin-invalid" }));
  });
});
