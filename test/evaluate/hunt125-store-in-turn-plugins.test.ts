/**
 * `evaluate` with `store`, made in a program's turn whose plugins ask a person about a changing tool (a toolCall
 * hook answering `{ ask }`): each row is a one-turn conversation of the store, which took the turn's `approve`
 * (hunt 120) but not its plugins. The plugin was never shown the row's call: a row's refund ran unasked, and the
 * row scored as if nothing needed asking. A call made in the turn runs under the turn's plugins, so does a row's
 * conversation: its turn waits for a person, the row fails `turn-waiting`, and nothing ran.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { evaluate, program, type Plugin } from "../../src/index.js";
import { memoryStore, scripted } from "../../src/testing/index.js";
import { refundBrain, refundClerk } from "./fixtures/refund-clerk.js";

const { refunds, clerk } = refundClerk();
const brain = refundBrain;
const shown: string[] = [];
const asker: Plugin = {
  name: "refund-desk",
  version: "1",
  hooks: {
    toolCall: (call) => {
      shown.push(call.name);
      return call.name === "refund" ? { ask: "Refund this order?" } : undefined;
    },
  },
};

describe("evaluate with a store in a turn whose plugin asks about a changing tool", () => {
  it("the plugin is shown the row's call: the row's conversation waits, the refund does not run, the row fails", async () => {
    const lm = scripted(Array.from({ length: 10 }, () => brain));
    const nightly = program(
      "nightly",
      { description: "Measures the clerk.", input: { n: z.number() }, output: z.array(z.string().nullable()) },
      async () => {
        const ev = await evaluate(clerk.using({ lm }), [{ order: "A-1", result: "refunded A-1" }], { store: memoryStore() });
        return ev.rows.map((r) => r.error);
      },
    );
    const errors = await nightly.conversation("n-1", { store: memoryStore(), lm, plugins: [asker] }).send({ n: 1 });
    expect(shown).toEqual(["refund"]);
    expect(refunds).toEqual([]);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^turn-waiting: .*clerk\/refund/);
  });
});
