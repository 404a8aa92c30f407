/**
 * Hunt 59: what a turn's actor says once it ended. Before, a turn stopped or
 * abandoned while it waited kept its approvals as pending (`s.pending`, the
 * snapshot's `context.pending`): a screen listing what waits for a person
 * showed approvals nobody could answer any more (each answer refused,
 * `turn-state`). And the reason a `STOP` command carries (`{ type: "STOP",
 * reason }`, the command's own example) went nowhere: not to the tools'
 * `ctx.signal`, not to what the stream rejects with, not to the
 * conversation's records; each said only "the turn was stopped".
 */
import { createActor, fromCallback, type AnyEventObject } from "xstate";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, memoryStore, tool } from "../../src/index.js";
import { turnMachine } from "../../src/machine.js";
import { snapshotWhere } from "../../src/turn/actor.js";
import type { RunnerInput } from "../../src/turn/machine.js";
import { scripted } from "../../src/testing/index.js";
import { echoLast } from "../engine/fixtures.js";
import { refundDesk } from "./fixtures.js";

const codeOf = (e: unknown): unknown => (e as { code?: unknown }).code;

describe("a turn that ended while it waited has nothing pending", () => {
  it("a plain stream aborted while it waits: s.pending and the snapshot list nothing; an answer is refused (turn-state)", async () => {
    const { fn, lm, t } = refundDesk();
    const s = fn.stream("Refund A-1", { lm, approve: "changes" });
    const types: string[] = [];
    for await (const e of s) {
      types.push(e.type);
      if (e.type === "approval") {
        expect(s.pending.map((a) => a.name)).toEqual(["refund"]);
        s.abort();
      }
    }
    expect(s.state).toBe("stopped");
    expect(s.pending).toEqual([]);
    expect(s.actor.getSnapshot().context.pending).toEqual([]);
    expect(s.actor.getPersistedSnapshot()).toMatchObject({ status: "done", context: { pending: [] } });
    await expect(s.approve()).rejects.toMatchObject({ code: "turn-state" });
    expect(await s.then(() => "answered", codeOf)).toBe("turn-aborted");
    expect(t.REFUNDS).toEqual([]);
    expect(types.at(-1)).toBe("state");
  });

  it("the machine: ABANDON or STOP while awaiting approval ends with nothing pending; the answers given stay", async () => {
    const approval = (id: string) => ({
      id,
      name: "refund",
      input: {},
      effects: "changes" as const,
      path: "desk/refund",
      invocation: 1,
      site: "desk#1",
    });
    const runner = fromCallback<AnyEventObject, RunnerInput>(({ sendBack }) => {
      queueMicrotask(() => sendBack({ type: "RUNNER.WAIT", approvals: [approval("desk#1:1"), approval("desk#1:2")] }));
    });
    for (const command of [{ type: "ABANDON" }, { type: "STOP" }] as const) {
      const actor = createActor(turnMachine.provide({ actors: { runner } }), { input: { turn: "t1", name: "desk" } });
      actor.start();
      await snapshotWhere(actor, (x) => x.value === "awaitingApproval");
      actor.send({ type: "APPROVE", id: "desk#1:1", by: "maria" });
      expect(actor.getSnapshot().context.pending.map((a) => a.id)).toEqual(["desk#1:2"]);
      actor.send(command);
      expect(actor.getSnapshot().value).toBe(command.type === "ABANDON" ? "abandoned" : "stopped");
      expect(actor.getSnapshot().context.pending).toEqual([]);
      expect(Object.keys(actor.getSnapshot().context.answers)).toEqual(["desk#1:1"]);
    }
  });
});

describe("a STOP's reason is kept", () => {
  /** A desk whose tool waits until its signal aborts, and says why it aborted. */
  function stuckDesk() {
    const seen: string[] = [];
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    const wait = tool("wait", { description: "Waits.", input: {}, effects: "reads" }, (_input, ctx) => {
      started();
      return new Promise<string>((_resolve, reject) =>
        ctx.signal.addEventListener("abort", () => {
          seen.push((ctx.signal.reason as Error).message);
          reject(ctx.signal.reason);
        }),
      );
    });
    const fn = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [wait] });
    const lm = scripted([{ toolCalls: [{ name: "wait", input: {} }] }, echoLast]);
    return { fn, lm, seen, running };
  }

  it("a plain stream: the tool's signal, and the error the stream rejects with, say why", async () => {
    const { fn, lm, seen, running } = stuckDesk();
    const s = fn.stream("Wait", { lm });
    await running;
    s.actor.send({ type: "STOP", reason: "the customer hung up" });
    const error = await s.then(
      () => null,
      (e: unknown) => e as { code?: string; message?: string },
    );
    expect(error).toMatchObject({ code: "turn-aborted" });
    expect(error?.message).toContain("the customer hung up");
    expect(seen).toEqual([expect.stringContaining("the customer hung up")]);
    expect(s.state).toBe("stopped");
    expect(lm.requests).toHaveLength(1);
  });

  it("a conversation's stream: the turn's ended record keeps it", async () => {
    const { fn, lm, running } = stuckDesk();
    const store = memoryStore();
    const s = fn.conversation("c", { store, lm }).stream("Wait");
    await running;
    s.actor.send({ type: "STOP", reason: "the customer hung up" });
    expect(await s.then(() => null, codeOf)).toBe("turn-aborted");
    const ended = (await store.read("c")).filter((r) => r.kind === "ended");
    expect(ended).toMatchObject([{ state: "stopped", error: { code: "turn-aborted", message: expect.stringContaining("the customer hung up") } }]);
  });

  it("a STOP with no reason says the turn was stopped, as before", async () => {
    const { fn, lm, seen, running } = stuckDesk();
    const s = fn.stream("Wait", { lm });
    await running;
    s.actor.send({ type: "STOP" });
    expect(
      await s.then(
        () => null,
        (e: unknown) => (e as Error).message,
      ),
    ).toBe("the turn was stopped");
    expect(seen).toEqual(["the turn was stopped"]);
  });
});
