/**
 * Hunt 72: `labeledFewShot` leaves out a row that lacks a required input (it cannot be an example), but a row whose
 * input column holds `undefined` (an empty cell, as readers that keep every column write it; the expected columns
 * already read such a cell as no answer) refused the whole call, "row 1 has wrong inputs", naming one row of a data
 * set that had enough good rows. Such a row is now left out as a row without the column is.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { ai, labeledFewShot } from "../../src/index.js";

const answer = ai("answer", { description: "Answer the question.", input: { question: z.string(), context: z.string().optional() } });

describe("labeledFewShot and an empty input cell", () => {
  it("a row whose required input is undefined is left out, as a row without it is", () => {
    const rows = [
      { question: undefined, context: "x", result: "a" },
      { question: "Where is B-2210?", context: undefined, result: "Delivered." },
      { context: "y", result: "c" },
    ];
    const shown = labeledFewShot(answer, rows, { k: 4 });
    expect(shown.demos).toEqual([{ inputs: { question: "Where is B-2210?" }, outputs: { result: "Delivered." } }]);
  });

  it("a row whose required input holds a wrong value is still refused, naming it", () => {
    expect(() => labeledFewShot(answer, [{ question: 42, result: "a" }])).toThrow(
      expect.objectContaining({ code: "input-invalid", message: expect.stringContaining("row 1") }),
    );
  });
});
