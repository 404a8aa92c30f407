/**
 * A stream's actor as the main entry types it (`TurnActor`): it is the turn's
 * XState actor, so its snapshot, events and persisted snapshot are xstate's,
 * and `createActor(turnMachine, { snapshot })` takes the persisted snapshot
 * as typed, with no cast.
 */
import { createActor, fromCallback, type AnyEventObject } from "xstate";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, type TurnActor, type TurnEvent, type TurnPersistedSnapshot, type TurnSnapshot } from "../../src/index.js";
import { turnMachine } from "../../src/machine.js";
import { snapshotWhere } from "../../src/turn/actor.js";
import type { RunnerInput } from "../../src/turn/machine.js";
import { scripted } from "../../src/testing/index.js";
import { deskTools, echoLast } from "../engine/fixtures.js";

function waitingStream() {
  const t = deskTools();
  const fn = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [t.findOrder, t.refund] });
  const lm = scripted([{ toolCalls: [{ name: "refund", input: { order_id: "A-1", amount: 39 } }] }, echoLast]);
  return { s: fn.stream("Refund A-1", { lm, approve: "changes" }), t };
}

describe("TurnStream.actor (TurnActor)", () => {
  it("gives snapshots, events and the persisted snapshot, which rehydrates the machine where the turn waits", async () => {
    const { s, t } = waitingStream();
    const actor: TurnActor = s.actor;
    const values: string[] = [];
    const events: TurnEvent[] = [];
    actor.subscribe((snapshot) => values.push(snapshot.value));
    actor.on("*", (e) => events.push(e));
    const waiting: TurnSnapshot = await snapshotWhere(actor, (x) => x.value === "awaitingApproval");
    expect(waiting.status).toBe("active");
    expect(waiting.context.pending.map((a) => a.name)).toEqual(["refund"]);
    expect(events.some((e) => e.type === "approval")).toBe(true);

    const persisted: TurnPersistedSnapshot = actor.getPersistedSnapshot();
    const kept = JSON.parse(JSON.stringify(persisted)) as TurnPersistedSnapshot;
    const runner = fromCallback<AnyEventObject, RunnerInput>(() => undefined); // a rehydrated actor waiting for answers runs nothing
    const again = createActor(turnMachine.provide({ actors: { runner } }), { snapshot: kept, input: { turn: s.turn, name: "desk" } });
    again.start();
    expect(again.getSnapshot().value).toBe("awaitingApproval");
    expect(again.getSnapshot().context.pending.map((a) => a.name)).toEqual(["refund"]);
    again.stop();

    actor.send({ type: "APPROVE", by: "maria" });
    expect(await s).toBe("saw: refunded 39 for A-1");
    expect(t.REFUNDS).toEqual([["A-1", 39]]);
    expect(values).toContain("done");
    expect(actor.getSnapshot().status).toBe("done");
  });

  it("snapshotWhere rejects when the actor ends before the state waited for", async () => {
    const { s } = waitingStream();
    await snapshotWhere(s.actor, (x) => x.value === "awaitingApproval");
    const never = snapshotWhere(s.actor, (x) => x.value === "interrupted");
    s.abort();
    await expect(never).rejects.toMatchObject({ code: "turn-state" });
    await expect(s).rejects.toMatchObject({ code: "turn-aborted" });
  });
});
