/**
 * What a turn handle shows (`inputs`, `waiting` approvals and their input,
 * `unfinished` tools' input, `value`) is the turn as its records say, not
 * the records themselves: a caller that changes what it was shown (a UI
 * that edits an approval's amount in place, code that normalizes inputs)
 * changes nothing kept. The README says as much of the approval an approve
 * function is shown ("a frozen copy: it cannot change what runs"). Before,
 * the handle's objects were the conversation log's own (and, with the
 * memory store, the store's): an approval's input changed in place failed
 * the approved turn for good when it went on ("a person approved it with
 * the input {"amount":500}"), inputs changed in place made the resumed turn
 * send another request (the recorded reply not found: the model paid again)
 * and a done turn's answer changed in place was shown to the model as the
 * conversation's history.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, memoryStore, Waiting } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { payDesk } from "./fixtures/pay-desk.js";

const desk = payDesk;

describe("a turn handle's data, changed by its caller", () => {
  it("an approval's input and the turn's inputs changed in place: the approved call runs as asked, nothing paid twice", async () => {
    const { d, paid } = desk();
    const store = memoryStore();
    const lm = scripted([{ toolCalls: [{ name: "pay", input: { amount: 5 } }] }, "paid"]);
    const chat = d.conversation("c", { store, lm, approve: "changes" });
    const waiting = await chat.send("pay 5").catch((e: unknown) => e);
    expect(waiting).toBeInstanceOf(Waiting);
    (waiting as Waiting).approvals[0]!.input = { amount: 1 }; // (replacing is the caller's own business)
    const [shown] = await chat.turns();
    (shown!.inputs as { ask: string }).ask = "pay 500";
    (shown!.waiting[0]!.input as { amount: number }).amount = 500;
    const [turn] = await chat.turns();
    expect(turn!.inputs).toEqual({ ask: "pay 5" });
    expect(turn!.waiting[0]!.input).toEqual({ amount: 5 });
    expect(await turn!.approve({ by: "maria" })).toBe("paid");
    expect(paid).toEqual([5]);
    expect(lm.requests).toHaveLength(2);
    expect(JSON.stringify(lm.requests[1]!.messages)).not.toContain("500");
  });

  it("a done turn's answer changed in place: the next turn is shown the answer as it was", async () => {
    const d = ai("desk", { description: "Answer.", input: { ask: z.string() }, output: z.object({ text: z.string() }) });
    const store = memoryStore();
    const lm = scripted(['<result>\n{"text":"A-1042 shipped"}\n</result>', '<result>\n{"text":"ok"}\n</result>']);
    const chat = d.conversation("c", { store, lm });
    expect(await chat.send("where is A-1042?")).toEqual({ text: "A-1042 shipped" });
    const [first] = await chat.turns();
    (first!.value as { text: string }).text = "tampered";
    expect((await chat.turns())[0]!.value).toEqual({ text: "A-1042 shipped" });
    await chat.send("thanks");
    const shown = JSON.stringify(lm.requests[1]!.messages);
    expect(shown).toContain("A-1042 shipped");
    expect(shown).not.toContain("tampered");
  });
});
