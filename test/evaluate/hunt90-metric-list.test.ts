/**
 * Hunt 90: wrong metric and threshold options, refused before any model call.
 *
 * - `metric` is "a function, or a record of named metrics (the first is the main score)". A list of metrics
 *   (`metric: [exact, short]`) was taken as a record named by its indexes: the run reported scores named "0" and
 *   "1", and bootstrapFewShot paid every run to score them so. Refused (`input-invalid`), naming the record form.
 * - A threshold that is no number was refused as "threshold is a number, not 1" for the text "1": it says what it was.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { ai, bootstrapFewShot, evaluate, program } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

const echo = program("echo", { description: "Gives its question back.", input: { q: z.string() } }, async ({ q }) => q);
const tagger = ai("tagger", { description: "Tags.", input: { q: z.string() } });
const exact = (): number => 1;
const short = (): number => 0;

describe("a list of metrics", () => {
  it("is refused by evaluate before any row runs", async () => {
    let ran = 0;
    const counted = program("counted", { description: "Counts its calls.", input: { q: z.string() } }, async ({ q }) => (ran++, q));
    const run = evaluate(counted, [{ q: "a" }], { metric: [exact, short] as never });
    await expect(run).rejects.toMatchObject({ code: "input-invalid", message: expect.stringMatching(/record/) });
    expect(ran).toBe(0);
    // a record of the same metrics is taken, named by its keys
    const ev = await evaluate(echo, [{ q: "a" }], { metric: { exact, short } });
    expect(ev.metrics).toEqual(["exact", "short"]);
  });

  it("is refused by bootstrapFewShot before any model call", async () => {
    const lm = scripted(["<result>\na\n</result>"]);
    await expect(bootstrapFewShot(tagger, [{ q: "a", result: "a" }], { teacher: lm, metric: [exact] as never })).rejects.toMatchObject({
      code: "input-invalid",
    });
    expect(lm.requests).toHaveLength(0);
  });
});

describe("a threshold that is no number", () => {
  it("is refused saying what it was", async () => {
    const lm = scripted([]);
    await expect(bootstrapFewShot(tagger, [{ q: "a", result: "a" }], { teacher: lm, threshold: "1" as never })).rejects.toMatchObject({
      code: "input-invalid",
      message: expect.stringContaining('"1"'),
    });
  });
});
