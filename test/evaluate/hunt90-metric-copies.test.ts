/**
 * Hunt 90: a metric is given copies of the row and of the prediction.
 *
 * A metric that changed what it was given (`prediction.result = …`, `delete row.answer`, an item pushed onto a
 * list of the answer) changed the row's recorded outputs (what `evaluate` gives back), the user's own row, what a
 * later metric of the same record saw, and `bootstrapFewShot`'s example made from the run. The outputs are what the
 * function returned; each metric reads a copy of its own.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { ai, bootstrapFewShot, evaluate, program } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

const lister = program(
  "lister",
  { description: "Lists the words of its question.", input: { q: z.string() }, output: z.object({ words: z.array(z.string()), count: z.number() }) },
  async ({ q }) => ({ words: q.split(" "), count: q.split(" ").length }),
);

/** A metric that scores, then changes everything it was given. */
const meddler = (row: Record<string, unknown>, p: Record<string, unknown>): number => {
  const words = (p.result as { words: string[] }).words;
  const score = words.length === row.n ? 1 : 0;
  words.push("extra");
  (p.words as string[]).push("more");
  p.count = 99;
  p.result = "replaced";
  row.q = "changed";
  delete row.n;
  return score;
};

describe("a metric that changes what it is given", () => {
  it("leaves the row's outputs as the function returned them, and the user's rows as they were", async () => {
    const rows = [
      { q: "a b", n: 2 },
      { q: "c d e", n: 3 },
    ];
    const ev = await evaluate(lister, rows, { metric: meddler });
    expect(ev.rows.map((r) => r.error)).toEqual([null, null]);
    expect(ev.rows.map((r) => r.scores.score)).toEqual([1, 1]);
    expect(ev.rows[0]!.outputs).toEqual({ result: { words: ["a", "b"], count: 2 }, words: ["a", "b"], count: 2 });
    expect(ev.rows[1]!.outputs).toEqual({ result: { words: ["c", "d", "e"], count: 3 }, words: ["c", "d", "e"], count: 3 });
    expect(rows).toEqual([
      { q: "a b", n: 2 },
      { q: "c d e", n: 3 },
    ]);
    expect(ev.rows[0]!.row).toEqual({ q: "a b", n: 2 });
  });

  it("does not change what the next metric of a record sees", async () => {
    const seen: unknown[] = [];
    const ev = await evaluate(lister, [{ q: "a b", n: 2 }], {
      metric: { first: meddler, second: (row, p) => (seen.push({ row: { ...row }, result: p.result, count: p.count }), 1) },
    });
    expect(ev.rows[0]!.error).toBeNull();
    expect(seen).toEqual([{ row: { q: "a b", n: 2 }, result: { words: ["a", "b"], count: 2 }, count: 2 }]);
  });

  it("does not change bootstrapFewShot's example made from the run", async () => {
    const fn = ai("tagger", { description: "Tags the text.", input: { text: z.string() }, output: z.object({ tags: z.array(z.string()) }) });
    const lm = scripted(Array.from({ length: 4 }, () => '<result>\n{"tags": ["x", "y"]}\n</result>'));
    const metric = (row: Record<string, unknown>, p: Record<string, unknown>): number => {
      (p.tags as string[]).push("z");
      row.text = "changed";
      return 1;
    };
    const better = await bootstrapFewShot(fn, [{ text: "hello" }], { teacher: lm, metric, maxBootstrapped: 1, maxLabeled: 1 });
    expect(better.demos.map((d) => ({ inputs: d.inputs, outputs: d.outputs }))).toEqual([
      { inputs: { text: "hello" }, outputs: { result: { tags: ["x", "y"] } } },
    ]);
  });
});
