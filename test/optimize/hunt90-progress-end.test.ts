/**
 * Hunt 90: bootstrapFewShot's last progress report. Progress is `{ done, total, failed }` "so a host can draw a
 * bar" (DESIGN); a bootstrap that found its `maxBootstrapped` examples starts no further row, and its last report
 * said `done: 2, total: 6`: the bar stopped a third of the way and the optimizer had returned. The rows it no longer
 * needs are done (as a row started after the examples were found and stopped already counted: done, not failed),
 * so the last report says `done === total`.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { ai, bootstrapFewShot, type Progress } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

const echo = ai("echo", { description: "Say ok.", input: { q: z.string() } });
const data = Array.from({ length: 6 }, (_, i) => ({ q: `q${i}`, result: i % 2 === 0 ? "ok" : "no" }));
const model = () => scripted(Array.from({ length: 20 }, () => "<result>\nok\n</result>"));

describe("bootstrapFewShot's last progress report", () => {
  it("says every row is done when it stopped early with its examples (none of the rows left failed)", async () => {
    const lm = model();
    const progress: Progress[] = [];
    const better = await bootstrapFewShot(echo, data, {
      teacher: lm,
      maxBootstrapped: 2,
      maxLabeled: 2,
      concurrency: 1,
      onProgress: (p) => progress.push({ ...p }),
    });
    expect(better.demos.map((d) => d.inputs.q)).toEqual(["q0", "q2"]);
    expect(lm.requests).toHaveLength(3); // rows 4 to 6 never ran
    expect(progress.at(-1)).toEqual({ done: 6, total: 6, failed: 0 });
    // the bar only moves forward
    expect(progress.map((p) => p.done)).toEqual([...progress.map((p) => p.done)].sort((a, b) => a - b));
  });

  it("counts the rows that failed before it had enough, and no more", async () => {
    // row 2's metric throws (the row fails); rows 1 and 3 pass, and rows 4 and 5 are never run
    const progress: Progress[] = [];
    const metric = (row: Record<string, unknown>): number => {
      if (row.q === "q1") throw new Error("the judge is down");
      return 1;
    };
    const better = await bootstrapFewShot(echo, data.slice(0, 5), {
      teacher: model(),
      metric,
      maxBootstrapped: 2,
      maxLabeled: 2,
      concurrency: 1,
      onProgress: (p) => progress.push({ ...p }),
    });
    expect(better.demos.map((d) => d.inputs.q)).toEqual(["q0", "q2"]);
    expect(progress.at(-1)).toEqual({ done: 5, total: 5, failed: 1 });
  });

  it("if the last report throws, it rejects with that error, keeping the examples found", async () => {
    const saved = new Error("the bar's store is down");
    const run = bootstrapFewShot(echo, data, {
      teacher: model(),
      maxBootstrapped: 1,
      maxLabeled: 1,
      concurrency: 1,
      onProgress: (p) => {
        if (p.done === p.total) throw saved;
      },
    });
    await expect(run).rejects.toBe(saved);
    expect((saved as Error & { demos?: unknown[] }).demos).toHaveLength(1);
  });
});
