/**
 * Hunt: a row whose call throws a value that cannot be made a string (an
 * object without a prototype, one whose toString throws). DESIGN: "A row
 * whose call failed scores 0 on every metric and keeps its error; evaluate
 * itself only throws for bad arguments". Telling the error threw again, so
 * the whole run rejected with a bare TypeError (every row's result lost), and
 * a metric throwing it lost its `metric-failed` code.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { evaluate, program } from "../../src/index.js";

const odd = (): unknown[] => [
  Object.create(null),
  {
    toString: () => {
      throw new Error("no text");
    },
  },
];
const rows = [
  { q: "a", result: "x" },
  { q: "throw", result: "x" },
  { q: "c", result: "x" },
];

describe("a thrown value that cannot be made a string", () => {
  it("a call throwing it fails only its row ('error: …'); the run's other rows are scored", async () => {
    for (const thrown of odd()) {
      const p = program("p", { description: "Answers x.", input: { q: z.string() } }, async ({ q }) => {
        if (q === "throw") throw thrown;
        return "x";
      });
      const ev = await evaluate(p, rows, { concurrency: 1 });
      expect(ev.rows.map((r) => r.scores.exact_match)).toEqual([1, 0, 1]);
      expect(ev.rows[1]!.error).toMatch(/^error: \S/);
      expect(ev.rows[1]!.outputs).toBeNull();
    }
  });

  it("a metric throwing it fails its row with metric-failed", async () => {
    for (const thrown of odd()) {
      const p = program("p", { description: "Answers x.", input: { q: z.string() } }, async () => "x");
      const ev = await evaluate(p, rows, {
        metric: (row) => {
          if (row.q === "throw") throw thrown;
          return 1;
        },
      });
      expect(ev.rows.map((r) => r.scores.score)).toEqual([1, 0, 1]);
      expect(ev.rows[1]!.error).toMatch(/^metric-failed: metric score threw: \S/);
    }
  });
});
