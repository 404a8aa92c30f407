/**
 * `evaluate` with `store`, made in a program's turn whose rule asks a person about changing tools: each row is a
 * one-turn conversation of the store, and it was opened with configure's settings and the function's own only. The
 * turn's rule did not reach it: a row's refund ran unasked, and the row scored as if nothing needed asking. A call
 * made in the turn runs with the turn's approvals ("the same approvals as any call"): so does a row's conversation
 * (its turn waits for a person, so the row fails `turn-waiting` and nothing ran), unless the function's own layers
 * say who approves (nearest wins, as for a call).
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { evaluate, program } from "../../src/index.js";
import { memoryStore, scripted } from "../../src/testing/index.js";
import { refundBrain, refundClerk } from "./fixtures/refund-clerk.js";

const { refunds, clerk } = refundClerk();
const brain = refundBrain;
const model = () => scripted(Array.from({ length: 10 }, () => brain));
const rows = [{ order: "A-1", result: "refunded A-1" }];

/** A program that evaluates `fn` on the rows with a store and gives each row's error. */
const nightly = (fn: typeof clerk) =>
  program("nightly", { description: "Measures the clerk.", input: { n: z.number() }, output: z.array(z.string().nullable()) }, async () => {
    const ev = await evaluate(fn, rows, { store: memoryStore() });
    return ev.rows.map((r) => r.error);
  });

describe("evaluate with a store in a turn whose rule asks about changing tools", () => {
  it("a row's changing tool is not run unasked: its conversation waits, and the row fails", async () => {
    refunds.length = 0;
    const lm = model();
    const errors = await nightly(clerk.using({ lm })).conversation("n-1", { store: memoryStore(), lm, approve: "changes" }).send({ n: 1 });
    expect(refunds).toEqual([]);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^turn-waiting: .*clerk\/refund/);

    // the function's own approve is nearer than the turn's, as for a call made in the turn
    refunds.length = 0;
    const own = model();
    const ownErrors = await nightly(clerk.using({ lm: own, approve: () => true }))
      .conversation("n-3", { store: memoryStore(), lm: own, approve: "changes" })
      .send({ n: 1 });
    expect(ownErrors).toEqual([null]);
    expect(refunds).toEqual(["A-1"]);
  });

  it("the turn's approve function is asked about the row's call", async () => {
    refunds.length = 0;
    const asked: string[] = [];
    const lm = model();
    const approve = (a: { name: string }) => {
      asked.push(a.name);
      return "not in a test run";
    };
    const errors = await nightly(clerk.using({ lm })).conversation("n-2", { store: memoryStore(), lm, approve }).send({ n: 1 });
    expect(asked).toEqual(["refund"]);
    expect(refunds).toEqual([]);
    // refused: the model is told so, and its answer is not the expected one (the row answered, and scored 0)
    expect(errors).toEqual([null]);
  });
});
