/**
 * The tool hooks are told which run of a turn makes the call (`attempt`, as
 * the model hooks and `turnStart` are): a plugin keeping per-run state (otel's
 * spans) finds a call's run exactly when two runs of one turn overlap.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, tool, Waiting, type Plugin } from "../../src/index.js";
import { memoryStore, scripted } from "../../src/testing/index.js";

describe("tool hooks carry the attempt of the run making the call", () => {
  it("a turn that waits and is approved in another handle: the first run's calls say 1, the resumed run's say 2", async () => {
    const seen: [string, string, number | undefined][] = [];
    const watch: Plugin = {
      name: "watch",
      version: "1",
      hooks: {
        turnStart: (t) => void seen.push(["turnStart", "", t.attempt]),
        toolCall: (c) => void seen.push(["toolCall", c.name, c.attempt]),
        toolResult: (r) => void seen.push(["toolResult", r.name, r.attempt]),
      },
    };
    const look = tool("look", { description: "Look.", input: { id: z.string() }, effects: "reads" }, ({ id }) => `order ${id}`);
    const pay = tool("pay", { description: "Pay.", input: { amount: z.number() }, effects: "changes" }, ({ amount }) => `paid ${amount}`);
    const desk = ai("desk", { description: "Pay.", input: { ask: z.string() }, tools: [look, pay] });
    const store = memoryStore();
    const lm = scripted([{ toolCalls: [{ name: "look", input: { id: "A-1" } }, { name: "pay", input: { amount: 5 } }] }, "paid"]);
    const sent = await desk.conversation("c", { store, lm, approve: "changes", plugins: [watch] }).send("pay 5").catch((e: unknown) => e);
    expect(sent).toBeInstanceOf(Waiting);
    const [turn] = await desk.conversation("c", { store, lm, plugins: [watch] }).turns();
    expect(await turn!.approve({ by: "maria" })).toBe("paid");
    expect(seen).toEqual([
      ["turnStart", "", 1],
      ["toolCall", "look", 1],
      ["toolCall", "pay", 1],
      // (the step waited for a person before any of its calls ran: the resumed run decides and runs them all)
      ["turnStart", "", 2],
      ["toolCall", "look", 2],
      ["toolCall", "pay", 2],
      ["toolResult", "look", 2],
      ["toolResult", "pay", 2],
    ]);
  });
});
