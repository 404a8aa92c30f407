import { describe, expect, it } from "vitest";
import { createActor, fromCallback, type AnyEventObject } from "xstate";
import type { Approval, TurnEvent } from "../../src/index.js";
import { turnMachine } from "../../src/machine.js";
import type { RunnerInput } from "../../src/turn/machine.js";

const approval = (id: string, name = "refund"): Approval => ({
  id, name, input: { order_id: "A-1" }, effects: "changes", path: `desk/${name}`, invocation: Number(id.split(":").at(-1)), site: "desk#1",
});
const usage = { inputTokens: 3, outputTokens: 2 };

type Send = (e: AnyEventObject) => void;

/**
 * A fake runner: each run calls the next behaviour with its input and sendBack;
 * the log keeps every run's input and whether its cleanup (the cancel) ran.
 */
function fakeRunner(behaviours: ((input: RunnerInput, send: Send) => void)[]) {
  const runs: { input: RunnerInput; cancelled: boolean }[] = [];
  const runner = fromCallback<AnyEventObject, RunnerInput>(({ input, sendBack }) => {
    const entry = { input: structuredClone(input), cancelled: false };
    runs.push(entry);
    const behaviour = behaviours[runs.length - 1];
    // sent after start, as a real runner's async work would
    queueMicrotask(() => behaviour?.(input, sendBack));
    return () => void (entry.cancelled = true);
  });
  return { machine: turnMachine.provide({ actors: { runner } }), runs };
}

/** Starts an actor, collecting its emitted events. */
function start(machine: ReturnType<typeof fakeRunner>["machine"], options: Parameters<typeof createActor<typeof turnMachine>>[1] = { input: { turn: "t1", name: "desk" } }) {
  const actor = createActor(machine, options);
  const events: TurnEvent[] = [];
  actor.on("*", (e) => void events.push(e));
  actor.start();
  return { actor, events };
}

const tick = () => new Promise((r) => setTimeout(r, 0));
const states = (events: TurnEvent[]) => events.flatMap((e) => (e.type === "state" ? [e.state] : []));

describe("turnMachine", () => {
  it("running → awaitingApproval → running → done; the second run gets the answers", async () => {
    const { machine, runs } = fakeRunner([
      (_i, send) => {
        send({ type: "RUNNER.EVENTS", events: [{ path: "desk", body: { type: "request", site: "desk#1", step: 1 } }] });
        send({ type: "RUNNER.WAIT", approvals: [approval("desk#1:1")] });
      },
      (_i, send) => send({ type: "RUNNER.DONE", result: "refunded", usage }),
    ]);
    const { actor, events } = start(machine);
    await tick();
    expect(actor.getSnapshot().value).toBe("awaitingApproval");
    expect(actor.getSnapshot().context.pending.map((a) => a.id)).toEqual(["desk#1:1"]);
    expect(runs[0]!.cancelled).toBe(true); // leaving running cancels its runner
    actor.send({ type: "APPROVE", by: "maria" });
    await tick();
    expect(actor.getSnapshot().value).toBe("done");
    expect(actor.getSnapshot().status).toBe("done");
    expect(actor.getSnapshot().context).toMatchObject({ result: "refunded", usage, runs: 2 });
    expect(runs.map((r) => r.input)).toEqual([
      { turn: "t1", answers: {}, run: 1 },
      { turn: "t1", answers: { "desk#1:1": { verdict: "yes", by: "maria", reason: null } }, run: 2 },
    ]);
    expect(events.map((e) => e.type)).toEqual(["state", "request", "waiting", "state", "approved", "state", "done", "state"]);
    expect(states(events)).toEqual(["running", "awaitingApproval", "running", "done"]);
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    for (const e of events) expect(e).toMatchObject({ turn: "t1", at: expect.any(String), path: expect.any(String) });
    // from the call that made the tool call, like the `approval` event it answers
    expect(events.find((e) => e.type === "approved")).toMatchObject({ path: "desk", verdict: "yes", by: "maria", reason: null, approval: { path: "desk/refund" } });
  });

  it("a batch of runner events is emitted in order, numbered one by one", async () => {
    const { machine } = fakeRunner([
      (_i, send) => send({ type: "RUNNER.EVENTS", events: ["a", "b", "c"].map((delta) => ({ path: "desk/answer", body: { type: "text", site: "desk#1/answer#1", delta } })) }),
    ]);
    const { actor, events } = start(machine);
    await tick();
    const texts = events.filter((e): e is Extract<TurnEvent, { type: "text" }> => e.type === "text");
    expect(texts.map((e) => [e.delta, e.seq, e.path])).toEqual([["a", 2, "desk/answer"], ["b", 3, "desk/answer"], ["c", 4, "desk/answer"]]);
    expect(actor.getSnapshot().context.seq).toBe(4);
    actor.stop();
  });

  it("running → failed keeps the error and emits failed", async () => {
    const { machine } = fakeRunner([(_i, send) => send({ type: "RUNNER.FAILED", error: { code: "step-limit", message: "no answer" } })]);
    const { actor, events } = start(machine);
    await tick();
    expect(actor.getSnapshot().value).toBe("failed");
    expect(actor.getSnapshot().status).toBe("done");
    expect(actor.getSnapshot().context.error).toEqual({ code: "step-limit", message: "no answer" });
    expect(events.slice(-2)).toMatchObject([{ type: "failed", error: { code: "step-limit" }, seq: 2 }, { type: "state", state: "failed", seq: 3 }]);
  });

  it("running → interrupted → RESUME → running → done", async () => {
    const { machine, runs } = fakeRunner([
      (_i, send) => send({ type: "RUNNER.INTERRUPTED", reason: "lease lost" }),
      (_i, send) => send({ type: "RUNNER.DONE", result: 1, usage }),
    ]);
    const { actor, events } = start(machine);
    await tick();
    expect(actor.getSnapshot().value).toBe("interrupted");
    expect(events.find((e) => e.type === "interrupted")).toMatchObject({ reason: "lease lost" });
    actor.send({ type: "APPROVE" }); // nothing to approve: ignored
    expect(actor.getSnapshot().value).toBe("interrupted");
    actor.send({ type: "RESUME" });
    await tick();
    expect(actor.getSnapshot().value).toBe("done");
    expect(runs.map((r) => r.input.run)).toEqual([1, 2]);
    expect(states(events)).toEqual(["running", "interrupted", "running", "done"]);
  });

  it("ABANDON ends a waiting or interrupted turn without running it again", async () => {
    for (const wait of [
      (_i: RunnerInput, send: Send) => send({ type: "RUNNER.WAIT", approvals: [approval("desk#1:1")] }),
      (_i: RunnerInput, send: Send) => send({ type: "RUNNER.INTERRUPTED", reason: "x" }),
    ]) {
      const { machine, runs } = fakeRunner([wait]);
      const { actor, events } = start(machine);
      await tick();
      actor.send({ type: "ABANDON" });
      expect(actor.getSnapshot().value).toBe("abandoned");
      expect(actor.getSnapshot().status).toBe("done");
      expect(states(events).at(-1)).toBe("abandoned");
      expect(runs).toHaveLength(1);
    }
  });

  it("ABANDON is ignored while running; STOP stops from running (cancelling the runner), waiting and interrupted", async () => {
    const hang = () => undefined;
    const { machine, runs } = fakeRunner([hang]);
    const running = start(machine);
    running.actor.send({ type: "ABANDON" });
    expect(running.actor.getSnapshot().value).toBe("running");
    running.actor.send({ type: "STOP", reason: "enough" });
    expect(running.actor.getSnapshot().value).toBe("stopped");
    expect(runs[0]!.cancelled).toBe(true);

    for (const behaviour of [
      (_i: RunnerInput, send: Send) => send({ type: "RUNNER.WAIT", approvals: [approval("desk#1:1")] }),
      (_i: RunnerInput, send: Send) => send({ type: "RUNNER.INTERRUPTED", reason: "x" }),
    ]) {
      const { machine: m } = fakeRunner([behaviour]);
      const { actor } = start(m);
      await tick();
      actor.send({ type: "STOP" });
      expect(actor.getSnapshot().value).toBe("stopped");
    }
  });

  it("answers by id: the turn waits until every approval is answered; unknown ids change nothing", async () => {
    const { machine, runs } = fakeRunner([
      (_i, send) => send({ type: "RUNNER.WAIT", approvals: [approval("desk#1:1"), approval("desk#1:2", "note")] }),
      (_i, send) => send({ type: "RUNNER.DONE", result: "ok", usage }),
    ]);
    const { actor, events } = start(machine);
    await tick();
    const seqBefore = actor.getSnapshot().context.seq;
    actor.send({ type: "APPROVE", id: "desk#1:9" });
    expect(actor.getSnapshot().context.seq).toBe(seqBefore);
    actor.send({ type: "DENY", id: "desk#1:2", reason: "no notes", by: "ana" });
    expect(actor.getSnapshot().value).toBe("awaitingApproval");
    expect(actor.getSnapshot().context.pending.map((a) => a.id)).toEqual(["desk#1:1"]);
    actor.send({ type: "APPROVE", id: "desk#1:1" });
    await tick();
    expect(actor.getSnapshot().value).toBe("done");
    expect(runs[1]!.input.answers).toEqual({
      "desk#1:2": { verdict: "no", by: "ana", reason: "no notes" },
      "desk#1:1": { verdict: "yes", by: null, reason: null },
    });
    const approved = events.filter((e): e is Extract<TurnEvent, { type: "approved" }> => e.type === "approved");
    expect(approved.map((e) => [e.approval.id, e.verdict, e.reason])).toEqual([["desk#1:2", "no", "no notes"], ["desk#1:1", "yes", null]]);
  });

  it("one DENY without an id answers every pending approval", async () => {
    const { machine, runs } = fakeRunner([
      (_i, send) => send({ type: "RUNNER.WAIT", approvals: [approval("desk#1:1"), approval("desk#1:2")] }),
      (_i, send) => send({ type: "RUNNER.DONE", result: "ok", usage }),
    ]);
    const { actor } = start(machine);
    await tick();
    actor.send({ type: "DENY", reason: "not today" });
    await tick();
    expect(Object.values(runs[1]!.input.answers).map((a) => a.reason)).toEqual(["not today", "not today"]);
  });

  it("emitted events are typed by `type` (actor.on narrows them)", async () => {
    const { machine } = fakeRunner([(_i, send) => send({ type: "RUNNER.WAIT", approvals: [approval("desk#1:1")] })]);
    const actor = createActor(machine, { input: { turn: "t2", name: "desk" } });
    const waited: string[] = [];
    actor.on("waiting", (e) => void waited.push(...e.approvals.map((a) => a.path))); // e: the `waiting` event, typed
    actor.start();
    await tick();
    expect(waited).toEqual(["desk/refund"]);
  });

  it("RUNNER.STOPPED (stopped from elsewhere) ends in stopped", async () => {
    const { machine } = fakeRunner([(_i, send) => send({ type: "RUNNER.STOPPED", reason: "a stop record" })]);
    const { actor, events } = start(machine);
    await tick();
    expect(actor.getSnapshot().value).toBe("stopped");
    expect(states(events)).toEqual(["running", "stopped"]);
  });

  it("RESUME while awaiting approval runs again without answers (the host found them elsewhere)", async () => {
    const { machine, runs } = fakeRunner([
      (_i, send) => send({ type: "RUNNER.WAIT", approvals: [approval("desk#1:1")] }),
      (_i, send) => send({ type: "RUNNER.DONE", result: "ok", usage }),
    ]);
    const { actor } = start(machine);
    await tick();
    actor.send({ type: "RESUME" });
    await tick();
    expect(actor.getSnapshot().value).toBe("done");
    expect(actor.getSnapshot().context.pending).toEqual([]);
    expect(runs[1]!.input).toEqual({ turn: "t1", answers: {}, run: 2 });
  });

  it("the default runner (none provided) fails the turn with turn-state", () => {
    const actor = createActor(turnMachine, { input: { turn: "t", name: "n" } }).start();
    expect(actor.getSnapshot().value).toBe("failed");
    expect(actor.getSnapshot().context.error?.code).toBe("turn-state");
  });

  it("a rehydrated turn starts where it was: interrupted, or awaiting its approvals", async () => {
    const { machine, runs } = fakeRunner([(_i, send) => send({ type: "RUNNER.DONE", result: "x", usage })]);
    const a = start(machine, { input: { turn: "t", name: "n", start: "interrupted", seq: 10 } });
    expect(a.actor.getSnapshot().value).toBe("interrupted");
    expect(a.events[0]).toMatchObject({ type: "state", state: "interrupted", seq: 11 });
    expect(runs).toHaveLength(0);
    const b = start(machine, { input: { turn: "t", name: "n", start: "awaitingApproval", pending: [approval("n#1:1")] } });
    expect(b.actor.getSnapshot().value).toBe("awaitingApproval");
    b.actor.send({ type: "APPROVE" });
    await tick();
    expect(b.actor.getSnapshot().value).toBe("done");
  });
});

describe("a persisted snapshot", () => {
  it("taken while awaiting approval, through JSON, restored elsewhere, approved, reaches done", async () => {
    const first = fakeRunner([
      (_i, send) => {
        send({ type: "RUNNER.EVENTS", events: [{ path: "desk", body: { type: "request", site: "desk#1", step: 1 } }] });
        send({ type: "RUNNER.WAIT", approvals: [approval("desk#1:1")] });
      },
    ]);
    const { actor } = start(first.machine);
    await tick();
    expect(actor.getSnapshot().value).toBe("awaitingApproval");
    const saved = JSON.parse(JSON.stringify(actor.getPersistedSnapshot())) as unknown;
    actor.stop();

    // another process: the same machine with its own runner, rebuilt from the snapshot alone
    const second = fakeRunner([(_i, send) => send({ type: "RUNNER.DONE", result: "refunded", usage })]);
    // (the input type is required by the typings; a restored actor takes everything from the snapshot)
    const restored = createActor(second.machine, { snapshot: saved as never, input: { turn: "ignored", name: "ignored" } });
    const events: TurnEvent[] = [];
    restored.on("*", (e) => void events.push(e));
    restored.start();
    expect(restored.getSnapshot().value).toBe("awaitingApproval");
    expect(restored.getSnapshot().context.pending.map((a) => a.path)).toEqual(["desk/refund"]);
    expect(second.runs).toHaveLength(0); // restoring does not run anything
    restored.send({ type: "APPROVE", by: "maria" });
    await tick();
    expect(restored.getSnapshot().value).toBe("done");
    expect(restored.getSnapshot().context.result).toBe("refunded");
    expect(second.runs[0]!.input).toEqual({ turn: "t1", answers: { "desk#1:1": { verdict: "yes", by: "maria", reason: null } }, run: 2 });
    // numbering goes on from the snapshot: 4 events were shown before it
    expect(events.map((e) => e.seq)).toEqual([5, 6, 7, 8]);
    expect(events.map((e) => e.type)).toEqual(["approved", "state", "done", "state"]);
  });
});
