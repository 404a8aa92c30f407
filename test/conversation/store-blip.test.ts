/**
 * A store that refuses one append in the middle of a turn (a network blip,
 * a database failover) stops the turn here, but does not end it: it reads
 * interrupted, never `failed` for good because the store happened to be
 * back in time for the `ended` record. So a client that retries the send
 * with its key (as the README says it may after a store error) goes on with
 * the turn, instead of being told the first store error again for ever;
 * and a tool that may have run is left for a person to settle.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, memoryStore, tool, Waiting } from "../../src/index.js";
import { faultyStore, scripted } from "../../src/testing/index.js";

type Rec = { kind?: string; state?: string };

/** A desk whose store refuses (before writing) the first append holding a record `which` picks. */
function blip(which: (r: Rec) => boolean) {
  const paid: number[] = [];
  const pay = tool("pay", { description: "Pay.", input: { amount: z.number() }, effects: "changes" }, ({ amount }) => (paid.push(amount), `paid ${amount}`));
  const desk = ai("desk", { description: "Pay.", input: { ask: z.string() }, tools: [pay] });
  const inner = memoryStore();
  let struck = false;
  const store = faultyStore(inner, {
    failOn: (call) => {
      if (struck || !call.records.some((r) => which(r as Rec))) return undefined;
      struck = true;
      return "before-write";
    },
  });
  const lm = scripted([{ toolCalls: [{ name: "pay", input: { amount: 5 } }] }, "paid"]);
  const chat = desk.conversation("c", { store, lm, approve: "changes" });
  return { chat, paid, lm, inner, desk };
}

async function approvedThenBlip(which: (r: Rec) => boolean) {
  const world = blip(which);
  const waiting = await world.chat.send("pay 5", { key: "req-1" }).catch((e: unknown) => e);
  expect(waiting).toBeInstanceOf(Waiting);
  await expect((waiting as Waiting).turn.approve({ by: "maria" })).rejects.toMatchObject({ code: "store-io" });
  return world;
}

describe("a store that refuses one append mid-turn", () => {
  it("the changing tool's started record refused (pay did not run): interrupted, not failed; the keyed retry goes on and pays once", async () => {
    const { chat, paid, lm } = await approvedThenBlip((r) => r.kind === "tool" && r.state === "started");
    expect(paid).toEqual([]);
    const [turn] = await chat.turns();
    expect([turn!.state, turn!.unfinished]).toEqual(["interrupted", []]);
    expect(await chat.send("pay 5", { key: "req-1" })).toBe("paid");
    expect(paid).toEqual([5]);
    expect(lm.requests).toHaveLength(2); // the first reply was kept: not paid for twice
  });

  it("its done record refused (pay ran): interrupted with pay unfinished, for a person to settle; never failed", async () => {
    const { chat, paid } = await approvedThenBlip((r) => r.kind === "tool" && r.state === "done");
    expect(paid).toEqual([5]);
    const [turn] = await chat.turns();
    expect(turn!.state).toBe("interrupted");
    expect(turn!.unfinished.map((u) => u.name)).toEqual(["pay"]);
    await expect(chat.send("pay 5", { key: "req-1" })).rejects.toMatchObject({ code: "turn-unfinished" });
    expect(await turn!.resume({ results: { 1: "paid 5" } })).toBe("paid");
    expect(paid).toEqual([5]);
  });
});
