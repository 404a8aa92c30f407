/**
 * A call a program's body started and did not await, still under way when
 * the program returned (its model request sent): once the turn ended, its
 * next side effect is refused (`turn-state`): a changing tool it asks for
 * does not run, no further model request is sent in the ended turn's name,
 * and nothing is written after the turn's `ended` record.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, FunctaiError, program, tool, type LanguageModel } from "../../src/index.js";
import { memoryStore, scripted } from "../../src/testing/index.js";

const codeOf = (e: unknown) => (e instanceof FunctaiError ? e.code : String(e));

describe("a call under way when its program returned", () => {
  for (const where of ["a plain call", "a conversation"] as const)
    it(`${where}: the changing tool its reply asks for does not run once the turn ended`, async () => {
      const REFUNDS: string[] = [];
      const refund = tool("refund", { description: "Refund.", input: { order_id: z.string() }, effects: "changes" }, ({ order_id }) => {
        REFUNDS.push(order_id);
        return `refunded ${order_id}`;
      });
      const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [refund] });
      let open!: () => void;
      const gate = new Promise<void>((r) => (open = r));
      let settled!: (outcome: string) => void;
      const late = new Promise<string>((r) => (settled = r));
      const base = scripted([{ toolCalls: [{ name: "refund", input: { order_id: "A-1" } }] }, "done"]);
      const lm: LanguageModel = { ...base, generate: async (request, options) => (await gate, base.generate(request, options)) };
      const support = program("support", { description: "Route.", input: { message: z.string() } }, async ({ message }) => {
        desk(`${message} (follow-up)`).then((v) => settled(String(v)), (e: unknown) => settled(codeOf(e)));
        await new Promise((r) => setTimeout(r, 10)); // its model request is on its way
        return "routed";
      });
      const store = memoryStore();
      const answer = where === "a plain call" ? await support("go", { lm }) : await support.conversation("sam", { store, lm }).send("go");
      expect(answer).toBe("routed");
      open();
      expect(await late).toBe("turn-state");
      expect(REFUNDS).toEqual([]);
      expect(base.requests).toHaveLength(1); // the one sent before the program returned, no other
      if (where === "a conversation") {
        const kinds = (await store.read("sam")).map((r) => r.kind);
        expect(kinds.at(-1)).toBe("ended"); // nothing of the late call written after the turn's end
      }
    });
});
