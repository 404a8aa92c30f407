/**
 * Hunt 34: a row that is there twice among labeled rows (a training set with a repeated question). labeledFewShot,
 * and bootstrapFewShot's labeled fill, showed it twice: two of `k` slots spent on one question, the model shown the
 * same exchange twice. As for recorded runs, a repeat (the same inputs) is shown once, at its first place.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { ai, bootstrapFewShot, labeledFewShot } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

const answer = ai("answer", { description: "Answer.", input: { question: z.string() } });
const rows = [
  { question: "a?", result: "A" },
  { question: "a?", result: "A" },
  { question: "b?", result: "B" },
  { question: "c?", result: "C" },
];
const questions = (demos: readonly { inputs: Record<string, unknown> }[]) => demos.map((d) => d.inputs.question).sort();

describe("a labeled row that is there twice", () => {
  it("labeledFewShot shows it once", () => {
    expect(questions(labeledFewShot(answer, rows, { k: 4 }).demos)).toEqual(["a?", "b?", "c?"]);
    for (let seed = 0; seed < 8; seed++) expect(new Set(questions(labeledFewShot(answer, rows, { k: 2, seed }).demos)).size).toBe(2);
  });

  it("bootstrapFewShot's labeled examples show it once", async () => {
    const teacher = scripted(Array.from({ length: 8 }, () => "<result>\nwrong\n</result>"));
    const better = await bootstrapFewShot(answer, rows, { teacher, maxBootstrapped: 1, maxLabeled: 4 });
    expect(questions(better.demos)).toEqual(["a?", "b?", "c?"]);
  });
});
