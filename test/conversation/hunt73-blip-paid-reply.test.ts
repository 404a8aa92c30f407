/**
 * A store that refuses one append mid-turn, then comes back (a network blip,
 * a failover). The turn stops here, interrupted, and is let go (a run-out
 * lease written once the store takes it). But the refused batch held a reply
 * the model had been paid for (kept with the turn's `ended` record, or with a
 * changing tool's `started` record): it was dropped, and the keyed retry the
 * README allows after a store error paid for that reply again. Nothing paid
 * for is dropped: the replies of a refused batch go with the let-go, and the
 * retry replays them.
 */
import { payDesk } from "./fixtures/pay-desk.js";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, memoryStore, tool } from "../../src/index.js";
import { faultyStore, scripted } from "../../src/testing/index.js";
import type { Fault } from "../../src/testing/faulty-store.js";

type Rec = { kind?: string; state?: string };

/** A store that refuses (as `fault` says) the first append holding a record `which` picks; then it is back. */
function blipOn(which: (r: Rec) => boolean, fault: Fault = "before-write") {
  let struck = false;
  const inner = memoryStore();
  const store = faultyStore(inner, {
    failOn: (call) => {
      if (struck || !call.records.some((r) => which(r as Rec))) return undefined;
      struck = true;
      return fault;
    },
  });
  return { store, inner };
}

describe("a paid reply in a batch the store refused", () => {
  it.each(["before-write", "after-write"] as const)(
    "kept with the turn's end (%s): the keyed retry answers from it, the model is not paid again",
    async (fault) => {
      const look = tool("look", { description: "Look.", input: {}, effects: "reads" }, () => "shipped");
      const desk = ai("desk", { description: "Answer.", input: { ask: z.string() }, tools: [look] });
      const { store, inner } = blipOn((r) => r.kind === "ended", fault);
      const lm = scripted([{ toolCalls: [{ name: "look", input: {} }] }, "it shipped", "paid twice"]);
      const chat = desk.conversation("c", { store, lm });
      await expect(chat.send("where is it?", { key: "req-1" })).rejects.toMatchObject({ code: "store-io" });
      expect(await chat.send("where is it?", { key: "req-1" })).toBe("it shipped");
      expect(lm.requests).toHaveLength(2);
      // each reply kept once
      expect((await inner.read("c")).filter((r) => r.kind === "reply")).toHaveLength(2);
    },
  );

  it("kept with a changing tool's started record (the tool did not run): the retry replays it, runs the tool once, pays once", async () => {
    const { d: desk, paid } = payDesk();
    const { store } = blipOn((r) => r.kind === "tool" && r.state === "started");
    const lm = scripted([{ toolCalls: [{ name: "pay", input: { amount: 5 } }] }, "paid", "paid again"]);
    const chat = desk.conversation("c", { store, lm });
    await expect(chat.send("pay 5", { key: "req-1" })).rejects.toMatchObject({ code: "store-io" });
    expect(paid).toEqual([]);
    expect(await chat.send("pay 5", { key: "req-1" })).toBe("paid");
    expect(paid).toEqual([5]);
    expect(lm.requests).toHaveLength(2);
  });
});
