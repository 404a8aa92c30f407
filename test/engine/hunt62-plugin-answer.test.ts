/**
 * A plugin's `toolCall` hook asks a person (`{ ask }`), and the person says
 * no. DESIGN (journal): "an approval finds its answer" on resume; the engine
 * holds that a person's recorded answer stands whoever resumes the turn, with
 * whatever settings. A person often answers from a handle opened elsewhere
 * (an admin page with only a store and a model): there the plugin is not
 * configured, nobody asks its question again, and its recorded "no" was never
 * read: the refund the person refused ran.
 */
import { describe, expect, it } from "vitest";
import { Waiting, type Plugin } from "../../src/index.js";
import { memoryStore, scripted } from "../../src/testing/index.js";
import { amountDesk, toolResults } from "./fixtures.js";

function desk() {
  const { fn, REFUNDS } = amountDesk();
  // asks a person about big refunds
  const guard: Plugin = {
    name: "guard",
    version: "1",
    hooks: { toolCall: (c) => ((c.input as { amount: number }).amount > 100 ? { ask: "A big refund: allow it?" } : undefined) },
  };
  const lm = scripted([{ toolCalls: [{ name: "refund", input: { amount: 500 } }] }, (r) => `told: ${r.messages.at(-1)!.content}`]);
  return { fn, guard, lm, REFUNDS };
}

describe("a person's no to a plugin's question, the turn resumed where that plugin is not given", () => {
  it("deny from a handle with only a store and a model: the refund never runs, the model is told the reason", async () => {
    const { fn, guard, lm, REFUNDS } = desk();
    const store = memoryStore();
    const waiting = await fn
      .conversation("sam", { store, lm, plugins: [guard] })
      .send("Refund 500.")
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(waiting).toBeInstanceOf(Waiting);
    expect((waiting as Waiting).approvals.map((a) => a.plugin)).toEqual(["guard"]);

    const turn = (await fn.conversation("sam", { store, lm }).turns()).at(-1)!;
    expect(await turn.deny({ reason: "over the limit", by: "maria" })).toBe("told: The person did not allow this call. Reason: over the limit");
    expect(REFUNDS).toEqual([]);
    expect(toolResults(lm.requests[1])).toEqual([["refund", "The person did not allow this call. Reason: over the limit"]]);
  });

  it("a yes from such a handle lets it run (the answer given is the one that counts)", async () => {
    const { fn, guard, lm, REFUNDS } = desk();
    const store = memoryStore();
    await expect(fn.conversation("sam", { store, lm, plugins: [guard] }).send("Refund 500.")).rejects.toBeInstanceOf(Waiting);
    const turn = (await fn.conversation("sam", { store, lm }).turns()).at(-1)!;
    expect(await turn.approve({ by: "maria" })).toBe("told: refunded 500");
    expect(REFUNDS).toEqual([500]);
  });
});
