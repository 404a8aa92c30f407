/**
 * DESIGN ("Durability"): before a model request is sent, a paid reply that arrived is durable: only the reply in
 * flight when a process dies may be asked for again. A step whose reply asked for many reading tools queued 64
 * records, and the journal wrote them in the background told `durable: false` (the reply among them); the next
 * request then found no reply queued and sent at once, without any durable append: a crash during that request (a
 * store that keeps riding appends only with the next durable one) lost a reply that had been paid for.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, memoryStore, tool } from "../../src/index.js";
import { faultyStore, scripted } from "../../src/testing/index.js";

type Rec = { kind: string };

describe("a paid reply among 64 queued records", () => {
  it("is durable before the next request is sent", async () => {
    const look = tool("look", { description: "Looks.", input: { i: z.number() }, effects: "reads" }, ({ i }) => `seen ${i}`);
    const fn = ai("desk", { description: "Help.", input: { q: z.string() }, tools: [look], maxSteps: 3 });
    const appends: { durable: boolean; replies: number }[] = [];
    const store = faultyStore(memoryStore(), {
      failOn: (call) => {
        appends.push({ durable: call.durable, replies: call.records.filter((r) => (r as Rec).kind === "reply").length });
        return undefined;
      },
    });
    /** Whether every reply appended so far was in a durable append, or one came after it. */
    const repliesKept = (): boolean => {
      let unkept = false;
      for (const a of appends) {
        if (a.replies > 0) unkept = true;
        if (a.durable) unkept = false;
      }
      return !unkept;
    };
    const kept: boolean[] = [];
    const calls = Array.from({ length: 80 }, (_, i) => ({ name: "look", input: { i } }));
    const lm = scripted([
      () => {
        kept.push(repliesKept());
        return { toolCalls: calls };
      },
      () => {
        kept.push(repliesKept());
        return "done";
      },
    ]);
    expect(await fn.conversation("c1", { store, lm }).send("go")).toBe("done");
    expect(lm.requests).toHaveLength(2);
    // (the 80 tools' records went out in more than one batch: the one with the reply in the background)
    expect(appends.filter((a) => a.replies > 0).length).toBeGreaterThan(0);
    expect(kept).toEqual([true, true]);
  });
});
