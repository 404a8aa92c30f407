/**
 * Hunt 34: a row whose inputs JSON cannot keep (a BigInt input) can never be a worked example (a state is JSON),
 * and a call refuses such an input. bootstrapFewShot took the rows, every run failed (input-invalid), and it gave
 * an AI function with no examples as if no run had passed, quietly. It is refused up front, naming the row.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { ai, bootstrapFewShot } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

const count = ai("count", { description: "Say the number in words.", input: { n: z.bigint() } });

describe("bootstrapFewShot: inputs that are not JSON", () => {
  it("is refused (input-invalid, naming the row) before any model call", async () => {
    const teacher = scripted(Array.from({ length: 4 }, () => "<result>\nfour\n</result>"));
    const run = bootstrapFewShot(count, [{ n: 3n }], { teacher, metric: () => 1 });
    await expect(run).rejects.toMatchObject({ code: "input-invalid", message: expect.stringMatching(/row 1's inputs/) });
    expect(teacher.requests).toHaveLength(0);
  });
});
