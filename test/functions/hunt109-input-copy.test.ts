/**
 * Hunt 109: a call's input is checked when the call is made (its schema,
 * and that it is JSON), before any model call. What a schema passes through
 * as it is (`z.any()`, `z.unknown()`, a record's values of them) was kept as
 * the caller's own object, so a caller that went on changing it after the
 * call (a form's state, a reused request object) changed what the model was
 * shown, what a program's body got and what the turn's record kept, none of
 * it checked: a BigInt put in after the call reached the journal. The call
 * now keeps its input as it was when it was made (a copy, as a tool call's
 * input is read from one).
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai } from "../../src/functions/ai.js";
import { program } from "../../src/functions/program.js";
import { memoryStore, scripted } from "../../src/testing/index.js";

const answered = "<result>\nok\n</result>";

describe("an input the caller changes after the call", () => {
  it("an AI function: the model is shown the input as it was when the call was made", async () => {
    const quote = ai("quote", { description: "Quote.", input: { order_id: z.string(), extras: z.any() } });
    const lm = scripted([answered]);
    const extras = { amount: 5 };
    const call = quote({ order_id: "A-1042", extras }, { lm });
    extras.amount = 500;
    expect(await call).toBe("ok");
    const shown = lm.requests[0]!.messages.at(-1)!.content;
    expect(shown).toContain('{"amount":5}');
    expect(shown).not.toContain("500");
  });

  it("a program: its body gets the input as it was when the call was made", async () => {
    const seen: unknown[] = [];
    const route = program("route", { description: "Route.", input: { message: z.string(), meta: z.unknown() } }, async (input) => {
      await Promise.resolve();
      seen.push(input.meta);
      return "routed";
    });
    const meta: Record<string, unknown> = { tag: "refund" };
    const call = route({ message: "hi", meta });
    meta.tag = "vip";
    meta.big = 10n; // (never checked: it was put in after the call)
    expect(await call).toBe("routed");
    expect(seen).toEqual([{ tag: "refund" }]);
  });

  it("a conversation's turn keeps the input as it was sent", async () => {
    const quote = ai("quote", { description: "Quote.", input: { order_id: z.string(), extras: z.any() } });
    const store = memoryStore();
    const extras: Record<string, unknown> = { amount: 5 };
    const sent = quote.conversation("sam", { store, lm: scripted([answered]) }).send({ order_id: "A-1042", extras });
    extras.amount = 500;
    expect(await sent).toBe("ok");
    const turns = (await store.read("sam")).filter((r) => (r as { kind?: string }).kind === "turn");
    expect(turns.map((r) => (r as { inputs?: unknown }).inputs)).toEqual([{ order_id: "A-1042", extras: { amount: 5 } }]);
  });
});
