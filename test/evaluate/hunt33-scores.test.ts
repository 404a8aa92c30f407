/**
 * Hunt 33: odd values in rows and answers, scored wrongly without a word.
 *
 * - exactMatch compares "lists and objects item by item". A Map or a Set keeps its items out of its own keys, so
 *   any two Maps (or Sets) were the same, and so was a Set and an empty record: a program answering with a set of
 *   tags always matched, and `compare` paired rows that differ in such a column as the same rows.
 * - exactMatch compares "numbers by value". A BigInt (what DuckDB, or SQLite with safe integers, gives for an
 *   integer column) is a number: `42n` against an answer of `42` scored 0.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { ai, compare, evaluate, exactMatch, program } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

describe("exactMatch on Maps and Sets", () => {
  it("two Sets (or Maps) with other items do not match; with the same items, in any order, they do", () => {
    expect(exactMatch({ result: new Set(["a", "b"]) }, { result: new Set(["c"]) }).exact_match).toBe(0);
    expect(exactMatch({ result: new Set(["a", "b"]) }, { result: new Set(["b", "a"]) }).exact_match).toBe(1);
    expect(exactMatch({ result: new Set([{ id: 1 }]) }, { result: new Set([{ id: 1 }]) }).exact_match).toBe(1);
    expect(exactMatch({ result: new Set([{ id: 1 }]) }, { result: new Set([{ id: 2 }]) }).exact_match).toBe(0);
    expect(exactMatch({ result: new Map([["a", 1]]) }, { result: new Map([["a", 2]]) }).exact_match).toBe(0);
    expect(exactMatch({ result: new Map([["a", 1]]) }, { result: new Map([["b", 1]]) }).exact_match).toBe(0);
    expect(exactMatch({ result: new Map([["a", [1]]]) }, { result: new Map([["a", [1]]]) }).exact_match).toBe(1);
  });

  it("a Set or a Map is not an empty record, nor a Map a Set", () => {
    expect(exactMatch({ result: {} }, { result: new Set([1]) }).exact_match).toBe(0);
    expect(exactMatch({ result: new Map([[1, 1]]) }, { result: {} }).exact_match).toBe(0);
    expect(exactMatch({ result: new Map() }, { result: new Set() }).exact_match).toBe(0);
    // a record without a prototype (as CSV readers make them) is still a record
    expect(exactMatch({ result: Object.assign(Object.create(null), { a: 1 }) }, { result: { a: 1 } }).exact_match).toBe(1);
  });

  it("evaluate: a program answering with a set of tags scores 0 against other tags", async () => {
    const tags = program(
      "tags",
      { description: "The tags.", input: { text: z.string() }, output: z.set(z.string()) },
      ({ text }) => new Set(text.split(" ")),
    );
    const ev = await evaluate(tags, [
      { text: "red blue", result: new Set(["blue", "red"]) },
      { text: "red blue", result: new Set(["green"]) },
    ]);
    expect(ev.rows.map((r) => r.scores.exact_match)).toEqual([1, 0]);
  });

  it("compare refuses evaluations of rows that differ only in a Set column", async () => {
    const echo = ai("echo", { description: "Say the word.", input: { question: z.string() } });
    const on = (tags: string[]) => [{ question: "one", result: "a", tags: new Set(tags) }];
    const model = () => scripted(["<result>\na\n</result>"]);
    const before = await evaluate(echo.using({ lm: model() }), on(["x"]));
    const after = await evaluate(echo.using({ lm: model() }), on(["y"]));
    expect(() => compare(before, after)).toThrow(/row 1 is not the same/);
  });
});

describe("exactMatch on BigInt", () => {
  it("a BigInt matches the same number (and a number written as text) by value", () => {
    expect(exactMatch({ result: 42n }, { result: 42 }).exact_match).toBe(1);
    expect(exactMatch({ result: 42 }, { result: 42n }).exact_match).toBe(1);
    expect(exactMatch({ result: 42n }, { result: " 42 " }).exact_match).toBe(1);
    expect(exactMatch({ result: 42n }, { result: 43 }).exact_match).toBe(0);
    expect(exactMatch({ result: 42n }, { result: 42.5 }).exact_match).toBe(0);
    expect(exactMatch({ result: 2n ** 64n }, { result: 2n ** 64n }).exact_match).toBe(1);
    expect(exactMatch({ result: 42n }, { result: "forty-two" }).exact_match).toBe(0);
  });

  it("evaluate: a row whose expected count is a BigInt (a database's integer column) scores the right answer 1", async () => {
    const counter = program(
      "count",
      { description: "Count the words.", input: { text: z.string() }, output: z.number() },
      ({ text }) => text.split(" ").length,
    );
    const ev = await evaluate(counter, [
      { text: "a b c", result: 3n },
      { text: "a b", result: 3n },
    ]);
    expect(ev.rows.map((r) => r.scores.exact_match)).toEqual([1, 0]);
  });
});

describe("compare on rows holding NaN", () => {
  it("rows read twice (copies) that hold NaN in a column are the same rows: compare pairs them", async () => {
    const echo = ai("echo", { description: "Say the word.", input: { question: z.string() } });
    // an empty numeric cell, as data-frame readers give it
    const read = () => [{ question: "one", result: "a", weight: Number.NaN, tags: [Number.NaN] }];
    const model = (reply: string) => scripted([`<result>\n${reply}\n</result>`]);
    const before = await evaluate(echo.using({ lm: model("b") }), read());
    const after = await evaluate(echo.using({ lm: model("a") }), read());
    const [main] = compare(before, after);
    expect(main).toMatchObject({ metric: "exact_match", before: 0, after: 1, better: 1, n: 1 });
    // rows that differ still do not pair
    const other = await evaluate(echo.using({ lm: model("a") }), [{ question: "one", result: "a", weight: 1, tags: [Number.NaN] }]);
    expect(() => compare(before, other)).toThrow(/row 1 is not the same/);
  });

  it("exactMatch still scores a NaN answer 0 against an expected NaN (no number equals NaN)", () => {
    expect(exactMatch({ result: Number.NaN }, { result: Number.NaN }).exact_match).toBe(0);
  });
});
