/**
 * A stop while a plugin's `toolCall` hook has not answered (a policy service that never replies) ends the call at
 * once, as a stop while the approve function is asked does: nothing has run while a call is decided. Before, the
 * stop waited for the hook for good.
 *
 * Bound: 20 s, though the stop needs no grace here (nothing runs): a loaded machine shared by several test runs
 * may be slow; a stop that takes longer has hung.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, memoryStore, tool, type Plugin } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { settleOrHang } from "./fixtures.js";


describe("a stop while a toolCall hook is asked", () => {
  it("rejects turn-aborted, the tool never runs and the end is kept", async () => {
    let asked!: () => void;
    const wasAsked = new Promise<void>((r) => (asked = r));
    const policy: Plugin = {
      name: "policy",
      version: "1",
      hooks: {
        toolCall: () => {
          asked();
          return new Promise<undefined>(() => {});
        },
      },
    };
    const ran: number[] = [];
    const pay = tool("pay", { description: "Pays.", input: { amount: z.number() }, effects: "changes" }, ({ amount }) => {
      ran.push(amount);
      return "paid";
    });
    const fn = ai("desk", { description: "Help.", input: { q: z.string() }, tools: [pay] });
    const store = memoryStore();
    const lm = scripted([{ toolCalls: [{ name: "pay", input: { amount: 5 } }] }, "done"]);
    const controller = new AbortController();
    const sent = fn.conversation("c1", { store, lm, plugins: [policy] }).send("go", { signal: controller.signal });
    await wasAsked;
    controller.abort();
    const outcome = await settleOrHang(sent);
    expect(outcome).toBe("turn-aborted");
    expect(ran).toEqual([]);
    const records = await store.read("c1");
    expect(records.at(-1)).toMatchObject({ kind: "ended", state: "stopped" });
  });
});
