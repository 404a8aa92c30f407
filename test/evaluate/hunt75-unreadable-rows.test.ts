/**
 * Hunt 75: rows read from a source that can fail as a cell or a row is read (an ORM's lazy getters, a Proxy over a
 * file a reader pages in) made `evaluate`, `labeledFewShot` and `bootstrapFewShot` reject with the source's own raw
 * error: no code, no row named. DESIGN: `evaluate` only throws for bad arguments, and every error is a FunctaiError
 * with a stable code. Such a row is now refused up front (`input-invalid`, naming the row and the column, the raw
 * error kept as the cause), before any model call.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { ai, bootstrapFewShot, evaluate, labeledFewShot } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { refusalOf } from "../fixtures/refused.js";

const unreadable = new Error("cell 2 could not be paged in");
const badAnswer = {
  q: "bravo",
  get result(): string {
    throw unreadable;
  },
};
const badInput = {
  get q(): string {
    throw unreadable;
  },
  result: "bravo",
};
const badRow = new Proxy(
  [
    { q: "alpha", result: "alpha" },
    { q: "bravo", result: "bravo" },
  ],
  {
    get(target, key) {
      if (key === "1") throw unreadable;
      return Reflect.get(target, key) as unknown;
    },
  },
);

describe("rows whose cells cannot be read", () => {
  const cases: [string, Record<string, unknown>[], RegExp][] = [
    [
      "an expected column's getter throws",
      [{ q: "alpha", result: "alpha" }, badAnswer],
      /row 2's column result could not be read .*cell 2 could not be paged in/,
    ],
    [
      "an input column's getter throws",
      [{ q: "alpha", result: "alpha" }, badInput],
      /row 2's column q could not be read .*cell 2 could not be paged in/,
    ],
    ["reading the row itself throws", badRow, /row 2 could not be read .*cell 2 could not be paged in/],
  ];
  for (const [what, rows, message] of cases) {
    it(`${what}: each entry point refuses it, input-invalid naming the row, before any model call`, async () => {
      const lm = scripted(Array.from({ length: 4 }, () => "<result>\nalpha\n</result>"));
      const echo = ai("echo", { description: "Say the word back.", input: { q: z.string() } }).using({ lm });
      for (const run of [() => evaluate(echo, rows), () => labeledFewShot(echo, rows), () => bootstrapFewShot(echo, rows)]) {
        const e = await refusalOf(run);
        expect(e).toMatchObject({ code: "input-invalid", cause: unreadable });
        expect((e as Error).message).toMatch(message);
      }
      expect(lm.requests).toHaveLength(0);
    });
  }
});
