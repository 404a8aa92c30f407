/**
 * A plugin's `toolCall` hook blocks a call (`{ block }`): the model is told
 * it was blocked, and the turn goes on. DESIGN (journal): resuming replays
 * what was decided, so nothing runs that did not, and the history given to
 * the model is the one it had. The block was not journaled: a turn resumed
 * where that plugin is not given (a person answering a later approval from
 * a handle with only a store and a model) decided the call again, ran the
 * refund the plugin had blocked, and showed the model another history (its
 * recorded reply was paid for again, and the call it had made never ran).
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, tool, Waiting, type Plugin } from "../../src/index.js";
import { memoryStore, scripted } from "../../src/testing/index.js";
import { toolResults } from "./fixtures.js";

function desk() {
  const RAN: string[] = [];
  const refund = tool("refund", { description: "Refund.", input: { amount: z.number() }, effects: "changes" }, ({ amount }) => {
    RAN.push(`refund ${amount}`);
    return `refunded ${amount}`;
  });
  const note = tool("note", { description: "Note for finance.", input: { text: z.string() }, effects: "changes" }, ({ text }) => {
    RAN.push(`note ${text}`);
    return "noted";
  });
  const fn = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [refund, note] });
  const guard: Plugin = {
    name: "guard",
    version: "1",
    hooks: {
      toolCall: (c) =>
        c.name === "refund" && (c.input as { amount: number }).amount > 100 ? { block: "refunds over 100 go to finance" } : undefined,
    },
  };
  const lm = scripted([
    { toolCalls: [{ name: "refund", input: { amount: 900 } }] },
    { toolCalls: [{ name: "note", input: { text: "refund 900 for finance" } }] },
    "Finance will handle it.",
  ]);
  return { fn, guard, lm, RAN };
}

const BLOCKED = "The call was blocked (guard). Reason: refunds over 100 go to finance";

describe("a call a plugin blocked, the turn resumed where that plugin is not given", () => {
  it("stays blocked: the refund never runs, the model's history is the one it had, its recorded reply is not paid again", async () => {
    const { fn, guard, lm, RAN } = desk();
    const store = memoryStore();
    const waiting = await fn
      .conversation("sam", { store, lm, plugins: [guard], approve: ["note"] })
      .send("Refund 900.")
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(waiting).toBeInstanceOf(Waiting);
    expect(toolResults(lm.requests[1])).toEqual([["refund", BLOCKED]]);

    const turn = (await fn.conversation("sam", { store, lm }).turns()).at(-1)!;
    expect(await turn.approve({ by: "maria" })).toBe("Finance will handle it.");
    expect(RAN).toEqual(["note refund 900 for finance"]);
    expect(lm.requests).toHaveLength(3); // the second reply was found in the records
    expect(toolResults(lm.requests[2])).toEqual([
      ["refund", BLOCKED],
      ["note", "noted"],
    ]);
  });

  it("with the plugin given again it is blocked once, as before (nothing asked, nothing run twice)", async () => {
    const { fn, guard, lm, RAN } = desk();
    const store = memoryStore();
    await expect(fn.conversation("sam", { store, lm, plugins: [guard], approve: ["note"] }).send("Refund 900.")).rejects.toBeInstanceOf(Waiting);
    const turn = (await fn.conversation("sam", { store, lm, plugins: [guard] }).turns()).at(-1)!;
    expect(await turn.approve({ by: "maria" })).toBe("Finance will handle it.");
    expect(RAN).toEqual(["note refund 900 for finance"]);
    expect(lm.requests).toHaveLength(3);
  });
});
