/**
 * Hunt 34: rows whose inputs a call refuses for not being JSON (a BigInt column read by DuckDB, a Set): the input
 * schema took them, so evaluate ran, and every row failed on its own ("the input is not JSON") with a score of 0: a
 * mean of 0 for a function that never ran. As DESIGN has it for rows whose inputs do not fit the function, they are
 * refused up front (input-invalid, naming the row).
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { evaluate, program } from "../../src/index.js";

describe("evaluate: row inputs that are not JSON", () => {
  it("are refused before any call, naming the row", async () => {
    let calls = 0;
    const double = program("double", { description: "Double.", input: { n: z.union([z.number(), z.bigint()]) }, output: z.number() }, ({ n }) => {
      calls += 1;
      return Number(n) * 2;
    });
    const run = evaluate(double, [
      { n: 1, result: 2 },
      { n: 2n, result: 4 },
    ]);
    await expect(run).rejects.toMatchObject({ code: "input-invalid", message: expect.stringMatching(/row 2.*not JSON/) });
    expect(calls).toBe(0);
  });
});
