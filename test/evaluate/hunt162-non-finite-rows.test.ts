/**
 * Hunt 162: a row whose input holds a number JSON writes as null (NaN, Infinity, an invalid Date: what a data
 * reader gives for an empty or broken cell) through an AI function's `z.any()` input. Since hunt 159 such a call is
 * refused (input-invalid: the model would read null). evaluate took the row: the rows before it were paid for, that
 * row alone failed at call time and scored 0 as if the function were wrong; labeledFewShot showed it as an example
 * with null in its place, without a word. As rows JSON cannot hold are, it is refused up front, naming the row and
 * the place, before any model call. A program is handed its inputs as given: its rows are taken.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { ai, bootstrapFewShot, evaluate, labeledFewShot, program } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

const total = ai("total", { description: "Say the order's total.", input: { order: z.any() }, output: z.number() });
const answering = (n: number) => scripted(Array.from({ length: n }, () => "<result>3</result>"));

describe("rows whose AI function input holds a number JSON writes as null", () => {
  it("evaluate refuses the run before any model call, naming the row and the place", async () => {
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, new Date("not a date")]) {
      const lm = answering(2);
      const rows = [
        { order: { total: 3 }, result: 3 },
        { order: { total: bad }, result: 3 },
      ];
      const got = await evaluate(total.using({ lm }), rows).catch((e: unknown) => e);
      expect(got, String(bad)).toMatchObject({ code: "input-invalid" });
      expect((got as Error).message).toMatch(/row 2's input order\.total is (NaN|Infinity|an invalid Date).*the model would read null/);
      expect(lm.requests).toHaveLength(0);
    }
  });

  it("bootstrapFewShot refuses it before the teacher is asked", async () => {
    const teacher = answering(2);
    const rows = [
      { order: { total: 3 }, result: 3 },
      { order: { total: Number.NaN }, result: 3 },
    ];
    const got = await bootstrapFewShot(total, rows, { teacher }).catch((e: unknown) => e);
    expect(got).toMatchObject({ code: "input-invalid", message: expect.stringMatching(/row 2's input order\.total is NaN/) });
    expect(teacher.requests).toHaveLength(0);
  });

  it("labeledFewShot refuses it, where it was shown as an example with null in its place", () => {
    const rows = [{ order: { total: Number.NaN }, result: 3 }];
    expect(() => labeledFewShot(total, rows)).toThrow(
      expect.objectContaining({ code: "input-invalid", message: expect.stringMatching(/row 1's input order\.total is NaN/) }),
    );
  });

  it("guard: a program's rows holding NaN are taken, as its call takes them", async () => {
    const sum = program("sum", { description: "Sum.", input: { order: z.any() }, output: z.number() }, ({ order }) =>
      Number.isNaN(order.total) ? -1 : order.total,
    );
    const ev = await evaluate(sum, [
      { order: { total: Number.NaN }, result: -1 },
      { order: { total: 2 }, result: 2 },
    ]);
    expect(ev.score).toBe(1);
  });
});
