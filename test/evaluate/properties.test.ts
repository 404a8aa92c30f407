/** Properties of the scores: meanRange's bounds, exactMatch's symmetry and what it ignores. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { exactMatch, meanRange } from "../../src/index.js";
import { collapseWhiteSpace } from "../../src/evaluate/normalize.js";

/** Every white-space code point of the contract, and U+FEFF, which is not one. */
const SPACES = ["\t", "\n", "\u000B", "\f", "\r", "\u001C", "\u001F", " ", "\u0085", "\u00A0", "\u1680", "\u2000", "\u200A", "\u2028", "\u2029", "\u202F", "\u205F", "\u3000"];
const space = fc.constantFrom(...SPACES);
const spaces = fc.array(space, { minLength: 1, maxLength: 4 }).map((s) => s.join(""));
/** Words whose upper case folds back to their lower case (not every script's does: `ı`). */
const word = fc.stringMatching(/^[a-zA-Z0-9àéîõüçñßøæ]{1,8}$/);
const words = fc.array(word, { minLength: 1, maxLength: 5 });
const text = fc.oneof(fc.string({ maxLength: 12 }), words.map((w) => w.join(" ")));
const value = fc.oneof(text, fc.integer(), fc.double({ noNaN: true }), fc.boolean(), fc.array(fc.oneof(text, fc.integer()), { maxLength: 3 }));

describe("meanRange", () => {
  it("0/1 values: the range holds the mean and lies in [0, 1]", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(0, 1), { minLength: 2, maxLength: 300 }), (values) => {
        const { mean, low, high } = meanRange(values);
        expect(low! <= mean! && mean! <= high!).toBe(true);
        expect(low! >= 0 && high! <= 1).toBe(true);
        if (values.every((v) => v === 0)) expect(low).toBe(0);
        if (values.every((v) => v === 1)) expect(high).toBe(1);
      }),
    );
  });

  it("any scores: the range holds the mean", () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: -1e6, max: 1e6, noNaN: true }), { minLength: 2, maxLength: 100 }), (values) => {
        const { mean, low, high } = meanRange(values);
        const slack = 1e-9 * Math.max(1, Math.abs(mean!));
        expect(low! <= mean! + slack && mean! <= high! + slack).toBe(true);
      }),
    );
  });
});

describe("exactMatch", () => {
  it("is symmetric", () => {
    fc.assert(
      fc.property(value, value, (a, b) => {
        expect(exactMatch({ result: a }, { result: b })).toEqual(exactMatch({ result: b }, { result: a }));
      }),
    );
  });

  it("ignores runs of white space and where they are", () => {
    fc.assert(
      fc.property(words, fc.array(spaces, { minLength: 8, maxLength: 8 }), (w, gaps) => {
        const spaced = gaps[0] + w.map((x, i) => x + gaps[(i % 6) + 1]).join("") + gaps[7];
        expect(exactMatch({ result: w.join(" ") }, { result: spaced }).exact_match).toBe(1);
      }),
    );
  });

  it("ignores case", () => {
    fc.assert(
      fc.property(words, (w) => {
        const t = w.join(" ");
        expect(exactMatch({ result: t.toUpperCase() }, { result: t.toLowerCase() }).exact_match).toBe(1);
      }),
    );
  });

  it("folds fully: ß is ss, a final ς is σ, and U+FEFF is not white space", () => {
    expect(exactMatch({ result: "STRASSE" }, { result: "straße" }).exact_match).toBe(1);
    expect(exactMatch({ result: "ΟΔΟΣ" }, { result: "οδος" }).exact_match).toBe(1);
    expect(exactMatch({ result: "οδοσ" }, { result: "οδος" }).exact_match).toBe(1);
    expect(exactMatch({ result: "new york" }, { result: "new\uFEFFyork" }).exact_match).toBe(0);
    expect(collapseWhiteSpace("a\uFEFF b")).toBe("a\uFEFF b");
  });

  it("numbers by value; lists and objects exactly, nothing folded inside", () => {
    expect(exactMatch({ result: 42 }, { result: "42.0" }).exact_match).toBe(1);
    expect(exactMatch({ result: 42 }, { result: "forty-two" }).exact_match).toBe(0);
    expect(exactMatch({ result: ["A", 1] }, { result: ["A", 1.0] }).exact_match).toBe(1);
    expect(exactMatch({ result: ["A"] }, { result: ["a"] }).exact_match).toBe(0);
    expect(exactMatch({ result: { city: "Paris" } }, { result: { city: "paris" } }).exact_match).toBe(0);
    expect(exactMatch({ result: { a: 1, b: [2] } }, { result: { b: [2], a: 1 } }).exact_match).toBe(1);
  });

  it("compares only the outputs the row names; a missing one does not match", () => {
    expect(exactMatch({ result: "x" }, { result: "X", extra: 1 })).toEqual({ exact_match: 1 });
    expect(exactMatch({ result: "x", label: "y" }, { result: "x" })).toEqual({ exact_match: 0, result_match: 1, label_match: 0 });
    expect(() => exactMatch({}, { result: "x" })).toThrow(/no expected output/);
  });
});
