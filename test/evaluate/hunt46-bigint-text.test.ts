/**
 * Hunt 46: `exactMatch` with a BigInt expected (an integer column as DuckDB, or SQLite with safe integers, gives it)
 * and the same integer written as text (a model's answer): the text was read as a double, which rounds integers past
 * 2^53, so `18446744073709551617n` did not match `"18446744073709551617"` (its double is 18446744073709551616), while
 * `"18446744073709551616"` did. An integer written as text is now read exactly when compared with a BigInt.
 */
import { describe, expect, it } from "vitest";
import { exactMatch } from "../../src/index.js";

describe("a BigInt compared with the same integer written as text", () => {
  it("matches exactly, past 2^53; one more or less does not", () => {
    expect(exactMatch({ result: 18446744073709551617n }, { result: "18446744073709551617" }).exact_match).toBe(1);
    expect(exactMatch({ result: "18446744073709551617" }, { result: 18446744073709551617n }).exact_match).toBe(1);
    expect(exactMatch({ result: 18446744073709551617n }, { result: " +18446744073709551617 " }).exact_match).toBe(1);
    expect(exactMatch({ result: 18446744073709551617n }, { result: "18446744073709551616" }).exact_match).toBe(0);
    expect(exactMatch({ result: -9007199254740993n }, { result: "-9007199254740993" }).exact_match).toBe(1);
    expect(exactMatch({ result: -9007199254740993n }, { result: "-9007199254740992" }).exact_match).toBe(0);
  });

  it("text that is a number but not an integer compares by value as before", () => {
    expect(exactMatch({ result: 42n }, { result: "42.0" }).exact_match).toBe(1);
    expect(exactMatch({ result: 42n }, { result: "4.2e1" }).exact_match).toBe(1);
    expect(exactMatch({ result: 42n }, { result: "42.5" }).exact_match).toBe(0);
    expect(exactMatch({ result: 42 }, { result: "42" }).exact_match).toBe(1);
  });
});
