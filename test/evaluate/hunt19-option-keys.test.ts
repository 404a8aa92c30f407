/**
 * Hunt: a misspelt option of evaluate or an optimizer. Read as not given, a
 * `singal: AbortSignal.timeout(…)` leaves a run that nothing stops (each row
 * paid for), a `concurency: 1` runs 8 rows at once against a rate limit, a
 * `maxBootstraped: 1` keeps 4 examples. The SDK refuses a misspelt setting
 * (`configure`, `using`: "a misspelt key would be dropped the same way");
 * these options are refused the same way, before any model call.
 */
import { describe, expect, it } from "vitest";
import { bootstrapFewShot, evaluate, labeledFewShot } from "../../src/index.js";
import { rows, status, teacher } from "./desk.js";

describe("an option that is none is refused up front, naming it", () => {
  it("evaluate: input-invalid naming the key and the options it has; nothing sent", async () => {
    const lm = teacher();
    for (const options of [{ singal: AbortSignal.timeout(60_000) }, { concurency: 1 }, { onprogress: () => {} }, { teacher: lm }, { lm }]) {
      const key = Object.keys(options)[0]!;
      await expect(evaluate(status.using({ lm }), rows, options as never)).rejects.toMatchObject({
        code: "input-invalid",
        message: expect.stringMatching(new RegExp(`"${key}" is not an option of evaluate.*signal`)),
      });
    }
    // a setting given here was never used: the message says where it goes
    await expect(evaluate(status, rows, { lm } as never)).rejects.toMatchObject({ message: expect.stringContaining("fn.using({ lm })") });
    expect(lm.requests).toHaveLength(0);
  });

  it("bootstrapFewShot: input-invalid naming the key; nothing sent", async () => {
    const lm = teacher();
    for (const options of [{ maxBootstraped: 1 }, { singal: AbortSignal.timeout(60_000) }, { k: 2 }]) {
      const key = Object.keys(options)[0]!;
      await expect(bootstrapFewShot(status, rows, { teacher: lm, ...options } as never)).rejects.toMatchObject({
        code: "input-invalid",
        message: expect.stringMatching(new RegExp(`"${key}" is not an option of bootstrapFewShot.*maxBootstrapped`)),
      });
    }
    expect(lm.requests).toHaveLength(0);
  });

  it("labeledFewShot: input-invalid naming the key (maxLabeled is bootstrapFewShot's)", () => {
    expect(() => labeledFewShot(status, rows, { maxLabeled: 2 } as never)).toThrow(
      expect.objectContaining({ code: "input-invalid", message: expect.stringMatching(/"maxLabeled" is not an option of labeledFewShot/) }),
    );
  });

  it("every documented option is still taken", async () => {
    const lm = teacher();
    const ev = await evaluate(status.using({ lm }), rows.slice(0, 1), {
      metric: () => 1,
      expected: "result",
      concurrency: 1,
      signal: new AbortController().signal,
      onProgress: () => {},
    });
    expect(ev.score).toBe(1);
    const better = await bootstrapFewShot(status, rows.slice(0, 2), {
      metric: () => 1,
      threshold: 1,
      maxBootstrapped: 1,
      maxLabeled: 2,
      teacher: teacher(),
      seed: 3,
      concurrency: 1,
      expected: "result",
      signal: new AbortController().signal,
      onProgress: () => {},
    });
    expect(better.demos).toHaveLength(2);
    expect(labeledFewShot(status, rows, { k: 2, seed: 1, expected: "result" }).demos).toHaveLength(2);
  });
});
