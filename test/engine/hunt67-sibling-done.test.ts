/**
 * Two changing tools called in one step: the first's `started` is kept and it runs; the second's `started` write
 * fails (the store refused it once). The step fails (store-io), but the first tool did run and finished: its `done`
 * must be kept, not dropped with the failed step. Dropped, a resumed turn read it unfinished and asked a person
 * whether a refund that was made and answered had run (or a rerun paid it twice).
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, memoryStore, tool } from "../../src/index.js";
import { faultyStore, scripted } from "../../src/testing/index.js";

type Rec = { kind: string; name?: string; state?: string };

describe("a sibling's started write fails", () => {
  it("the finished sibling's done is kept", async () => {
    const ran: string[] = [];
    const refund = tool("refund", { description: "Refunds.", input: { order: z.string() }, effects: "changes" }, async ({ order }) => {
      await new Promise((r) => setTimeout(r, 20));
      ran.push(order);
      return `refunded ${order}`;
    });
    const mail = tool("mail", { description: "Mails.", input: { to: z.string() }, effects: "changes" }, ({ to }) => {
      ran.push(to);
      return "sent";
    });
    const fn = ai("desk", { description: "Help.", input: { q: z.string() }, tools: [refund, mail] });
    const inner = memoryStore();
    let failed = false;
    const store = faultyStore(inner, {
      failOn: (call) => {
        if (failed) return undefined;
        const hit = call.records.some((r) => (r as Rec).kind === "tool" && (r as Rec).name === "mail" && (r as Rec).state === "started");
        if (hit) failed = true;
        return hit ? "before-write" : undefined;
      },
    });
    const lm = scripted([
      {
        toolCalls: [
          { name: "refund", input: { order: "A-1" } },
          { name: "mail", input: { to: "sam" } },
        ],
      },
      "done",
    ]);
    const sent = fn.conversation("c1", { store, lm }).send("go");
    await expect(sent).rejects.toMatchObject({ code: "store-io" });
    expect(failed).toBe(true);
    expect(ran).toEqual(["A-1"]);
    // (the process's last writes, letting the turn go, may still be on their way)
    await new Promise((r) => setTimeout(r, 200));
    const tools = ((await inner.read("c1")) as unknown as Rec[]).filter((r) => r.kind === "tool").map((r) => `${r.name}:${r.state}`);
    expect(tools).toEqual(["refund:started", "refund:done"]);
    const [turn] = await fn.conversation("c1", { store: inner, lm }).turns();
    expect(turn!.unfinished).toEqual([]);
  });
});
