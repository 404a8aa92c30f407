/**
 * Hunt 33: an object output with an optional field, given field by field. A row that leaves the optional field
 * out (its cell empty: missing, or undefined) was no example at all: labeledFewShot refused every such row ("no
 * row has … an expected answer"), and bootstrapFewShot filled no labeled example from them. The answer the row
 * gives is whole: the call's output need not hold that field either.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { ai, bootstrapFewShot, labeledFewShot } from "../../src/index.js";

const triage = ai("triage", {
  description: "Sort the ticket.",
  input: { ticket: z.string() },
  output: z.object({ queue: z.string(), note: z.string().optional() }),
});

describe("labeled examples of an object output with an optional field", () => {
  it("a row without the optional field (missing or undefined) is an example, its answer without that field", () => {
    const better = labeledFewShot(triage, [
      { ticket: "charged twice", queue: "billing" },
      { ticket: "late", queue: "shipping", note: undefined },
      { ticket: "broken", queue: "returns", note: "photo attached" },
    ]);
    expect(better.demos.map((d) => d.outputs.result)).toEqual(
      expect.arrayContaining([{ queue: "billing" }, { queue: "shipping" }, { queue: "returns", note: "photo attached" }]),
    );
    expect(better.demos).toHaveLength(3);
  });

  it("a row without a required field is still no example", () => {
    expect(() => labeledFewShot(triage, [{ ticket: "late", note: "x" }])).toThrow(/no row has every required input/);
  });

  it("bootstrapFewShot fills its labeled examples from such rows (maxBootstrapped 0: no run)", async () => {
    const better = await bootstrapFewShot(triage, [{ ticket: "charged twice", queue: "billing" }], {
      maxBootstrapped: 0,
    });
    expect(better.demos.map((d) => d.outputs.result)).toEqual([{ queue: "billing" }]);
  });
});
