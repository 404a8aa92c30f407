/**
 * A `snapshot` record names its machine (`{ machine: "turn@1", snapshot }`):
 * one of another machine or version is ignored, and the turn goes on by
 * replaying its journal, paying for nothing twice.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, tool, Waiting } from "../../src/index.js";
import { memoryStore, scripted } from "../../src/testing/index.js";

function desk() {
  const paid: number[] = [];
  const pay = tool("pay", { description: "Pay.", input: { amount: z.number() }, effects: "changes" }, ({ amount }) => (paid.push(amount), `paid ${amount}`));
  const fn = ai("desk", { description: "Pay.", input: { ask: z.string() }, tools: [pay] });
  const lm = scripted([{ toolCalls: [{ name: "pay", input: { amount: 5 } }] }, "done"]);
  return { fn, lm, paid };
}

describe("versioned snapshot records", () => {
  it("a waiting turn keeps { machine: \"turn@1\", snapshot }", async () => {
    const d = desk();
    const store = memoryStore();
    expect(await d.fn.conversation("c", { store, lm: d.lm, approve: "changes" }).send("go").catch((e: unknown) => e)).toBeInstanceOf(Waiting);
    const kept = (await store.read("c")).filter((r) => r.kind === "snapshot") as unknown as { snapshot: { machine: string; snapshot: { value: string } } }[];
    expect(kept).toHaveLength(1);
    expect(kept[0]!.snapshot.machine).toBe("turn@1");
    expect(kept[0]!.snapshot.snapshot.value).toBe("awaitingApproval");
  });

  it("a snapshot of an unknown machine version is ignored: the turn replays its journal, nothing is paid or run twice", async () => {
    const d = desk();
    const store = memoryStore();
    const chat = d.fn.conversation("c", { store, lm: d.lm, approve: "changes" });
    await chat.send("go").catch(() => undefined);
    // a later version wrote its own snapshot (its shape is not ours)
    const [turn] = await chat.turns();
    await store.append("c", [{ functai_conversation: 1, kind: "snapshot", at: new Date().toISOString(), turn: turn!.id, snapshot: { machine: "turn@9", snapshot: { value: "somewhere-new", context: 42 } } }]);
    const [again] = await chat.turns();
    expect(await again!.approve({ by: "maria" })).toBe("done");
    expect(d.paid).toEqual([5]);
    expect(d.lm.requests).toHaveLength(2); // the first reply was replayed from the journal, not asked for again
  });
});
