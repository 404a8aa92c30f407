/** Runs of many rows: every row gets the settings the run started with, every score keeps its name, maxLabeled as DESIGN words it. */
import { describe, expect, it } from "vitest";
import { bootstrapFewShot, evaluate, withSettings, type Metric } from "../../src/index.js";
import { rows, status, teacher } from "./desk.js";

describe("a withSettings block around a run reaches every row", () => {
  it("evaluate: rows started after the run's first await use the block's model too", async () => {
    const lm = teacher();
    // 6 rows, 2 at once: rows 3–6 start after awaits, when the block has closed
    const ev = await withSettings({ lm }, () => evaluate(status, rows, { concurrency: 2 }));
    expect(ev.rows.map((r) => r.error)).toEqual(rows.map(() => null));
    expect(ev.score).toBe(1);
  });

  it("evaluate with a store: each row's conversation takes the block's settings", async () => {
    const lm = teacher();
    const { memoryStore } = await import("../../src/testing/index.js");
    const ev = await withSettings({ lm }, () => evaluate(status, rows, { concurrency: 1, store: memoryStore() }));
    expect(ev.rows.map((r) => r.error)).toEqual(rows.map(() => null));
  });

  it("bootstrapFewShot: every run uses the block's model, so later rows can pass", async () => {
    const lm = teacher();
    const better = await withSettings({ lm }, () => bootstrapFewShot(status, rows, { concurrency: 1, maxBootstrapped: 4, maxLabeled: 4 }));
    expect(better.demos).toHaveLength(4);
    expect(better.demos.every((d) => (d.steps?.length ?? 0) > 0)).toBe(true);
  });

  it("the block is not made nearer than the function's own settings", async () => {
    const own = teacher();
    const block = teacher();
    await withSettings({ lm: block }, () => evaluate(status.using({ lm: own }), rows, { concurrency: 1 }));
    expect(own.requests.length).toBeGreaterThan(0);
    expect(block.requests).toHaveLength(0);
  });
});

describe("a metric named __proto__ keeps its score", () => {
  it("a record of metrics whose name is __proto__, giving a number: scored, not dropped", async () => {
    const isRight: Metric = (row, p) => p.result === row.result;
    const ev = await evaluate(status.using({ lm: teacher() }), rows.slice(0, 2), { metric: Object.fromEntries([["__proto__", isRight]]) });
    expect(ev.metrics).toEqual(["__proto__"]);
    expect(ev.rows.map((r) => Object.getOwnPropertyDescriptor(r.scores, "__proto__")?.value)).toEqual([1, 1]);
    expect(ev.score).toBe(1);
  });
});

describe("maxLabeled below maxBootstrapped (DESIGN: labeled rows are maxLabeled minus the recorded ones)", () => {
  it("recorded runs are kept up to maxBootstrapped; no labeled row is added", async () => {
    const better = await bootstrapFewShot(status, rows, { teacher: teacher(), maxBootstrapped: 4, maxLabeled: 2, concurrency: 1 });
    expect(better.demos.map((d) => d.inputs.question)).toEqual(rows.slice(0, 4).map((r) => r.question));
    expect(better.demos.every((d) => (d.steps?.length ?? 0) > 0)).toBe(true);
  });

  it("above the recorded ones, labeled rows fill up to maxLabeled", async () => {
    const better = await bootstrapFewShot(status, rows, { teacher: teacher(), maxBootstrapped: 1, maxLabeled: 3, concurrency: 1 });
    expect(better.demos).toHaveLength(3);
    expect(better.demos[0]!.steps?.length).toBeGreaterThan(0);
    expect(better.demos.slice(1).every((d) => d.steps === undefined && d.inputs.question !== rows[0]!.question)).toBe(true);
  });
});
