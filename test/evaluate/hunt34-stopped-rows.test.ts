/**
 * Hunt 34: a run stopped by its signal lost every row it had finished.
 *
 * `evaluate` rejects `turn-aborted` saying how many rows were done, but their results (each one a paid model call)
 * were nowhere: a host that stops a long run (a deadline, a user's cancel) had to run every row again. The error now
 * carries `evaluation`: an `Evaluation` of the rows that finished before the stop (their outputs, scores, errors and
 * the summary over them), in row order; a row the stop cut short is not in it (its 0 would pull the mean down).
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { evaluate, FunctaiError, program, type Evaluation } from "../../src/index.js";

/** Answers a `fast` question at once; any other waits until its call is stopped. */
function desk() {
  const started: string[] = [];
  const fn = program("echo", { description: "Echo.", input: { q: z.string() }, output: z.string() }, async ({ q }, ctx) => {
    started.push(q);
    if (q.startsWith("fast")) return q.toUpperCase();
    await new Promise<void>((_, reject) => ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason), { once: true }));
    return "never";
  });
  return { fn, started };
}

const stoppedWith = async (run: Promise<unknown>): Promise<FunctaiError & { evaluation?: Evaluation }> => {
  const e = await run.then(
    () => null,
    (error: unknown) => error,
  );
  expect(e).toBeInstanceOf(FunctaiError);
  return e as FunctaiError & { evaluation?: Evaluation };
};

describe("evaluate stopped by its signal keeps the rows it finished", () => {
  it("the turn-aborted error carries an Evaluation of the finished rows (outputs, scores, summary); rows cut short are left out", async () => {
    const { fn, started } = desk();
    const rows = [
      { q: "fast one", result: "FAST ONE" },
      { q: "slow two", result: "SLOW TWO" },
      { q: "fast three", result: "wrong" },
      { q: "fast four", result: "FAST FOUR" },
      { q: "slow five", result: "x" },
    ];
    const controller = new AbortController();
    const run = evaluate(fn, rows, {
      concurrency: 8,
      signal: controller.signal,
      onProgress: (p) => {
        if (p.done === 3) controller.abort(new Error("enough"));
      },
    });
    const e = await stoppedWith(run);
    expect(e.code).toBe("turn-aborted");
    expect(e.message).toMatch(/after 3 of 5 rows/);
    expect(started).toHaveLength(5);
    const ev = e.evaluation!;
    expect(ev).toBeDefined();
    expect(ev.rows.map((r) => r.row)).toEqual([rows[0], rows[2], rows[3]]);
    expect(ev.rows.map((r) => r.outputs?.result)).toEqual(["FAST ONE", "FAST THREE", "FAST FOUR"]);
    expect(ev.rows.map((r) => r.scores.exact_match)).toEqual([1, 0, 1]);
    expect(ev.rows.every((r) => r.error === null)).toBe(true);
    expect(ev.metrics).toEqual(["exact_match"]);
    expect(ev.score).toBeCloseTo(2 / 3, 12);
    expect(ev.summary[0]).toMatchObject({ metric: "exact_match", n: 3, failed: 0 });
    expect(ev.run).toMatch(/^ev-/);
    expect(e.message).toContain(ev.run);
  });

  it("stopped before any row ended: an Evaluation of no rows (nothing is made up)", async () => {
    const { fn } = desk();
    const controller = new AbortController();
    const run = evaluate(fn, [{ q: "slow", result: "x" }], { signal: controller.signal });
    setTimeout(() => controller.abort(new Error("enough")), 20);
    const e = await stoppedWith(run);
    expect(e.code).toBe("turn-aborted");
    expect(e.evaluation).toMatchObject({ rows: [], score: null, low: null, high: null });
    expect(e.message).toMatch(/after 0 of 1 rows/);
  });

  it("a row that failed on its own before the stop is kept, with its error", async () => {
    const fn = program("picky", { description: "Echo.", input: { q: z.string() }, output: z.string() }, async ({ q }, ctx) => {
      if (q === "bad") throw new Error("no such thing");
      if (q === "ok") return "ok";
      await new Promise<void>((_, reject) => ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason), { once: true }));
      return "never";
    });
    const controller = new AbortController();
    const rows = [
      { q: "bad", result: "x" },
      { q: "ok", result: "ok" },
      { q: "slow", result: "x" },
    ];
    const run = evaluate(fn, rows, {
      signal: controller.signal,
      onProgress: (p) => {
        if (p.done === 2) controller.abort(new Error("enough"));
      },
    });
    const ev = (await stoppedWith(run)).evaluation!;
    expect(ev.rows.map((r) => r.row)).toEqual([rows[0], rows[1]]);
    expect(ev.rows[0]!.error).toMatch(/no such thing/);
    expect(ev.summary[0]).toMatchObject({ n: 2, failed: 1, mean: 0.5 });
  });
});
