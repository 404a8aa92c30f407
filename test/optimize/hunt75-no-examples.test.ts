/**
 * Hunt 75: `bootstrapFewShot` whose every run failed (the teacher's API key missing, the model's script ended, a
 * plugin broken: each run an error, none a low score) gives back a function with no worked examples, and says
 * nothing: the runs' errors are lost (only an `onProgress` callback saw a count), and the "optimized" function,
 * saved with `state()`, is the old one. DESIGN's optimize section does not say what an optimizer gives when no run
 * could be made at all.
 *
 * Decided (the lead): such an optimization is refused with a coded error, the first run's own code and message
 * (\`turn-failed\` when it had none). A run that merely scored below the threshold is not a failure, and one row
 * whose run worked is enough to give back a function.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { ai, bootstrapFewShot } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

describe("bootstrapFewShot when every run failed with an error", () => {
  it("does not give back an unchanged function as if it had optimized it: the first run's error, coded", async () => {
    const lm = scripted([]); // every run fails: lm-script-ended
    const echo = ai("echo", { description: "Say the word back.", input: { q: z.string() } }).using({ lm });
    const rows = [{ q: "alpha" }, { q: "bravo" }];
    const result = await bootstrapFewShot(echo, rows, { metric: () => 1 }).then(
      (fn) => ({ demos: fn.demos.length }),
      (e: unknown) => e,
    );
    expect(result).toMatchObject({ code: "lm-script-ended", message: expect.stringMatching(/every one of its 2 runs failed.*row 1/) as unknown });
  });
});
