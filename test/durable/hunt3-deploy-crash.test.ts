/**
 * Hunt: a deploy between a crash and its resume, and a deploy that shifts
 * which call sits at a recorded tool call's place. The old code runs in one
 * child process (killed with SIGKILL inside its refund: started, not done,
 * its side effect made), the new code in another, on the same file store.
 * What ran is counted from the tools' own effects file.
 */
import { afterAll, describe, expect, it } from "vitest";
import { call, deployWorld } from "./fixtures/hunt3-deploy.js";
import { start } from "./fixtures/hunt2-children.js";
import { removeBundles } from "./fixtures/spawn.js";

afterAll(removeBundles);

function world() {
  const { act, config, ran } = deployWorld();
  /** The old code sends (no approval rule); its refund(A-1) makes its effect and the process is killed there. */
  const crashInRefund = async (): Promise<void> => {
    const child = await start("hunt3-deploy-child.ts", config("v1", "send", { noRule: true, hang: true, replies: [call("refund", { order: "A-1" })] }));
    try {
      await child.line("started");
    } finally {
      child.kill();
    }
    await child.exited;
  };
  return { act, crashInRefund, ran };
}

const UNFINISHED = [{ invocation: 1, name: "refund", input: { order: "A-1" }, path: "desk/refund" }];

describe("a crash inside a changing tool, then a deploy, then the resume", () => {
  it("no change (control): interrupted with refund unfinished; the person's result is shown to the model; refund ran once", async () => {
    const w = world();
    await w.crashInRefund();
    expect(await w.act("v2-same", "inspect")).toMatchObject({ state: "interrupted", unfinished: UNFINISHED });
    expect(await w.act("v2-same", "resume", { replies: ["Refunded A-1."] })).toMatchObject({ error: "turn-unfinished", requests: 0 });
    expect(await w.act("v2-same", "resume", { results: { 1: "refunded" }, replies: ["Refunded A-1."] })).toEqual({ ok: "Refunded A-1.", requests: 1 });
    expect(w.ran()).toEqual(["refund:A-1"]);
  });

  // (a rename cannot be told from another tool: the call at the recorded place names another tool, so the turn stops
  // with turn-state, saying so, rather than hand issue_refund the result recorded for refund)
  it("the tool renamed: the new process still names refund unfinished (from the records); a result is recorded, and the renamed call at its place stops the turn (turn-state); nothing runs again", async () => {
    const w = world();
    await w.crashInRefund();
    expect(await w.act("v2-rename", "inspect")).toMatchObject({ state: "interrupted", unfinished: UNFINISHED });
    const refused = await w.act("v2-rename", "resume", { replies: [] });
    expect(refused).toMatchObject({ error: "turn-unfinished", requests: 0 });
    expect(refused.message).toContain("refund (invocation 1)");
    const out = await w.act("v2-rename", "resume", { results: { 1: "refunded" }, replies: [call("issue_refund", { order: "A-1" }), "Refunded A-1."] });
    expect(out).toMatchObject({ error: "turn-state", requests: 1 });
    expect(out.message).toContain('records say "refund" was called here');
    expect(w.ran()).toEqual(["refund:A-1"]);
  });

  it("a refinement the JSON schema does not show, then a rerun: the recorded call no longer parses, the model is told it did not run; nothing runs", async () => {
    const w = world();
    await w.crashInRefund();
    const out = await w.act("v2-refine", "resume", { rerun: [1], replies: ["That order cannot be refunded."] });
    expect(out).toEqual({ ok: "That order cannot be refunded.", requests: 1 });
    expect(w.ran()).toEqual(["refund:A-1"]);
  });

  // FIXED (it was a violation): the person said the refund ran ({ 1: "refunded" }). The new code's first request differs (its
  // description changed), so it is sent anew, and the new reply calls lookup(A-1) first: lookup now sits at
  // invocation 1 and is handed the result the person gave for refund, without running. The model, never told that
  // the refund ran, calls refund(A-1) at invocation 2, which nothing has recorded: it runs, a second refund. A
  // result recorded for refund(A-1) should never answer another call (the model should see refund's result, or the
  // turn stop with a clear code), and refund(A-1) should not run twice.
  it("a description changed, the new reply calls lookup first: the person's result is not handed to lookup, and refund does not run twice", async () => {
    const w = world();
    await w.crashInRefund();
    const out = await w.act("v2-description", "resume", {
      results: { 1: "refunded" },
      replies: [call("lookup", { order: "A-1" }), call("refund", { order: "A-1" }, "refund-2"), "Refunded A-1."],
    });
    expect(w.ran().filter((r) => r.startsWith("refund"))).toEqual(["refund:A-1"]);
    expect(out).not.toEqual({ ok: "Refunded A-1.", requests: 3 });
  });
});

describe("a deploy that shifts which call sits at a recorded call's place (no crash)", () => {
  // FIXED (it was a violation): the old code ran refund(A-1) (approved, done, invocation 1) and waits for a yes to notify(A-1)
  // (invocation 2). The new code's request differs, the new reply calls lookup(A-1), then refund(A-1). lookup, at
  // invocation 1, is answered with refund's recorded output without running; refund, at invocation 2, takes the
  // yes maria gave to notify (the same input, the only thing checked) and runs again: refund(A-1) runs twice, the
  // second time on a yes given to another tool. Recorded results and answers should be taken only by the call they
  // were recorded for (its name, at least), else the call is asked about again.
  it("refund runs once: a yes for notify never runs refund, and refund's result never answers lookup", async () => {
    const w = world();
    expect(await w.act("v1", "send", { replies: [call("refund", { order: "A-1" })] })).toMatchObject({ waiting: [{ name: "refund", invocation: 1 }] });
    expect(await w.act("v1", "approve", { replies: [call("notify", { order: "A-1" })] })).toEqual({
      waiting: [{ name: "notify", input: { order: "A-1" }, invocation: 2 }],
      requests: 1,
    });
    expect(w.ran()).toEqual(["refund:A-1"]);
    await w.act("v2-description", "approve", {
      replies: [call("lookup", { order: "A-1" }), call("refund", { order: "A-1" }, "refund-2"), "Refunded and told."],
    });
    expect(w.ran().filter((r) => r.startsWith("refund"))).toEqual(["refund:A-1"]);
  });

  // FIXED (it was a violation): the old code ran lookup(A-1) (reads, done, invocation 1), then waits for a yes to refund(A-1)
  // (invocation 2). The new code's request differs and the new reply calls refund(A-1) at once (invocation 1): it is
  // answered with lookup's recorded output, "lookup A-1: ok", as if it had run. The refund maria approved never runs,
  // the model is told it did, and the turn ends done. The model should never get one tool's recorded result as
  // another's.
  it("refund's call is never answered with lookup's recorded result: the approved refund runs (or the person is asked again)", async () => {
    const w = world();
    expect(await w.act("v1", "send", { replies: [call("lookup", { order: "A-1" }), call("refund", { order: "A-1" })] })).toEqual({
      waiting: [{ name: "refund", input: { order: "A-1" }, invocation: 2 }],
      requests: 2,
    });
    const out = await w.act("v2-description", "approve", { replies: [call("refund", { order: "A-1" }), "Refunded A-1."] });
    // refund at lookup's place: the turn stops, saying so (turn-state); it is never told lookup's output as its own
    expect(out).toMatchObject({ error: "turn-state" });
    expect(w.ran()).toEqual(["lookup:A-1"]);
  });
});
