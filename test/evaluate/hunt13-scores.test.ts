/**
 * Hunt 13: scores that came out wrong without a word.
 *
 * - A record of named metrics: "the first is the main score" (README, DESIGN). Two metrics giving a score of
 *   the same name (two wrappers of exactMatch both give `exact_match`) kept only the later one: the main
 *   score was quietly the second metric's, and the first one's was lost.
 * - exactMatch compares "numbers by value, lists and objects item by item". A Date has no items, so any two
 *   Dates were the same (a program's date answer always matched), and `compare` paired rows that differ in a
 *   date column (as a database reader gives them) as the same rows.
 * - labeledFewShot, an object output given field by field: a field the row lacks was found as present when
 *   its name is an Object member (`constructor`), and the row became an example with part of its answer.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { ai, bootstrapFewShot, compare, evaluate, exactMatch, labeledFewShot, program, type Metric } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

const echo = ai("echo", { description: "Say the word.", input: { question: z.string() } });
const rows = [
  { question: "one", result: "a", label: "a" },
  { question: "two", result: "a", label: "b" },
];
const model = (...replies: string[]) => scripted(replies.map((r) => `<result>\n${r}\n</result>`));

describe("metrics whose scores share a name", () => {
  // both wrap exactMatch: each gives { exact_match }, against another column
  const metric: Record<string, Metric> = {
    strict: (row, p) => exactMatch({ result: row.result }, p),
    loose: (row, p) => exactMatch({ result: row.label }, p),
  };

  it("evaluate: the main score is never quietly a later metric's; the row fails (metric-failed) naming both", async () => {
    const ev = await evaluate(echo.using({ lm: model("a", "a") }), rows, { metric, concurrency: 1 });
    // row 2: strict gives 1, loose gives 0; overwritten, the main exact_match read 0 with no error to say why
    expect(ev.rows.map((r) => r.error)).toEqual([
      expect.stringMatching(/^metric-failed: .*loose.*exact_match.*strict/),
      expect.stringMatching(/^metric-failed: .*loose.*exact_match.*strict/),
    ]);
  });

  it("a metric whose record holds its own name once, and metrics of other names, are unchanged", async () => {
    const fine = { strict: metric.strict!, short: (_row: unknown, p: Record<string, unknown>) => String(p.result).length < 3 };
    const ev = await evaluate(echo.using({ lm: model("a", "a") }), rows, { metric: fine, concurrency: 1 });
    expect(ev.metrics).toEqual(["exact_match", "short"]);
    expect(ev.rows.map((r) => r.error)).toEqual([null, null]);
  });

  it("bootstrapFewShot: a run is never passed on a later metric's score", async () => {
    // the first metric (strict) says the answer "a" is wrong (the row wants "x"); the later one (loose) says right
    const better = bootstrapFewShot(echo, [{ question: "one", result: "x", label: "a" }], {
      teacher: model("a"),
      metric,
      maxBootstrapped: 1,
      maxLabeled: 0,
    });
    // overwritten, the main score was loose's 1 and the run passed; now the row fails (the names clash), and an
    // optimization none of whose runs worked is refused with the first run's error
    await expect(better).rejects.toMatchObject({ code: "metric-failed", message: expect.stringContaining("names of their own") });
  });
});

describe("exactMatch and compare on dates", () => {
  it("two different dates do not match; the same date does", () => {
    expect(exactMatch({ result: new Date("2026-01-01T00:00:00Z") }, { result: new Date("2026-12-24T00:00:00Z") }).exact_match).toBe(0);
    expect(exactMatch({ result: new Date("2026-01-01T00:00:00Z") }, { result: new Date("2026-01-01T00:00:00Z") }).exact_match).toBe(1);
    expect(exactMatch({ result: { due: new Date(1) } }, { result: { due: new Date(2) } }).exact_match).toBe(0);
    // a date is not an empty record either
    expect(exactMatch({ result: {} }, { result: new Date(1) }).exact_match).toBe(0);
  });

  it("evaluate: a program answering with a date scores 0 against another date", async () => {
    const due = program(
      "due",
      { description: "The due date.", input: { question: z.string() }, output: z.date() },
      () => new Date("2026-03-01T00:00:00Z"),
    );
    const ev = await evaluate(due, [
      { question: "A-1042", result: new Date("2026-03-01T00:00:00Z") },
      { question: "B-2210", result: new Date("2027-03-01T00:00:00Z") },
    ]);
    expect(ev.rows.map((r) => r.scores.exact_match)).toEqual([1, 0]);
  });

  it("compare refuses evaluations of rows that differ only in a date column", async () => {
    const on = (day: string) => [{ question: "one", result: "a", asked: new Date(day) }];
    const before = await evaluate(echo.using({ lm: model("a") }), on("2026-01-01"));
    const after = await evaluate(echo.using({ lm: model("a") }), on("2026-06-01"));
    expect(() => compare(before, after)).toThrow(
      expect.objectContaining({ code: "input-invalid", message: expect.stringContaining("row 1 is not the same") }),
    );
    // the same dates (copies) are the same rows
    const again = await evaluate(echo.using({ lm: model("a") }), on("2026-01-01"));
    expect(compare(before, again)[0]).toMatchObject({ n: 1, same: 1 });
  });
});

describe("labeledFewShot, an object output given field by field", () => {
  const ticket = ai("ticket", {
    description: "File the ticket.",
    input: { question: z.string() },
    output: z.object({ constructor: z.string(), team: z.string() }),
  });

  it("a row lacking a field named like an Object member is no example (not one with part of its answer)", () => {
    const whole = { question: "one", constructor: "acme", team: "billing" };
    const partial = { question: "two", team: "shipping" };
    const shown = labeledFewShot(ticket, [whole, partial]);
    expect(shown.demos).toEqual([{ inputs: { question: "one" }, outputs: { result: { constructor: "acme", team: "billing" } } }]);
  });
});
