/**
 * A stop asked from another process (a `stop` record) while a tool runs
 * here: the tool's `ctx.signal` aborts, the turn ends here as stopped, and
 * every reader (this process too) reads it `stopped`, never `interrupted`:
 * a stopped turn is not resumed, nor its changing tool run again.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, FunctaiError, tool } from "../../src/index.js";
import { makeRecord } from "../../src/records/make.js";
import { memoryStore, scripted } from "../../src/testing/index.js";

/** A desk whose `pay` tool (changes) waits until its signal aborts; `paid` counts the payments that began. */
function stoppableDesk() {
  const began: string[] = [];
  let entered!: () => void;
  const inside = new Promise<void>((r) => (entered = r));
  const aborted: unknown[] = [];
  const pay = tool("pay", { description: "Pay.", input: { amount: z.number() }, effects: "changes" }, async ({ amount }, ctx) => {
    began.push(`pay ${amount}`);
    entered();
    await new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => resolve(), { once: true }));
    aborted.push(ctx.signal.reason);
    throw ctx.signal.reason;
  });
  const desk = ai("desk", { description: "Pay.", input: { ask: z.string() }, tools: [pay] });
  const lm = () => scripted([{ toolCalls: [{ name: "pay", input: { amount: 5 } }] }, "paid"]);
  return { desk, lm, began, inside, aborted };
}

describe("stop from another process while a tool runs here", () => {
  it("aborts the tool's signal; the turn reads stopped here and elsewhere, and refuses to resume", async () => {
    const store = memoryStore();
    const d = stoppableDesk();
    const lm = d.lm();
    const chat = d.desk.conversation("c", { store, lm, lease: { renewMs: 20, ttlMs: 60_000 } });
    const sent = chat.send("pay 5");
    void sent.catch(() => undefined);
    await d.inside;
    const [running] = await chat.turns();
    expect(running!.state).toBe("running");
    // another process asks the turn to stop (a record, as any process with the store may write)
    await store.append("c", [makeRecord("stop", { turn: running!.id }, Date.now())]);
    await expect(sent).rejects.toBeInstanceOf(FunctaiError);
    // the code a stop asked in this process gives too (not lease-lost: nobody took the lease)
    await expect(sent).rejects.toMatchObject({ code: "turn-aborted", message: /stopped/ });
    expect(d.aborted).toHaveLength(1);
    expect((await running!.refresh()).state).toBe("stopped");
    // its lease is still live (60 s): it ran here, and stopped here
    for (const reader of [chat, d.desk.conversation("c", { store })]) {
      const [turn] = await reader.turns();
      expect(turn!.state).toBe("stopped");
      await expect(turn!.resume({ rerun: [1] })).rejects.toMatchObject({ code: "turn-state" });
    }
    expect(d.began).toEqual(["pay 5"]);
    expect(lm.requests).toHaveLength(1);
  });
});
