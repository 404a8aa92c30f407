/**
 * `bootstrapFewShot` in a program's turn (a conversation whose rule asks a person about changing tools). Its runs
 * were each a turn of their own (`predict`): outside the turn's journal and outside its rule, so a row's changing
 * tool ran without anyone being asked, and when the turn went on after a later wait (the program run again from
 * its start), every row's model replies were paid again and its changing tool ran again. Now each run joins the
 * turn at a place of its row's own, as `evaluate`'s rows do: the rule asks about the row's tool (the turn waits),
 * and a turn that goes on finds each reply and each tool's result in its journal.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { ai, bootstrapFewShot, program, tool, Waiting, type LMRequest } from "../../src/index.js";
import { memoryStore, scripted } from "../../src/testing/index.js";

const refunds: string[] = [];
const refund = tool("refund", { description: "Refund the order.", input: { order: z.string() }, effects: "changes" }, ({ order }) => {
  refunds.push(order);
  return `refunded ${order}`;
});
const clerk = ai("clerk", { description: "Refund the order, then say what the tool said.", input: { order: z.string() }, tools: [refund] });
const sent: string[] = [];
const send = tool("send_note", { description: "Send a note.", input: { text: z.string() }, effects: "changes" }, ({ text }) => {
  sent.push(text);
  return "sent";
});
const notify = ai("notify", { description: "Send the note.", input: { text: z.string() }, tools: [send] });

/** Calls the tool its system prompt names with the order or text it was given, then says what the tool said. */
const model = () =>
  scripted(
    Array.from({ length: 50 }, () => (r: LMRequest) => {
      const last = r.messages.at(-1)!;
      if (last.role === "tool") return `<result>\n${last.content}\n</result>`;
      const system = r.messages[0]?.role === "system" ? r.messages[0].content : "";
      if (system.includes("Send the note")) return { toolCalls: [{ name: "send_note", input: { text: "tuned" } }] };
      const order = /<order>\n?([A-Z]-\d)/.exec(last.content)?.[1] ?? "?";
      return { toolCalls: [{ name: "refund", input: { order } }] };
    }),
  );

const rows = [
  { order: "A-1", result: "refunded A-1" },
  { order: "B-2", result: "refunded B-2" },
];

describe("bootstrapFewShot in a turn whose rule asks about changing tools", () => {
  it("asks about each run's tool, and a turn that goes on pays no reply twice and runs no tool twice", async () => {
    refunds.length = 0;
    sent.length = 0;
    const lm = model();
    const tune = program(
      "tune",
      { description: "Tunes the clerk, then says so.", input: { n: z.number() }, output: z.array(z.string()) },
      async (_input, ctx) => {
        const better = await bootstrapFewShot(clerk, rows, { maxBootstrapped: 2, maxLabeled: 0, concurrency: 2, signal: ctx.signal });
        await notify({ text: "tuned" });
        return better.demos.map(
          (d) => `${String(d.outputs.result)} after ${(d.steps ?? []).flatMap((s) => s.toolCalls.map((c) => c.name)).join(", ")}`,
        );
      },
    );
    const chat = tune.conversation("tune-1", { store: memoryStore(), lm, approve: "changes" });

    // the rule holds for the runs' tools: the turn waits for both refunds, none ran
    const first = await chat.send({ n: 1 }).catch((e: unknown) => e);
    expect(first).toBeInstanceOf(Waiting);
    expect((first as Waiting).approvals.map((a) => [a.name, a.path, a.input])).toEqual([
      ["refund", "tune/clerk/refund", { order: "A-1" }],
      ["refund", "tune/clerk/refund", { order: "B-2" }],
    ]);
    expect(refunds).toEqual([]);
    expect(lm.requests).toHaveLength(2);

    // approved: the runs go on from their kept replies, then the note waits
    const turn = (await chat.turns()).at(-1)!;
    const second = await turn.approve({ by: "maria" }).catch((e: unknown) => e);
    expect(second).toBeInstanceOf(Waiting);
    expect((second as Waiting).approvals.map((a) => a.name)).toEqual(["send_note"]);
    expect(refunds.sort()).toEqual(["A-1", "B-2"]);
    // two first replies, two answers after the refunds, the note's call: none asked for twice
    expect(lm.requests).toHaveLength(5);

    // approved again: the program runs from its start, every run found in the journal
    const again = await (await chat.turns()).at(-1)!.approve({ by: "maria" });
    // each example keeps its run's tool call
    expect(again).toEqual(["refunded A-1 after refund", "refunded B-2 after refund"]);
    expect(refunds.sort()).toEqual(["A-1", "B-2"]);
    expect(sent).toEqual(["tuned"]);
    // only the note's answer after its tool's result was paid
    expect(lm.requests).toHaveLength(6);
  });

  it("a signal that is not the turn's is refused before any model call (input-invalid)", async () => {
    refunds.length = 0;
    const lm = model();
    const foreign = new AbortController().signal;
    const tune = program("tune", { description: "Tunes the clerk.", input: { n: z.number() }, output: z.number() }, async () => {
      const better = await bootstrapFewShot(clerk, rows, { maxBootstrapped: 2, maxLabeled: 0, signal: foreign });
      return better.demos.length;
    });
    const got = await tune({ n: 1 }, { lm }).catch((e: unknown) => e);
    expect(got).toMatchObject({ code: "input-invalid" });
    expect(String((got as Error).message)).toMatch(/bootstrapFewShot was called inside tune#1 with a signal that is not the turn's/);
    expect(lm.requests).toHaveLength(0);
    expect(refunds).toEqual([]);
  });
});
