import { expect, it } from "vitest";
import { z } from "zod";
import { ai, Waiting } from "../../src/index.js";
import { memoryStore, scripted } from "../../src/testing/index.js";
import { deskTools, echoLast } from "../engine/fixtures.js";
it("a plugin's own question in a conversation: the turn waits with it (plugin, question), another handle answers it", async () => {
  const t = deskTools();
  const desk = ai("desk", { description: "d", input: { q: z.string() }, tools: [t.refund] });
  const vip = { name: "vip", version: "1", hooks: { toolCall: () => ({ ask: "VIP?" }) } };
  const lm = scripted([{ toolCalls: [{ name: "refund", input: { order_id: "A", amount: 1 } }] }, echoLast]);
  const store = memoryStore();
  const err = await desk.conversation("c", { store, lm, plugins: [vip] }).send("go").catch((e: unknown) => e);
  expect(err).toBeInstanceOf(Waiting);
  expect((err as Waiting).approvals.map((a) => [a.id, a.plugin, a.question])).toEqual([["desk#1:1:vip", "vip", "VIP?"]]);
  const [turn] = await desk.conversation("c", { store, lm, plugins: [vip] }).turns();
  expect(await turn!.approve({ by: "m" })).toBe("saw: refunded 1 for A");
  expect(t.REFUNDS).toEqual([["A", 1]]);
});
