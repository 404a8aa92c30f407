/**
 * Hunt: a deploy while a turn waits for a person. The old code (one child
 * process) sends a turn that stops for a refund's approval; the new code
 * (another child process, the same file store) answers it. What ran is
 * counted from the tools' own effects file, what was paid from each
 * process's model requests.
 */
import { afterAll, describe, expect, it } from "vitest";
import { call, deployWorld } from "./fixtures/hunt3-deploy.js";
import { removeBundles } from "./fixtures/spawn.js";

afterAll(removeBundles);

const world = deployWorld;

/** The old code's turn, waiting for a yes to refund A-1 (invocation 1), after one paid request. */
async function waitingForRefund() {
  const w = world();
  const sent = await w.act("v1", "send", { replies: [call("refund", { order: "A-1" })] });
  expect(sent).toEqual({ waiting: [{ name: "refund", input: { order: "A-1" }, invocation: 1 }], requests: 1 });
  return w;
}

describe("a deploy while a refund waits for a person's yes", () => {
  it("no change (control): the new process replays the reply, runs the approved refund once, pays only the next step", async () => {
    const w = await waitingForRefund();
    expect(await w.act("v2-same", "inspect")).toMatchObject({ state: "waiting", waiting: [{ name: "refund", input: { order: "A-1" } }], unfinished: [] });
    expect(await w.act("v2-same", "approve", { replies: ["Refunded A-1."] })).toEqual({ ok: "Refunded A-1.", requests: 1 });
    expect(w.ran()).toEqual(["refund:A-1"]);
  });

  for (const version of ["v2-description", "v2-model", "v2-tool-before"] as const) {
    it(`${version}: the request differs, so it is paid again (never misread); the same approved call runs once`, async () => {
      const w = await waitingForRefund();
      expect(await w.act(version, "inspect")).toMatchObject({ state: "waiting", waiting: [{ name: "refund", input: { order: "A-1" } }] });
      const out = await w.act(version, "approve", { replies: [call("refund", { order: "A-1" }), "Refunded A-1."] });
      expect(out).toEqual({ ok: "Refunded A-1.", requests: 2 });
      expect(w.ran()).toEqual(["refund:A-1"]);
    });
  }

  it("the tool renamed (refund → issue_refund): the renamed call runs at most once, on the yes or after asking again", async () => {
    const w = await waitingForRefund();
    const out = await w.act("v2-rename", "approve", { replies: [call("issue_refund", { order: "A-1" }), "Refunded A-1."] });
    if ("ok" in out) {
      expect(out).toEqual({ ok: "Refunded A-1.", requests: 2 });
      expect(w.ran()).toEqual(["issue_refund:A-1"]);
    } else {
      expect(out).toMatchObject({ waiting: [{ name: "issue_refund", input: { order: "A-1" } }] });
      expect(w.ran()).toEqual([]);
    }
  });

  it("the tool removed: the model is told there is no such tool; nothing runs; the yes is kept, not applied elsewhere", async () => {
    const w = await waitingForRefund();
    const out = await w.act("v2-removed", "approve", { replies: [call("refund", { order: "A-1" }), "I cannot refund any more."] });
    expect(out).toEqual({ ok: "I cannot refund any more.", requests: 2 });
    expect(w.ran()).toEqual([]);
  });

  it("a refinement the JSON schema does not show (the request matches, the recorded call no longer parses): the model is told, nothing runs", async () => {
    const w = await waitingForRefund();
    const out = await w.act("v2-refine", "approve", { replies: ["That order cannot be refunded."] });
    // the recorded reply is replayed (1 request: the next step), the call is refused by the new schema
    expect(out).toEqual({ ok: "That order cannot be refunded.", requests: 1 });
    expect(w.ran()).toEqual([]);
  });

  it("a required field added: the new call (without it) is refused to the model; the next call, with it, asks the person again", async () => {
    const w = await waitingForRefund();
    const out = await w.act("v2-required", "approve", {
      replies: [call("refund", { order: "A-1" }), call("refund", { order: "A-1", reason: "late" }, "refund-2"), "Refunded A-1."],
    });
    expect(out).toEqual({ waiting: [{ name: "refund", input: { order: "A-1", reason: "late" }, invocation: 2 }], requests: 2 });
    expect(w.ran()).toEqual([]);
  });

  for (const [verdict, ran] of [["approve", ["refund:A-1"]], ["deny", []]] as const) {
    it(`effects changes → reads: the person's ${verdict} still stands (refund ${ran.length ? "runs once" : "never runs"})`, async () => {
      const w = await waitingForRefund();
      const out = await w.act("v2-reads", verdict, { replies: ["Done."] });
      expect(out).toEqual({ ok: "Done.", requests: 1 });
      expect(w.ran()).toEqual(ran);
    });
  }

  it("a handle whose rule no longer names refund: the recorded yes runs A-1 once; later calls follow the handle's rule (it holds over the turn's)", async () => {
    const w = await waitingForRefund();
    // (conversation/driver.ts: "the rule the turn was sent with holds unless this handle gives one")
    const out = await w.act("v2-no-rule", "approve", { replies: [call("refund", { order: "A-2" }, "refund-2"), "Refunded both."] });
    expect(out).toEqual({ ok: "Refunded both.", requests: 2 });
    expect(w.ran()).toEqual(["refund:A-1", "refund:A-2"]);
  });

  it("maxSteps lowered below the steps the turn needs: the approved refund runs once, then step-limit (a clear code), nothing paid", async () => {
    const w = await waitingForRefund();
    const out = await w.act("v2-max-steps", "approve", { replies: ["never asked"] });
    expect(out).toMatchObject({ error: "step-limit", requests: 0 });
    expect(w.ran()).toEqual(["refund:A-1"]);
    expect(await w.act("v2-max-steps", "inspect")).toMatchObject({ state: "failed", waiting: [], unfinished: [] });
  });
});

describe("a deploy that changes the request, and the model's new reply calls something else at the approved call's place", () => {
  // FIXED (it was a violation): the yes maria gave to refund(A-1) is found by site and invocation alone. The new code's request
  // differs (its description changed), so it is sent anew, and the new reply's first call, cancel_order(A-1), sits
  // at invocation 1: the engine takes maria's yes for it (its input is the same, the only thing checked) and
  // cancels the order, which nobody approved. It should ask again (Waiting naming cancel_order), running nothing.
  it("cancel_order(A-1) does not run on the yes given to refund(A-1): the person is asked again", async () => {
    const w = await waitingForRefund();
    const out = await w.act("v2-description", "approve", { replies: [call("cancel_order", { order: "A-1" }), "Cancelled A-1."] });
    expect(w.ran()).toEqual([]);
    expect(out).toMatchObject({ waiting: [{ name: "cancel_order", input: { order: "A-1" }, invocation: 1 }] });
  });

  // FIXED (it was a violation, a lesser one: nothing ran): a required field added by the deploy makes the model's new
  // call refund({ order: "A-1", reason: "late" }). The yes for refund({ order: "A-1" }) was refused, as it must be, but
  // the turn FAILED (tool-failed), blaming "a default or transform that gives a new value each time", which the
  // schema has not; the person's answer was spent and the refund could no longer be approved. A call the model made
  // anew with another input is now asked about again (engine/approvals.ts, recordedAnswer), like any new call; the
  // tool-failed refusal stays for a replayed call that the schema reads otherwise (engine/approved-input.test.ts).
  it("a new call with another input than the approved one asks again, and does not fail the turn blaming a default", async () => {
    const w = await waitingForRefund();
    const out = await w.act("v2-required", "approve", { replies: [call("refund", { order: "A-1", reason: "late" }), "Refunded A-1."] });
    expect(w.ran()).toEqual([]);
    expect(out).toMatchObject({ waiting: [{ name: "refund", input: { order: "A-1", reason: "late" }, invocation: 1 }], requests: 1 });
    // asked again, answered again: the reply paid for it is replayed, the call shown runs once
    expect(await w.act("v2-required", "approve", { replies: ["Refunded A-1."] })).toEqual({ ok: "Refunded A-1.", requests: 1 });
    expect(w.ran()).toEqual(["refund:A-1"]);
  });
});
