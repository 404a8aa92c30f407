/** evaluate and bootstrapFewShot at the edges: odd options, odd rows, odd metric names, a metric that never answers. */
import { describe, expect, it } from "vitest";
import { bootstrapFewShot, compare, evaluate, labeledFewShot, meanRange, type Metric } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { rows, status, teacher } from "./desk.js";

describe("options that are not what they say are refused up front", () => {
  it("null options, a signal that is no AbortSignal, a store that is no store: input-invalid, nothing sent", async () => {
    const lm = teacher();
    const fn = status.using({ lm });
    for (const options of [null, "fast", { signal: "stop" }, { signal: {} }, { store: 42 }, { store: {} }, { store: "" }]) {
      await expect(evaluate(fn, rows.slice(0, 1), options as never)).rejects.toMatchObject({ code: "input-invalid" });
      await expect(bootstrapFewShot(fn, rows.slice(0, 1), options as never)).rejects.toMatchObject({ code: "input-invalid" });
    }
    // bootstrapFewShot keeps no store: given one, it says so rather than ignoring it
    await expect(bootstrapFewShot(fn, rows.slice(0, 1), { store: "evals/" } as never)).rejects.toMatchObject({ code: "input-invalid", message: expect.stringMatching(/no store/) });
    expect(lm.requests).toHaveLength(0);
  });

  it("bootstrapFewShot words a bad concurrency as evaluate does (a whole number ≥ 1)", async () => {
    for (const concurrency of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      await expect(bootstrapFewShot(status, rows, { concurrency })).rejects.toMatchObject({ code: "input-invalid", message: expect.stringContaining("whole number ≥ 1") });
      await expect(evaluate(status, rows, { concurrency })).rejects.toMatchObject({ code: "input-invalid", message: expect.stringContaining("whole number ≥ 1") });
    }
  });
});

describe("rows", () => {
  it("a row without a prototype (as CSV readers make them) is a row; a class instance is refused, naming what it is", async () => {
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, rows[0]);
    const ev = await evaluate(status.using({ lm: teacher() }), [bare]);
    expect(ev.score).toBe(1);
    expect(labeledFewShot(status, [bare]).demos).toEqual([{ inputs: { question: rows[0]!.question }, outputs: { result: rows[0]!.result } }]);
    await expect(evaluate(status, [new Map([["question", "q"]])] as never)).rejects.toMatchObject({ code: "input-invalid", message: expect.stringContaining("row 1 is not a record of columns (it is a Map instance)") });
  });

  it("an expected column holding undefined names no answer: refused without a metric, never scored 0 unseen", async () => {
    const lm = teacher();
    const empty = [rows[0]!, { question: rows[1]!.question, result: undefined }];
    await expect(evaluate(status.using({ lm }), empty)).rejects.toMatchObject({ code: "input-invalid", message: expect.stringContaining("row 2 has no expected column") });
    expect(lm.requests).toHaveLength(0);
  });

  it("labeledFewShot leaves out a row whose answer is undefined: its state survives JSON", () => {
    const shown = labeledFewShot(status, [rows[0]!, { question: "What is the status of Z-0000?", result: undefined }]);
    expect(shown.demos).toEqual([{ inputs: { question: rows[0]!.question }, outputs: { result: rows[0]!.result } }]);
    const again = status.withState(JSON.parse(JSON.stringify(shown.state())));
    expect(again.demos).toEqual(shown.demos);
  });
});

const isRight: Metric = (row, p) => p.result === row.result;

describe("metric names are only names", () => {
  it("a metric named constructor: a failed row scores 0 on it, the summary is a number", async () => {
    const lm = scripted(["<result>\nstuck at the carrier\n</result>", new Error("model down") as never]);
    const ev = await evaluate(status.using({ lm }), rows.slice(0, 2), { concurrency: 1, metric: Object.fromEntries([["constructor", isRight]]) });
    expect(ev.metrics).toEqual(["constructor"]);
    expect(ev.rows.map((r) => r.scores.constructor)).toEqual([1, 0]);
    expect(ev.summary).toEqual([{ metric: "constructor", ...meanRange([1, 0]), n: 2, failed: 1 }]);
    const delta = compare(ev, ev);
    expect(delta).toMatchObject([{ metric: "constructor", before: 0.5, after: 0.5, n: 2, same: 2 }]);
  });

  it("a metric giving a score named __proto__ keeps it as a score, not dropped", async () => {
    const ev = await evaluate(status.using({ lm: teacher() }), rows.slice(0, 2), { metric: () => JSON.parse('{"__proto__": 1, "short": 0}') as Record<string, number> });
    expect(ev.metrics).toEqual(["__proto__", "short"]);
    expect(ev.rows.map((r) => Object.keys(r.scores))).toEqual([["__proto__", "short"], ["__proto__", "short"]]);
    expect(ev.score).toBe(1);
  });
});

describe("a metric that never answers", () => {
  const never = () => new Promise<number>(() => {});
  const within = <T>(p: Promise<T>, ms: number): Promise<T | "still waiting"> => Promise.race([p, new Promise<"still waiting">((r) => setTimeout(() => r("still waiting"), ms))]);

  it("evaluate: the signal still stops the run (turn-aborted), it does not wait forever", async () => {
    const controller = new AbortController();
    const run = evaluate(status.using({ lm: teacher() }), rows.slice(0, 2), { signal: controller.signal, metric: never });
    run.catch(() => {});
    setTimeout(() => controller.abort(new Error("enough")), 30);
    await expect(within(run, 1000)).rejects.toMatchObject({ code: "turn-aborted" });
  });

  it("bootstrapFewShot: the signal still stops it (turn-aborted)", async () => {
    const controller = new AbortController();
    const run = bootstrapFewShot(status.using({ lm: teacher() }), rows.slice(0, 2), { signal: controller.signal, metric: never });
    run.catch(() => {});
    setTimeout(() => controller.abort(new Error("enough")), 30);
    await expect(within(run, 1000)).rejects.toMatchObject({ code: "turn-aborted" });
  });
});

describe("a state is JSON or it is refused", () => {
  it("a BigInt or a cycle in an example: input-invalid naming the row (labeledFewShot) or the example (withState), not a bare TypeError", () => {
    const cycle: Record<string, unknown> = { a: 1 };
    cycle.self = cycle;
    for (const result of [10n, cycle]) {
      expect(() => labeledFewShot(status, [rows[0]!, { question: "q", result }])).toThrow(expect.objectContaining({ code: "input-invalid", message: expect.stringContaining("row 2 is not JSON") }));
      expect(() => status.withState({ instructions: "x", demos: [{ inputs: { question: "q" }, outputs: { result } }] })).toThrow(expect.objectContaining({ code: "input-invalid", message: expect.stringContaining("example 1 is not JSON") }));
    }
  });

  it("an example whose result is undefined is refused: saved, it would not load again", () => {
    expect(() => status.withState({ instructions: "x", demos: [{ inputs: { question: "q" }, outputs: { result: undefined } }] })).toThrow(expect.objectContaining({ code: "input-invalid", message: expect.stringContaining("outputs needs result") }));
  });
});
