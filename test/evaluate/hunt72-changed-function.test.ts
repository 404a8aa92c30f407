/**
 * Hunt 72: `evaluate` with a `store`, in a program's turn, keys each row's conversation by the run's place in the
 * turn (`<run>-<n>`, sent with that key), so the turn run again (after a person's answer, or a crash) finds the rows
 * it paid for. When the function evaluated had changed meanwhile (a deploy between the first run and the resume: new
 * instructions, or worked examples loaded from an optimizer's saved state), the rows answered from the old
 * function's turns: the run reported the old function's scores as the new one's. The same run without a store
 * (journaled in the turn, each reply found by its request) calls the changed function again. Decision: a changed
 * function is evaluated again, with or without a store (an evaluation measures the function it was given); the run
 * id names the function's version (its interface and worked examples), so the same function's rows are still found
 * and nothing is paid twice.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { ai, labeledFewShot } from "../../src/index.js";
import { nightlyResumed, reportModel, rowsOf } from "./fixtures/report-turn.js";

const rows = rowsOf(["alpha", "bravo", "charlie"]);

/** Echoes the word; told to shout (in the instructions) or shown a worked example, it answers in capitals, with a "!". */
const model = () =>
  reportModel((word, r) =>
    JSON.stringify(r.messages).includes("SHOUT") || r.messages.filter((m) => m.role === "user").length > 1 ? `${word.toUpperCase()}!` : word,
  );

const plain = ai("echo", { description: "Say the word back.", input: { q: z.string() } });
type Echo = typeof plain;

/** The nightly run (fixtures/report-turn.ts), the rows run on `changed(lm)` once it waits. */
const resumedWith = (changed: (lm: ReturnType<typeof model>) => Echo) => {
  const lm = model();
  return nightlyResumed(lm, plain.using({ lm }), rows, changed);
};

describe("evaluate with a store, in a turn run again after the function changed", () => {
  it("new instructions: the rows are the changed function's answers (called again), in a run of their own", async () => {
    const { lm, scores, runs, store } = await resumedWith((lm) =>
      ai("echo", { description: "Say the word back. SHOUT it.", input: { q: z.string() } }).using({ lm }),
    );
    expect(scores).toEqual([0, 0, 0]); // the changed function shouts: no row matches (the old turns said 1, 1, 1)
    expect(lm.requests).toHaveLength(8); // the three rows again, and the report's answer
    expect(runs[1]).not.toBe(runs[0]);
    // the first run's rows are kept as they were, each once
    for (let n = 1; n <= 3; n++) expect(await plain.conversation(`${runs[0]}-${n}`, { store }).turns()).toHaveLength(1);
  });

  it("worked examples loaded (the same interface, another state): called again", async () => {
    const { lm, scores, runs } = await resumedWith((lm) => labeledFewShot(plain, [{ q: "delta", result: "DELTA" }], { k: 1 }).using({ lm }));
    expect(scores).toEqual([0, 0, 0]);
    expect(lm.requests).toHaveLength(8);
    expect(runs[1]).not.toBe(runs[0]);
  });

  it("the same function (another handle of it): found again, nothing paid twice", async () => {
    const { lm, scores, runs } = await resumedWith((lm) => plain.using({ lm }));
    expect(scores).toEqual([1, 1, 1]);
    expect(lm.requests).toHaveLength(5);
    expect(runs[1]).toBe(runs[0]);
  });
});
