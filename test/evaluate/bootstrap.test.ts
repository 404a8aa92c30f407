/** bootstrapFewShot's choices: which runs pass, when it stops, what it fills with, and how it is stopped. */
import { describe, expect, it } from "vitest";
import { bootstrapFewShot, type Progress } from "../../src/index.js";
import { rows, status, student, teacher } from "./desk.js";

describe("bootstrapFewShot", () => {
  it("runs rows in order and stops starting new ones once maxBootstrapped passed", async () => {
    const lm = teacher();
    const progress: Progress[] = [];
    const better = await bootstrapFewShot(status, rows, { teacher: lm, maxBootstrapped: 2, maxLabeled: 2, concurrency: 1, onProgress: (p) => progress.push(p) });
    expect(better.demos.map((d) => d.inputs.question)).toEqual([rows[0]!.question, rows[1]!.question]);
    expect(lm.requests).toHaveLength(4); // two rows, two model calls each: the other rows never ran
    // the rows it no longer needed are done too: the last report says so
    expect(progress).toEqual([
      { done: 1, total: rows.length, failed: 0 },
      { done: 2, total: rows.length, failed: 0 },
      { done: rows.length, total: rows.length, failed: 0 },
    ]);
  });

  it("a run passes on its main score: above 0, or at least the threshold; runs that fail become no example", async () => {
    // the student guesses "It is on its way.": a lenient metric passes it, a threshold of 1 does not
    const lenient = { near: (_row: Record<string, unknown>, p: Record<string, unknown>) => (String(p.result).length > 0 ? 0.5 : 0) };
    const some = await bootstrapFewShot(status, rows.slice(0, 3), { teacher: student(), metric: lenient, maxBootstrapped: 2, maxLabeled: 2 });
    expect(some.demos).toHaveLength(2);
    expect(some.demos.every((d) => d.outputs.result === "It is on its way." && d.steps === undefined)).toBe(true);
    const none = await bootstrapFewShot(status, rows.slice(0, 3), { teacher: student(), metric: lenient, threshold: 1, maxBootstrapped: 2, maxLabeled: 3, seed: 1 });
    // nothing passed: labeled rows fill up to maxLabeled, with their expected answers
    expect(none.demos).toHaveLength(3);
    expect(new Set(none.demos.map((d) => d.outputs.result))).toEqual(new Set(rows.slice(0, 3).map((r) => r.result)));
  });

  it("a signal stops it (turn-aborted); bad counts are refused up front", async () => {
    const controller = new AbortController();
    const lm = teacher();
    const run = bootstrapFewShot(status, [...rows, ...rows], { teacher: lm, maxBootstrapped: 12, concurrency: 1, signal: controller.signal, onProgress: (p) => p.done === 2 && controller.abort() });
    await expect(run).rejects.toMatchObject({ code: "turn-aborted" });
    expect(lm.requests.length).toBeLessThanOrEqual(6);
    await expect(bootstrapFewShot(status, rows, { maxBootstrapped: -1 })).rejects.toMatchObject({ code: "input-invalid" });
    await expect(bootstrapFewShot(status, rows, { concurrency: 0 })).rejects.toMatchObject({ code: "input-invalid" });
    await expect(bootstrapFewShot(status, rows, { threshold: Number.NaN })).rejects.toMatchObject({ code: "input-invalid" });
    const unused = teacher();
    await expect(bootstrapFewShot(status, rows, { teacher: unused, onProgress: "bar" as never })).rejects.toMatchObject({ code: "input-invalid" });
    expect(unused.requests).toHaveLength(0);
  });
});
