/**
 * Hunt 162: an AI function's row expecting a number JSON has none for (Infinity, what a data reader gives for
 * "inf"; NaN inside a list). No answer a model writes is one (JSON has none), so with the default metric the row
 * scored 0 whatever the function answered, after its call was paid for, and the mean fell without a word. (A NaN
 * column alone names no answer: hunt 120.) Refused up front, naming the row and the place, before any model call.
 * A program's answer may be Infinity, and is compared with it.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { ai, bootstrapFewShot, evaluate, program } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

const count = ai("count", { description: "Count the words.", input: { text: z.string() }, output: z.number() });
const counts = ai("counts", { description: "Count the words of each line.", input: { text: z.string() }, output: z.array(z.number()) });

describe("an AI function's row expecting a number JSON has none for", () => {
  it("evaluate refuses the run before any model call, naming the row and the place", async () => {
    const lm = scripted(["<result>2</result>", "<result>1</result>"]);
    const got = await evaluate(count.using({ lm }), [
      { text: "two words", result: 2 },
      { text: "a", result: Number.POSITIVE_INFINITY },
    ]).catch((e: unknown) => e);
    expect(got).toMatchObject({
      code: "input-invalid",
      message: expect.stringMatching(/row 2's expected result is Infinity.*no answer a model writes can match it/),
    });
    expect(lm.requests).toHaveLength(0);
  });

  it("NaN inside a list is refused too (a NaN column alone names no answer)", async () => {
    const lm = scripted(["<result>[2]</result>"]);
    const got = await evaluate(counts.using({ lm }), [{ text: "two words", result: [2, Number.NaN] }]).catch((e: unknown) => e);
    expect(got).toMatchObject({ code: "input-invalid", message: expect.stringMatching(/row 1's expected result\[1\] is NaN/) });
    expect(lm.requests).toHaveLength(0);
  });

  it("bootstrapFewShot with the default metric refuses it before the teacher is asked", async () => {
    const teacher = scripted(["<result>1</result>"]);
    const got = await bootstrapFewShot(count, [{ text: "a", result: Number.NEGATIVE_INFINITY }], { teacher, maxLabeled: 0 }).catch((e: unknown) => e);
    expect(got).toMatchObject({ code: "input-invalid", message: expect.stringMatching(/row 1's expected result is -Infinity/) });
    expect(teacher.requests).toHaveLength(0);
  });

  it("guard: an expected BigInt (JSON writes none) is not taken for one, and is compared by value", async () => {
    const lm = scripted(["<result>2</result>"]);
    const ev = await evaluate(count.using({ lm }), [{ text: "two words", result: 2n }]);
    expect(ev.score).toBe(1);
  });

  it("guard: with a metric of its own, the row is the metric's to read", async () => {
    const lm = scripted(["<result>7</result>"]);
    const ev = await evaluate(count.using({ lm }), [{ text: "a", result: Number.POSITIVE_INFINITY }], {
      metric: (row, out) => ({ big: row.result === Number.POSITIVE_INFINITY && out.result === 7 ? 1 : 0 }),
    });
    expect(ev.score).toBe(1);
  });

  it("guard: a program answering Infinity (through z.any()) is compared with it", async () => {
    const inverse = program("inverse", { description: "One over n.", input: { n: z.number() }, output: z.any() }, ({ n }) => 1 / n);
    const ev = await evaluate(inverse, [
      { n: 0, result: Number.POSITIVE_INFINITY },
      { n: 2, result: 0.5 },
    ]);
    expect(ev.score).toBe(1);
  });
});
