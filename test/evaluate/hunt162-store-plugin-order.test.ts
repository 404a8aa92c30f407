/**
 * Hunt 162 ("plugin order", left open): `evaluate` with `store`, made in a program's turn, runs each row in a
 * conversation of its own under the turn's plugins (hunt 125). Plugins run outermost first: a call in the turn runs
 * the turn's before the function's own. The row's conversation was given the turn's plugins as its own settings,
 * which a conversation lays over the function's, so the function's plugin ran first (a redacting or asking plugin of
 * the turn saw what the function's had already changed). A row's call with a store now runs them in a call's order.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { evaluate, program, type Plugin } from "../../src/index.js";
import { memoryStore, scripted } from "../../src/testing/index.js";
import { refundBrain, refundClerk } from "./fixtures/refund-clerk.js";

describe("evaluate with a store in a turn: the order its plugins run in", () => {
  it("is a call's in the turn: the turn's plugin before the function's own", async () => {
    const seen: string[] = [];
    const noting = (name: string): Plugin => ({
      name,
      version: "1",
      hooks: {
        toolCall: () => {
          seen.push(name);
          return undefined;
        },
      },
    });
    const { clerk, refunds } = refundClerk();
    const own = clerk.using({ plugins: [noting("clerk-desk")] });
    const lm = scripted(Array.from({ length: 4 }, () => refundBrain));
    const orders: Record<string, string[]> = {};
    for (const [how, store] of [
      ["plain", undefined],
      ["stored", memoryStore()],
    ] as const) {
      seen.length = 0;
      const nightly = program(
        "nightly",
        { description: "Measures the clerk.", input: { n: z.number() }, output: z.array(z.string().nullable()) },
        async () => {
          const ev = await evaluate(own, [{ order: "A-1", result: "refunded A-1" }], store === undefined ? {} : { store });
          return ev.rows.map((r) => r.error);
        },
      );
      const chat = nightly.conversation(`n-${how}`, { store: memoryStore(), lm, approve: () => true, plugins: [noting("turn-desk")] });
      expect(await chat.send({ n: 1 })).toEqual([null]);
      orders[how] = [...seen];
    }
    expect(orders.plain).toEqual(["turn-desk", "clerk-desk"]);
    expect(orders.stored).toEqual(orders.plain);
    expect(refunds).toEqual(["A-1", "A-1"]);
  });
});
