/**
 * Hunt 34: an AI function whose answer is a BigInt (`z.coerce.bigint()`, a count or an id of 64 bits). Each passing
 * run was paid for, then bootstrapFewShot rejected as a whole ("a passing run is not JSON"), every run lost. A run's
 * answer is kept as the model wrote it: a BigInt as its decimal text (the state is JSON; an example's answer is shown
 * as written, as a labeled row's is).
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { ai, bootstrapFewShot } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

const count = ai("count", {
  description: "Count the words.",
  input: { text: z.string() },
  output: z.object({ words: z.coerce.bigint(), note: z.string() }),
});

describe("bootstrapFewShot: a passing run whose answer holds a BigInt", () => {
  it("is kept, the BigInt as its decimal text, and the state loads again after JSON", async () => {
    const teacher = scripted(Array.from({ length: 4 }, () => '<result>\n{"words": "2", "note": "ok"}\n</result>'));
    const better = await bootstrapFewShot(count, [{ text: "a b" }, { text: "c d" }], {
      teacher,
      metric: () => 1,
      maxBootstrapped: 1,
      concurrency: 1,
    });
    expect(teacher.requests).toHaveLength(1);
    expect(better.demos).toEqual([{ inputs: { text: "a b" }, outputs: { result: { words: "2", note: "ok" } } }]);
    const again = count.withState(JSON.parse(JSON.stringify(better.state())));
    expect(again.demos).toEqual(better.demos);
  });
});
