/**
 * Hunt 42: a host's `onProgress` that throws (its page is gone, its save failed) stops the run, and `evaluate` rejects
 * with that error once the running rows end (README). Every row finished by then was a paid call, and they were lost:
 * the error held nothing of them, where a run stopped by its signal keeps them (hunt 34, the `turn-aborted` error's
 * `evaluation`). The callback's error now carries them the same way (`evaluation`, not enumerable; `demos` for
 * `bootstrapFewShot`). A thrown value that cannot carry them (a string, a frozen error) is given as the `cause` of a
 * `turn-aborted` error that does.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { ai, bootstrapFewShot, evaluate, FunctaiError, type Demo, type Evaluation } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

const echo = ai("echo", { description: "Say ok.", input: { q: z.string() } });
const data = Array.from({ length: 6 }, (_, i) => ({ q: `q${i}`, result: i === 1 ? "no" : "ok" }));
const model = () => scripted(Array.from({ length: 20 }, () => "<result>\nok\n</result>"));

const rejection = async (run: Promise<unknown>): Promise<unknown> =>
  run.then(
    () => {
      throw new Error("the run did not reject");
    },
    (e: unknown) => e,
  );

/** What `evaluate` rejects with when its onProgress throws `thrown` once `at` rows are done; and its model. */
async function evaluateThrowing(at: number, thrown: unknown, concurrency = 1) {
  const lm = model();
  const onProgress = (p: { done: number }): void => {
    if (p.done === at) throw thrown;
  };
  const e = (await rejection(evaluate(echo.using({ lm }), data, { concurrency, onProgress }))) as FunctaiError & { evaluation?: Evaluation };
  return { lm, e };
}

/** What `bootstrapFewShot` rejects with when its onProgress throws `thrown` once `at` rows are done; and its teacher. */
async function bootstrapThrowing(at: number, thrown: unknown) {
  const lm = model();
  const onProgress = (p: { done: number }): void => {
    if (p.done === at) throw thrown;
  };
  const e = (await rejection(bootstrapFewShot(echo, data, { teacher: lm, maxBootstrapped: 6, concurrency: 1, onProgress }))) as FunctaiError & {
    demos?: Demo[];
  };
  return { lm, e };
}

describe("evaluate whose onProgress throws keeps the rows it finished", () => {
  it("rejects with the callback's error, which carries the finished rows as its evaluation", async () => {
    const saved = new Error("could not save the progress");
    const { lm, e } = await evaluateThrowing(3, saved);
    expect(e).toBe(saved);
    expect(lm.requests).toHaveLength(3);
    const ev = e.evaluation!;
    expect(ev).toBeDefined();
    expect(ev.rows.map((r) => r.row)).toEqual(data.slice(0, 3));
    expect(ev.rows.map((r) => r.scores.exact_match)).toEqual([1, 0, 1]);
    expect(ev.score).toBeCloseTo(2 / 3, 12);
    expect(ev.summary[0]).toMatchObject({ metric: "exact_match", n: 3, failed: 0 });
    expect(ev.run).toMatch(/^ev-/);
    // not enumerable: a logged error does not print every row
    expect(Object.keys(e)).not.toContain("evaluation");
  });

  it("rows still running when it threw end first, and are kept too", async () => {
    const saved = new Error("page gone");
    const { lm, e } = await evaluateThrowing(1, saved, 3);
    expect(e).toBe(saved);
    expect(e.evaluation!.rows).toHaveLength(lm.requests.length);
    expect(e.evaluation!.rows.length).toBeGreaterThanOrEqual(1);
  });

  it.each([
    ["a string", () => "disk full"],
    ["a frozen error", () => Object.freeze(new Error("frozen"))],
  ])("a thrown value that cannot carry them (%s) is the cause of a turn-aborted error that does", async (_, thrown) => {
    const value = thrown();
    const { e } = await evaluateThrowing(2, value);
    expect(e).toBeInstanceOf(FunctaiError);
    expect(e.code).toBe("turn-aborted");
    expect(e.cause).toBe(value);
    expect(e.message).toMatch(/onProgress threw/);
    expect(e.message).toMatch(/after 2 of 6 rows/);
    expect(e.evaluation!.rows.map((r) => r.row)).toEqual(data.slice(0, 2));
  });

  it("an error that already has an evaluation of its own (a nested run's) keeps it, and is the cause", async () => {
    const nested = Object.assign(new Error("nested"), { evaluation: "theirs" });
    const { e } = await evaluateThrowing(1, nested);
    expect(nested.evaluation).toBe("theirs");
    expect(e.cause).toBe(nested);
    expect(e.evaluation!.rows).toHaveLength(1);
  });
});

describe("bootstrapFewShot whose onProgress throws keeps the runs that passed", () => {
  it("rejects with the callback's error, which carries them as its demos", async () => {
    const saved = new Error("could not save the progress");
    const { lm, e } = await bootstrapThrowing(3, saved);
    expect(e).toBe(saved);
    expect(lm.requests).toHaveLength(3);
    // row 2 (q1) expected "no": its run did not pass
    expect(e.demos!.map((d) => d.inputs.q)).toEqual(["q0", "q2"]);
    expect(Object.keys(e)).not.toContain("demos");
    // they are examples withState takes
    expect(echo.withState({ instructions: echo.state().instructions, demos: e.demos! }).demos).toHaveLength(2);
  });

  it("a thrown string is the cause of a turn-aborted error holding the demos", async () => {
    const { e } = await bootstrapThrowing(1, "disk full");
    expect(e).toBeInstanceOf(FunctaiError);
    expect(e).toMatchObject({
      code: "turn-aborted",
      cause: "disk full",
      message: expect.stringMatching(/after 1 of 6 rows: onProgress threw disk full/),
    });
    expect(e.demos!.map((d) => d.inputs.q)).toEqual(["q0"]);
  });
});
